package agentskills_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/skillcat/skillcat/agentskills"
	"pgregory.net/rapid"
)

// genID draws protocol ids that often collide once "." and "_" become "-",
// and are sometimes longer than a name may be.
var genID = rapid.Custom(func(t *rapid.T) string {
	parts := rapid.SliceOfN(rapid.SampledFrom([]string{"a", "b", "ab", "x1", "weather", "forecast", "0", strings.Repeat("long", 9)}), 1, 5).Draw(t, "parts")
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			b.WriteString(rapid.SampledFrom([]string{".", "_", "-"}).Draw(t, "sep"))
		}
		b.WriteString(p)
	}
	return b.String()
})

func TestNames(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ids := rapid.SliceOfNDistinct(genID, 1, 30, rapid.ID[string]).Draw(t, "ids")
		names := agentskills.Names(ids)
		if len(names) != len(ids) {
			t.Fatalf("got %d names for %d ids", len(names), len(ids))
		}
		seen := map[string]string{}
		for _, id := range ids {
			name := names[id]
			if !agentskills.ValidName(name) {
				t.Fatalf("id %q: name %q is not a valid Agent Skills name", id, name)
			}
			if other, ok := seen[name]; ok {
				t.Fatalf("ids %q and %q both got the name %q", other, id, name)
			}
			seen[name] = id
			if agentskills.ValidName(id) && name != id {
				t.Fatalf("id %q is a valid name itself but got %q", id, name)
			}
		}
		// Deterministic: the order of the ids does not matter.
		shuffled := slices.Clone(ids)
		rapid.Permutation(shuffled).Draw(t, "order")
		again := agentskills.Names(shuffled)
		for _, id := range ids {
			if again[id] != names[id] {
				t.Fatalf("id %q: name %q in one order, %q in another", id, names[id], again[id])
			}
		}
	})
}

func TestNamesCases(t *testing.T) {
	long := strings.Repeat("abcdefgh.", 10) + "end" // 93 characters
	for _, c := range []struct {
		name string
		ids  []string
		want map[string]string
	}{
		{"OK", []string{"weather.forecast", "a_b"}, map[string]string{"weather.forecast": "weather-forecast", "a_b": "a-b"}},
		{"ExactNameWins", []string{"a.b", "a-b", "a_b"}, map[string]string{"a-b": "a-b", "a.b": "a-b-2e7336dc", "a_b": "a-b-648fa9b3"}},
		{"SmallestIDWins", []string{"a_b", "a.b"}, map[string]string{"a.b": "a-b", "a_b": "a-b-648fa9b3"}},
		{"Long", []string{long}, map[string]string{long: "abcdefgh-abcdefgh-abcdefgh-abcdefgh-abcdefgh-abcdefgh-abcdefgh-a"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := agentskills.Names(c.ids)
			for id, want := range c.want {
				if got[id] != want {
					t.Errorf("Names(%q)[%q] = %q, want %q", c.ids, id, got[id], want)
				}
			}
		})
	}
}

func TestValidName(t *testing.T) {
	for name, want := range map[string]bool{
		"pdf-processing": true, "a": true, "0x1f": true, strings.Repeat("a", 64): true,
		"": false, "-pdf": false, "pdf-": false, "pdf--x": false, "PDF": false, "a.b": false, "a_b": false, strings.Repeat("a", 65): false, "ü": false,
	} {
		if got := agentskills.ValidName(name); got != want {
			t.Errorf("ValidName(%q) = %t, want %t", name, got, want)
		}
	}
}
