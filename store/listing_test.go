package store_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"pgregory.net/rapid"

	"github.com/skillcat/skillcat/store"
)

// TestLoaderListing checks that the listing a load keeps (Loader.Listing)
// is what ListedEntries reads back from the committed index: the same
// rows, fields and tags in the same order, for random loads with
// duplicates, private skills and odd strings (a NUL, invalid UTF-8,
// non-ASCII ids, which order by bytes).
func TestLoaderListing(t *testing.T) {
	ctx := context.Background()
	odd := []string{"", "a", "b", "é", "\xff", "x\x00y", "Z", "a-b", "a.b", "\u2028"}
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(0, 40).Draw(rt, "n")
		db, err := store.OpenTemp(ctx)
		if err != nil {
			rt.Fatal(err)
		}
		defer db.Close()
		l, err := db.NewLoader(ctx)
		if err != nil {
			rt.Fatal(err)
		}
		defer l.Close()
		for i := range n {
			id := rapid.SampledFrom(odd[1:]).Draw(rt, "id") + rapid.SampledFrom(odd).Draw(rt, "id2")
			tags := rapid.SliceOfNDistinct(rapid.SampledFrom(odd), 0, 4, rapid.ID[string]).Draw(rt, "tags")
			s := newSkill(id, rapid.SampledFrom(capabilityTypes).Draw(rt, "type"),
				rapid.SampledFrom([]string{"public", "restricted", "private"}).Draw(rt, "access"), fmt.Sprintf("s%02d.json", i), tags...)
			s.Name = rapid.SampledFrom(odd).Draw(rt, "name")
			s.Summary = rapid.SampledFrom(odd).Draw(rt, "summary")
			if _, err := l.Add(ctx, &s); err != nil {
				rt.Fatal(err)
			}
		}
		if _, err := l.Commit(); err != nil {
			rt.Fatal(err)
		}
		got, ok := l.Listing()
		if !ok {
			rt.Fatal("Listing: not kept for a temporary index")
		}
		want, err := db.ListedEntries(ctx, "")
		if err != nil {
			rt.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			rt.Fatalf("Listing:\ngot  %q\nwant %q", got, want)
		}
	})
}
