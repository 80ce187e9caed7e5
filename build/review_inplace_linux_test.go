package build

import (
	"context"
	"errors"
	"os"
	"path/filepath"
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
