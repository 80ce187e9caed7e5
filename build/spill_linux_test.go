package build

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/skillcat/skillcat/internal/treetest"
)

// TestSpillWithoutTmpFile: a cold build without a cache whose output lies
// on a file system that cannot make an O_TMPFILE (NFS, vfat, many FUSE
// file systems) keeps its spill file on the output's file system all the
// same, where the build can write and there is room for the site: not in
// the system's temporary folder, which may be missing, read-only or a
// small tmpfs (the spill is ~330 MB at 100,000 skills), and which no
// build cleans after a kill. With TMPDIR missing it builds the cold
// site and leaves nothing beside the output or in it.
func TestSpillWithoutTmpFile(t *testing.T) {
	content := testContent(t, 12, 1)
	want := coldTree(t, content)
	defer func(open func(string) (int, error)) { openTmpFile = open }(openTmpFile)
	openTmpFile = func(string) (int, error) { return -1, unix.EOPNOTSUPP }
	tmp := filepath.Join(t.TempDir(), "missing")
	t.Setenv("TMPDIR", tmp)
	parent := t.TempDir()
	out := filepath.Join(parent, "public")
	for i := range 2 {
		if _, err := Build(context.Background(), testConfig(content, out, "")); err != nil {
			t.Fatalf("build %d: %v", i+1, err)
		}
		if got := treetest.Files(t, out); !maps.Equal(got, want) {
			t.Fatalf("build %d differs from a cold build:\n%s", i+1, treetest.Diff(got, want))
		}
		checkNoDebris(t, parent, out)
	}
	if _, err := os.Stat(tmp); err == nil {
		t.Errorf("TMPDIR %s was made", tmp)
	}
}
