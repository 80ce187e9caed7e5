package build

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestSpareNoExchange checks that builds from the spare where the
// directories cannot be exchanged (renameat2 refused, as on a file system
// without RENAME_EXCHANGE: the files are moved in one by one) each equal a
// cold build.
func TestSpareNoExchange(t *testing.T) {
	a, b := testContent(t, 12, 1), testContent(t, 14, 2)
	order := []string{a, b, a, b, b}
	want := coldShapes(t, order...)
	defer func() { exchangeDirs = exchange }()
	parent := t.TempDir()
	out, cache := filepath.Join(parent, "public"), filepath.Join(parent, ".cache", "public.sqlite")
	for i, c := range order {
		if i >= 2 {
			exchangeDirs = func(x, y string) error { return &os.LinkError{Op: "renameat2", Old: x, New: y, Err: syscall.EINVAL} }
		}
		if _, err := Build(context.Background(), spareConfig(c, out, cache)); err != nil {
			t.Fatalf("build %d: %v", i, err)
		}
		checkShape(t, "build "+string(rune('0'+i)), out, want[i])
		checkNoDebris(t, parent, out)
	}
}
