package build

import (
	"slices"
	"testing"

	"github.com/skillcat/skillcat/store"
)

// TestRecordsSince: the paths a rebuild's record update reads and writes
// (records.since) are exactly those whose record is not the previous
// build's: set to another record (once, however often set), new, or no
// longer made; a path set to its previous record again is not one.
func TestRecordsSince(t *testing.T) {
	rec := func(n int64) store.CachedOutput {
		return store.CachedOutput{Size: n, Stat: store.FileID{Ino: uint64(n)}}
	}
	prev := map[string]store.CachedOutput{"same": rec(1), "other": rec(2), "twice": rec(3), "gone": rec(4), "linked": rec(5)}
	set := func(r *records, path string, to store.CachedOutput) {
		old, ok := prev[path]
		r.set(path, to, old, ok)
	}
	r := newRecords(len(prev))
	set(&r, "same", rec(1))
	set(&r, "other", rec(20))
	set(&r, "twice", rec(30))
	set(&r, "twice", rec(3))
	set(&r, "new", rec(6))
	linked := rec(5)
	linked.Stat = store.FileID{} // taken by a link: noted again once in place
	set(&r, "linked", linked)
	set(&r, "linked", rec(50))
	got := slices.Sorted(slices.Values(r.since(prev)))
	if want := []string{"gone", "linked", "new", "other", "twice"}; !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	delete(prev, "gone")
	if got := slices.Sorted(slices.Values(r.since(prev))); !slices.Equal(got, []string{"linked", "new", "other", "twice"}) {
		t.Fatalf("nothing gone: got %q", got)
	}
}
