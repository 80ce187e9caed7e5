package build

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestMountPointStamped: with SOURCE_DATE_EPOCH, an output updated in
// place (a mount point) has every folder at the build's time, its own
// root included, as an exchanged output has: removing the in-place tree
// (.skillcat-new-*) from the root after the stamp gave the root the time
// of the build, so an archive of the output (tar -C public .) was not
// reproducible. Found by the review: find -printf '%T@' of a tmpfs output
// against a --no-cache build.
func TestMountPointStamped(t *testing.T) {
	content := testContent(t, 6, 1)
	when := time.Unix(1700000000, 0)
	for _, kind := range []string{"Tmpfs", "Bind"} {
		t.Run(kind, func(t *testing.T) {
			out, cache := mountedOutput(t, kind)
			for i := range 2 {
				cfg := testConfig(content, out, cache)
				cfg.Time = when.Add(time.Duration(i) * time.Hour)
				if _, err := Build(context.Background(), cfg); err != nil {
					t.Fatalf("build %d: %v", i+1, err)
				}
				err := filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
					if err != nil || !d.IsDir() {
						return err
					}
					info, err := d.Info()
					if err != nil {
						return err
					}
					if !info.ModTime().Equal(cfg.Time) {
						t.Errorf("build %d: folder %s has time %v, want %v", i+1, p, info.ModTime(), cfg.Time)
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
