package build

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/skillcat/skillcat/synth"
)

// TestSearchReusesSharedPrevious rebuilds with one description changed,
// from a cold build and from a build that changed nothing (so that the
// spare's search files are the live files' inodes, as llms-full.txt's
// were in d7a8a8d and 4b49206): the unchanged skills' postings are read
// back from the previous shards (previousPostings) both times. The live
// files' identities (previousBytes' sameFile) hold because nothing clears
// the spare's search files before the postings are read: only
// writeSearchFiles does, after them.
func TestSearchReusesSharedPrevious(t *testing.T) {
	for _, builds := range []int{2, 3} {
		content := testContent(t, 8, 1)
		parent := t.TempDir()
		out, cache := filepath.Join(parent, "public"), filepath.Join(parent, "cache.sqlite")
		read := 0
		defer func(f func()) { previousSearchRead = f }(previousSearchRead)
		previousSearchRead = func() { read++ }
		for i := 0; i < builds; i++ {
			if i == builds-1 {
				editDescription(t, filepath.Join(content, synth.Name(0)))
			}
			read = 0
			if _, err := Build(context.Background(), spareConfig(content, out, cache)); err != nil {
				t.Fatalf("%d builds, build %d: %v", builds, i, err)
			}
		}
		if read != 1 {
			t.Errorf("%d builds: the last read the previous search index %d times, want once", builds, read)
		}
	}
}
