package skillcat_test

import (
	"regexp"
	"testing"

	skillcat "github.com/skillcat/skillcat"
	"pgregory.net/rapid"
)

// TestValidIDAgreesWithPattern checks ValidID against the specification's
// pattern and length limit on strings drawn from an alphabet of near misses.
func TestValidIDAgreesWithPattern(t *testing.T) {
	re := regexp.MustCompile(`^[a-z0-9]+([._-][a-z0-9]+)*$`)
	rapid.Check(t, func(t *rapid.T) {
		id := rapid.StringOfN(rapid.SampledFrom([]rune("ab09._-A/ é")), 0, 140, -1).Draw(t, "id")
		want := len(id) >= 1 && len(id) <= 128 && re.MatchString(id)
		if got := skillcat.ValidID(id); got != want {
			t.Fatalf("ValidID(%q) = %v, want %v", id, got, want)
		}
	})
	long := "a"
	for len(long) < 128 {
		long += "b"
	}
	for id, want := range map[string]bool{"a": true, "weather.forecast": true, "a-b_c.d": true, "": false, long: true, long + "c": false, "a..b": false, "-a": false, "a.": false} {
		if got := skillcat.ValidID(id); got != want {
			t.Errorf("ValidID(%q) = %v, want %v", id, got, want)
		}
	}
}
