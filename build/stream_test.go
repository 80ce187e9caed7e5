package build

import (
	"context"
	"errors"
	"path/filepath"
	"runtime"
	"strings"
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

// TestFullRunStopsWithTheBuild cancels a one-change rebuild as soon as it
// has opened the previous llms-full.txt, whose copy then runs on a
// goroutine of its own waiting for the changed skill's block, which never
// comes: the build fails with the output as it was, and that goroutine
// is gone when it returns (abort stops it). The next build equals a cold
// one.
func TestFullRunStopsWithTheBuild(t *testing.T) {
	a, b := testContent(t, 8, 1), testContent(t, 8, 1)
	editDescription(t, filepath.Join(b, synth.Name(0)))
	want := coldShapes(t, a, a, b)
	parent := t.TempDir()
	out, cache := filepath.Join(parent, "public"), filepath.Join(parent, ".cache", "public.sqlite")
	for i := range 2 {
		if _, err := Build(context.Background(), spareConfig(a, out, cache)); err != nil {
			t.Fatalf("build %d: %v", i, err)
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opened := 0
	defer func(f func()) { previousFullOpened = f }(previousFullOpened)
	previousFullOpened = func() { opened++; cancel() }
	if _, err := Build(ctx, spareConfig(b, out, cache)); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want the build canceled", err)
	}
	if opened != 1 {
		t.Fatalf("the previous llms-full.txt was opened %d times, want once", opened)
	}
	buf := make([]byte, 1<<20)
	if stacks := string(buf[:runtime.Stack(buf, true)]); strings.Contains(stacks, "(*fullStream).run") {
		t.Errorf("the llms-full.txt run outlived its build:\n%s", stacks)
	}
	checkShape(t, "canceled", out, want[1])
	checkNoDebris(t, parent, out)

	previousFullOpened = func() {}
	if _, err := Build(context.Background(), spareConfig(b, out, cache)); err != nil {
		t.Fatal(err)
	}
	checkShape(t, "after", out, want[2])
}
