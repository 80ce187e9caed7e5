package skillcat_test

import (
	"strings"
	"testing"
	"unicode"

	"pgregory.net/rapid"

	"github.com/skillcat/skillcat"
)

// TestOneLine holds OneLine's fast path (isOneLine) to what it stands
// for: the fields of s joined by single spaces, each control character
// left (NUL, ESC, DEL, C1) written U+FFFD, for any s, Unicode white space
// and invalid UTF-8 included.
func TestOneLine(t *testing.T) {
	str := rapid.OneOf(
		rapid.String(),
		rapid.StringOf(rapid.SampledFrom([]rune{'a', 'é', ' ', '\t', '\n', '\u0085', '\u00a0', '\u2028', '\u3000', '\ufffd', 0, '\x1b', '\x7f', '\u009b'})),
		rapid.Map(rapid.SliceOf(rapid.Byte()), func(b []byte) string { return string(b) }),
	)
	rapid.Check(t, func(t *rapid.T) {
		s := str.Draw(t, "s")
		want := strings.Join(strings.Fields(s), " ")
		if strings.ContainsFunc(want, unicode.IsControl) {
			want = strings.Map(func(r rune) rune {
				if unicode.IsControl(r) {
					return '\ufffd'
				}
				return r
			}, want)
		}
		if got := skillcat.OneLine(s); got != want {
			t.Fatalf("oneLine(%q): got %q, want %q", s, got, want)
		}
	})
}
