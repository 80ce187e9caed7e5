package store_test

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillcat/skillcat/store"
)

// TestCacheParts: a part made is there for the next build, whole (a large
// one too, and more than one statement's worth); a part the next build
// neither used nor made again is gone after it commits; one made again
// replaces the old.
func TestCacheParts(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cache.sqlite")
	commit := func(fn func(tx *store.CacheTx)) {
		t.Helper()
		tx, done := beginCache(t, path)
		defer done()
		fn(tx)
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	parts := func(kind string) map[string]string {
		t.Helper()
		tx, done := beginCache(t, path)
		defer done()
		got, err := tx.Parts(ctx, kind)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	big := strings.Repeat("layout line\n", 100_000)
	want := map[string]string{}
	commit(func(tx *store.CacheTx) {
		for i := range 700 {
			k, v := fmt.Sprintf("k%03d", i), fmt.Sprintf("tokens %d", i)
			want[k] = v
			if err := tx.PutPart(ctx, "small", k, v); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.PutPart(ctx, "big", "h1", big); err != nil {
			t.Fatal(err)
		}
	})
	if got := parts("small"); !maps.Equal(got, want) {
		t.Fatalf("got %d small parts, want %d", len(got), len(want))
	}
	if got := parts("big"); got["h1"] != big || len(got) != 1 {
		t.Fatalf("big part not kept whole: %d parts", len(got))
	}
	commit(func(tx *store.CacheTx) {
		for i := range 700 {
			if k := fmt.Sprintf("k%03d", i); i%7 != 0 {
				tx.UsePart("small", k)
			} else {
				delete(want, k)
			}
		}
		want["k001"] = "again"
		if err := tx.PutPart(ctx, "small", "k001", "again"); err != nil {
			t.Fatal(err)
		}
		if err := tx.PutPart(ctx, "big", "h2", "new"); err != nil {
			t.Fatal(err)
		}
	})
	if got := parts("small"); !maps.Equal(got, want) {
		t.Fatalf("got %d small parts (k001 %q), want %d", len(got), got["k001"], len(want))
	}
	if got := parts("big"); len(got) != 1 || got["h2"] != "new" {
		t.Fatalf("got big parts %v, want only h2", maps.Keys(got))
	}
}
