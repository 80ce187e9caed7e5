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
	r := newRecords(prev)
	r.set("same", rec(1))
	r.set("other", rec(20))
	r.set("twice", rec(30))
	r.set("twice", rec(3))
	r.set("new", rec(6))
	linked := rec(5)
	linked.Stat = store.FileID{} // taken by a link: noted again once in place
	r.set("linked", linked)
	r.set("linked", rec(50))
	got := slices.Sorted(slices.Values(r.since()))
	if want := []string{"gone", "linked", "new", "other", "twice"}; !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	delete(prev, "gone")
	if got := slices.Sorted(slices.Values(r.since())); !slices.Equal(got, []string{"linked", "new", "other", "twice"}) {
		t.Fatalf("nothing gone: got %q", got)
	}
}
