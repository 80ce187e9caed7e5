package build

import (
	"regexp"
	"testing"

	"pgregory.net/rapid"
)

// TestCoreMatchersAreTheRegexps holds the YAML 1.2 core schema matchers to
// the regular expressions they spell out, on strings made of the
// characters those expressions care about.
func TestCoreMatchersAreTheRegexps(t *testing.T) {
	cases := []struct {
		name  string
		match func(string) bool
		re    *regexp.Regexp
	}{
		{"null", coreNull, regexp.MustCompile(`^(null|Null|NULL|~|)$`)},
		{"bool", coreBool, regexp.MustCompile(`^(true|True|TRUE|false|False|FALSE)$`)},
		{"int", coreInt, regexp.MustCompile(`^[-+]?[0-9]+$`)},
		{"oct", coreOct, regexp.MustCompile(`^0o[0-7]+$`)},
		{"hex", coreHex, regexp.MustCompile(`^0x[0-9a-fA-F]+$`)},
		{"float", coreFloat, regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)},
		{"inf", coreInf, regexp.MustCompile(`^([-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN))$`)},
	}
	words := []string{"null", "Null", "NULL", "~", "true", "True", "TRUE", "false", "False", "FALSE",
		".inf", ".Inf", ".INF", ".nan", ".NaN", ".NAN", "0o", "0x", "e", "E", "inf", "nan"}
	chars := []rune("0123456789+-.eEoxXabfAF8~ \n")
	piece := rapid.OneOf(rapid.SampledFrom(words), rapid.StringOfN(rapid.SampledFrom(chars), 1, 3, -1))
	rapid.Check(t, func(rt *rapid.T) {
		v := ""
		for _, p := range rapid.SliceOfN(piece, 0, 4).Draw(rt, "pieces") {
			v += p
		}
		for _, c := range cases {
			if got, want := c.match(v), c.re.MatchString(v); got != want {
				rt.Fatalf("%s(%q) = %v, want %v", c.name, v, got, want)
			}
		}
	})
	for _, v := range append(words, "", "+", "-", ".", "1.", ".5", "1e", "1e+", "+.5e-3", "0o8", "0xG", "-.inf", "+.nan", "1_000") {
		for _, c := range cases {
			if got, want := c.match(v), c.re.MatchString(v); got != want {
				t.Errorf("%s(%q) = %v, want %v", c.name, v, got, want)
			}
		}
	}
}
