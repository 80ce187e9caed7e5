package store_test

import (
	"context"
	"errors"
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
// non-ASCII ids, which order by bytes). It loads the same rows twice,
// committed by Commit and by CommitAside, whose duplicates, listing,
// index and counts must be the same; the index is read before
// CommitAside's wait, which the read must wait for.
func TestLoaderListing(t *testing.T) {
	ctx := context.Background()
	odd := []string{"", "a", "b", "é", "\xff", "x\x00y", "Z", "a-b", "a.b", "\u2028"}
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(0, 40).Draw(rt, "n")
		var rows []store.Row
		for i := range n {
			id := rapid.SampledFrom(odd[1:]).Draw(rt, "id") + rapid.SampledFrom(odd).Draw(rt, "id2")
			tags := rapid.SliceOfNDistinct(rapid.SampledFrom(odd), 0, 4, rapid.ID[string]).Draw(rt, "tags")
			s := newSkill(id, rapid.SampledFrom(capabilityTypes).Draw(rt, "type"),
				rapid.SampledFrom([]string{"public", "restricted", "private"}).Draw(rt, "access"), fmt.Sprintf("s%02d.json", i), tags...)
			s.Name = rapid.SampledFrom(odd).Draw(rt, "name")
			s.Summary = rapid.SampledFrom(odd).Draw(rt, "summary")
			rows = append(rows, s)
		}
		type loaded struct {
			dups            []*store.DuplicateError
			listing, listed []store.Row
			counts          map[string]int
		}
		load := func(aside bool) loaded {
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
			for i := range rows {
				r := rows[i]
				if _, err := l.Add(ctx, &r); err != nil {
					rt.Fatal(err)
				}
			}
			var got loaded
			wait := func() error { return nil }
			if aside {
				got.dups, wait, err = l.CommitAside()
			} else {
				got.dups, err = l.Commit()
			}
			if err != nil {
				rt.Fatal(err)
			}
			var ok bool
			if got.listing, ok = l.Listing(); !ok {
				rt.Fatal("Listing: not kept for a temporary index")
			}
			// Before wait: the read waits for the commit.
			if got.listed, err = db.ListedEntries(ctx, ""); err != nil {
				rt.Fatal(err)
			}
			if got.counts, err = db.CountByType(ctx); err != nil {
				rt.Fatal(err)
			}
			if err := wait(); err != nil {
				rt.Fatalf("wait: %v", err)
			}
			return got
		}
		committed, aside := load(false), load(true)
		if !reflect.DeepEqual(committed.listing, committed.listed) {
			rt.Fatalf("Listing:\ngot  %q\nwant %q", committed.listing, committed.listed)
		}
		if !reflect.DeepEqual(aside, committed) {
			rt.Fatalf("CommitAside:\ngot  %+v\nwant %+v", aside, committed)
		}
		if got := store.CountByType(committed.listed); !reflect.DeepEqual(got, committed.counts) {
			rt.Fatalf("CountByType of the listing: got %v, want %v", got, committed.counts)
		}
	})
}

// TestCommitAsideFails checks that a commit left to CommitAside's
// goroutine that fails (its load canceled there) is told by wait, and
// leaves no row in the index.
func TestCommitAsideFails(t *testing.T) {
	db, err := store.OpenTemp(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	l, err := db.NewLoader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, r := range []store.Row{newSkill("a", "api", "public", "a.json", "x", "y"), newSkill("b", "task", "public", "b.json", "z")} {
		if _, err := l.Add(ctx, &r); err != nil {
			t.Fatal(err)
		}
	}
	defer store.SetSettleStarts(cancel)()
	dups, wait, err := l.CommitAside()
	if dups != nil || err != nil {
		t.Fatalf("CommitAside: got %v, %v, want the commit under way", dups, err)
	}
	if err := wait(); !errors.Is(err, context.Canceled) {
		t.Fatalf("wait: got %v, want context.Canceled", err)
	}
	if err := wait(); !errors.Is(err, context.Canceled) {
		t.Fatalf("wait again: got %v, want the same error", err)
	}
	rows, err := db.ListedEntries(context.Background(), "")
	if err != nil || len(rows) != 0 {
		t.Errorf("the index after the failed commit: got %d rows, %v, want none", len(rows), err)
	}
}
