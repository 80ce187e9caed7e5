package build

import (
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/store"
)

// TestItemsOrder checks that items lists drawn rows by their names
// case-folded, then by id, each row once, with its texts printable.
func TestItemsOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		name := rapid.StringOf(rapid.SampledFrom([]rune{'a', 'B', 'b', 'A', 'é', 'É', ' ', 'z', '\x01', 'İ'}))
		var rows []store.Row
		for i := range rapid.IntRange(0, 40).Draw(t, "rows") {
			rows = append(rows, store.Row{ID: fmt.Sprintf("s%02d", i), Name: name.Draw(t, "name")})
		}
		rapid.Permutation(rows).Draw(t, "order")
		got := items(rows)
		if len(got) != len(rows) {
			t.Fatalf("got %d items of %d rows", len(got), len(rows))
		}
		seen := map[string]bool{}
		for i, it := range got {
			seen[it.ID()] = true
			if it.Name() != skillcat.Printable(it.Name()) {
				t.Errorf("item %q: name %q is not printable", it.ID(), it.Name())
			}
			if i == 0 {
				continue
			}
			a, b := strings.ToLower(got[i-1].Name()), strings.ToLower(it.Name())
			if a > b || a == b && got[i-1].ID() > it.ID() {
				t.Errorf("items %q (%q) and %q (%q) out of order", got[i-1].ID(), got[i-1].Name(), it.ID(), it.Name())
			}
		}
		if len(seen) != len(rows) {
			t.Errorf("got %d distinct items of %d rows", len(seen), len(rows))
		}
	})
}
