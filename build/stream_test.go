package build

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/skillcat/skillcat/synth"
)

// TestStreamTakesSharedPrevious rebuilds, from the spare, a site whose
// every key changed and none of whose bytes did (--strict on valid
// content): llms-full.txt, streamed, is taken from the previous output as
// every other file is. Its spare file was the live file's inode: clearing
// it changed the live file's change time, and close no longer found the
// file the last build left, so it counted a file written.
func TestStreamTakesSharedPrevious(t *testing.T) {
	content := testContent(t, 8, 1)
	parent := t.TempDir()
	out, cache := filepath.Join(parent, "public"), filepath.Join(parent, "cache.sqlite")
	for i := 0; i < 3; i++ {
		cfg := spareConfig(content, out, cache)
		cfg.Strict = i == 2 // every key changes, no byte does
		res, err := Build(context.Background(), cfg)
		if err != nil {
			t.Fatalf("build %d: %v", i, err)
		}
		if i == 2 && res.Files != 0 {
			t.Errorf("build %d: %d files written, want none (the bytes are the last build's)", i, res.Files)
		}
	}
}

// TestStreamCopiesSharedPreviousFull rebuilds, with one description
// changed, a site whose last build changed nothing (so its llms-full.txt
// is the inode the spare holds too): the blocks of the skills that did not
// change are copied from the previous llms-full.txt. Creating the new
// file cleared the spare's link first, which moved the live file's change
// time, and openPreviousFull no longer found the file the last build
// left: every block was made again.
func TestStreamCopiesSharedPreviousFull(t *testing.T) {
	content := testContent(t, 8, 1)
	parent := t.TempDir()
	out, cache := filepath.Join(parent, "public"), filepath.Join(parent, "cache.sqlite")
	opened := 0
	defer func(f func()) { previousFullOpened = f }(previousFullOpened)
	previousFullOpened = func() { opened++ }
	for i := 0; i < 3; i++ {
		if i == 2 {
			editDescription(t, filepath.Join(content, synth.Name(0)))
		}
		opened = 0
		if _, err := Build(context.Background(), spareConfig(content, out, cache)); err != nil {
			t.Fatalf("build %d: %v", i, err)
		}
	}
	if opened != 1 {
		t.Errorf("the rebuild opened the previous llms-full.txt %d times, want once (its blocks copied)", opened)
	}
}
