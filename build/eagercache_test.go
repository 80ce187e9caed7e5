package build

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/skillcat/skillcat/synth"
)

// TestFirstBuildWithCacheMakesAtParse holds a build with a new rebuild
// cache (a first build, CI's without a restored cache) to make every
// listed skill's files at its parse, as a build without a cache does, and
// to seal the cache it filled; a rebuild makes no eager run, and a build
// at another time, with every source unchanged, makes its skills from the
// cache's index.
func TestFirstBuildWithCacheMakesAtParse(t *testing.T) {
	content := testContent(t, 12, 3)
	parent := t.TempDir()
	out, cache := filepath.Join(parent, "public"), filepath.Join(parent, "cache.sqlite")
	made := -1
	defer func(f func(int)) { eagerFinished = f }(eagerFinished)
	eagerFinished = func(n int) { made = n }
	build := func(cfg Config) *Result {
		t.Helper()
		made = -1
		res, err := Build(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := build(spareConfig(content, out, cache))
	if made != res.Published || made == 0 {
		t.Errorf("first build: %d skills made at their parse, want all %d listed", made, res.Published)
	}
	if _, err := os.Stat(cache + "-seal"); err != nil {
		t.Errorf("the new cache is not sealed: %v", err)
	}
	editDescription(t, filepath.Join(content, synth.Name(0)))
	if build(spareConfig(content, out, cache)); made != -1 {
		t.Errorf("rebuild: an eager run made %d skills, want no eager run", made)
	}
	cfg := spareConfig(content, out, cache)
	cfg.Time = spareTime.Add(time.Hour)
	if build(cfg); made != 0 {
		t.Errorf("build at another time: %d skills made at their parse, want none (no source changed)", made)
	}
}
