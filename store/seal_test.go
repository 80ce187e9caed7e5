//go:build linux

package store

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestSealInTheCachesTick checks that a seal counts only when it was
// written in a later tick of the file system's clock than the cache's
// last change: on a file system of coarse times (a second on some), a
// write to the cache in the tick of the commit keeps the cache's identity,
// and the seal must not vouch for it. The seal's time is set back to the
// cache's change time, as such a file system gives it.
func TestSealInTheCachesTick(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cache.sqlite")
	commit := func() {
		c, err := OpenCache(ctx, path, "v")
		if err != nil {
			t.Fatal(err)
		}
		tx, err := c.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := tx.Verify(ctx); err != nil { // only checked rows are sealed
			t.Fatal(err)
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
	trusted := func() bool {
		c, err := OpenCache(ctx, path, "v")
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		tx, err := c.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		return tx.Trusted()
	}
	commit()
	if !trusted() {
		t.Fatal("a cache sealed by its last commit is not trusted")
	}
	commit()
	changed, ok := fileTimes(path)
	if !ok {
		t.Fatal("no times of the cache")
	}
	at := time.Unix(0, changed.ctime)
	if err := os.Chtimes(path+sealSuffix, at, at); err != nil {
		t.Fatal(err)
	}
	if trusted() {
		t.Error("a seal written in the tick of the cache's last change is trusted")
	}
}
