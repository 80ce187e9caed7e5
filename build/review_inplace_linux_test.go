package build

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/skillcat/skillcat/internal/treetest"
)

// TestFailedBuildLeavesMountedOutput: a build that fails (here on an
// invalid source) leaves an output updated in place (a mount point) as it
// was, its own folder's time included, with or without the cache. The
// in-place tree is made inside the output, and since 6525f48 a cold build
// without the cache makes it before the load: removing it changed the
// output's time from the build's SOURCE_DATE_EPOCH to now, so an archive
// of the output (tar -C public .) changed although the build had failed
// and written nothing (TestMountPointStamped holds the same time after a
// successful build).
func TestFailedBuildLeavesMountedOutput(t *testing.T) {
	for _, kind := range []string{"Tmpfs", "Bind"} {
		for _, cached := range []bool{false, true} {
			t.Run(kind+map[bool]string{false: "NoCache", true: "Cache"}[cached], func(t *testing.T) {
				content := testContent(t, 6, 1)
				out, cache := mountedOutput(t, kind)
				if !cached {
					cache = ""
				}
				cfg := testConfig(content, out, cache)
				cfg.Time = time.Unix(1700000000, 0)
				if _, err := Build(context.Background(), cfg); err != nil {
					t.Fatal(err)
				}
				before := treetest.Files(t, out)
				info, err := os.Stat(out)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(content, "zz-bad.json"), []byte("{"), 0o644); err != nil {
					t.Fatal(err)
				}
				if _, err := Build(context.Background(), cfg); !errors.Is(err, ErrInvalidContent) {
					t.Fatalf("got %v, want ErrInvalidContent", err)
				}
				if d := treetest.Diff(treetest.Files(t, out), before); d != "" {
					t.Errorf("output changed by a failed build:\n%s", d)
				}
				checkNoDebris(t, filepath.Dir(out), out)
				if after, err := os.Stat(out); err != nil || !after.ModTime().Equal(info.ModTime()) {
					t.Errorf("output's time after a failed build: got %v (%v), want %v", after.ModTime(), err, info.ModTime())
				}
			})
		}
	}
}

// TestViolationsBeforeUnwritableOutput: a build without the cache whose
// output cannot be made (its folder on a read-only file system) reports
// the catalog's violations, as validate does and as it did before
// 6525f48 made the new tree before the load; only a valid catalog meets
// the write error.
func TestViolationsBeforeUnwritableOutput(t *testing.T) {
	parent := filepath.Join(t.TempDir(), "ro")
	if err := os.MkdirAll(parent, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", parent, "tmpfs", syscall.MS_RDONLY, "size=1m"); err != nil {
		t.Skipf("SKIPPED: cannot mount a tmpfs (%v); this test needs root with CAP_SYS_ADMIN: sudo go test ./build -run '%s'", err, t.Name())
	}
	t.Cleanup(func() { syscall.Unmount(parent, syscall.MNT_DETACH) })
	content := testContent(t, 6, 1)
	cfg := testConfig(content, filepath.Join(parent, "public"), "")
	if _, err := Build(context.Background(), cfg); err == nil || errors.Is(err, ErrInvalidContent) {
		t.Fatalf("valid catalog: got %v, want a write error", err)
	}
	if err := os.WriteFile(filepath.Join(content, "zz-bad.json"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Build(context.Background(), cfg)
	var invalid *InvalidError
	if !errors.As(err, &invalid) || len(invalid.Violations) != 1 || !strings.HasSuffix(invalid.Violations[0].File, "zz-bad.json") {
		t.Errorf("invalid catalog: got %v, want the violation of zz-bad.json", err)
	}
}
