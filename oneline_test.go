package skillcat_test

import (
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/skillcat/skillcat"
)

// TestOneLine holds OneLine's fast path (isOneLine) to what it stands
// for: the fields of s joined by single spaces, for any s, Unicode white
// space and invalid UTF-8 included.
func TestOneLine(t *testing.T) {
	str := rapid.OneOf(
		rapid.String(),
		rapid.StringOf(rapid.SampledFrom([]rune{'a', 'é', ' ', '\t', '\n', '\u0085', '\u00a0', '\u2028', '\u3000', '\ufffd'})),
		rapid.Map(rapid.SliceOf(rapid.Byte()), func(b []byte) string { return string(b) }),
	)
	rapid.Check(t, func(t *rapid.T) {
		s := str.Draw(t, "s")
		if got, want := skillcat.OneLine(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Fatalf("oneLine(%q): got %q, want %q", s, got, want)
		}
	})
}
