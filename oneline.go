package skillcat

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// OneLine collapses white space, line breaks included, into single spaces,
// as a field of a one-line format (a SKILL.md description, an llms.txt
// entry) must be written.
func OneLine(s string) string {
	if isOneLine(s) {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// isOneLine reports whether s has no white space but single spaces
// between words, so that OneLine would give it back as it is.
func isOneLine(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			if unicode.IsSpace(r) {
				return false
			}
			i += n
			continue
		}
		if c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' || c == ' ' && (i == 0 || i == len(s)-1 || s[i+1] == ' ') {
			return false
		}
		i++
	}
	return true
}
