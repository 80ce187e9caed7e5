package skillcat

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// OneLine collapses white space, line breaks included, into single spaces,
// as a field of a one-line format (a SKILL.md description, an llms.txt
// entry) must be written, and writes every other control character as
// Printable does.
func OneLine(s string) string {
	if isOneLine(s) {
		return s
	}
	return Printable(strings.Join(strings.Fields(s), " "))
}

// Printable writes each control character of s but tab, line feed and
// carriage return (NUL, ESC, DEL, the C1 controls) as U+FFFD, as
// CommonMark does with NUL: a text document (SKILL.md, llms.txt) has no
// escape for one, and a terminal showing the file would obey an ESC.
func Printable(s string) string {
	if !hasControl(s) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if isControl(r) {
			return utf8.RuneError
		}
		return r
	}, s)
}

// hasControl reports whether s holds a control character that Printable
// replaces.
func hasControl(s string) bool {
	for _, r := range s {
		if isControl(r) {
			return true
		}
	}
	return false
}

// isControl reports whether r is a control character other than tab,
// line feed and carriage return.
func isControl(r rune) bool {
	return unicode.IsControl(r) && r != '\t' && r != '\n' && r != '\r'
}

// isOneLine reports whether s has no white space but single spaces
// between words and no control character, so that OneLine would give it
// back as it is. The bytes of ASCII a line holds are told by a table
// (oneLineByte): every field of every skill goes through here.
func isOneLine(s string) bool {
	for i := 0; i < len(s); {
		switch oneLineByte[s[i]] {
		case 0:
			i++
		case oneLineSpace:
			if i == 0 || i == len(s)-1 || s[i+1] == ' ' {
				return false
			}
			i++
		case oneLineMulti:
			r, n := utf8.DecodeRuneInString(s[i:])
			if unicode.IsSpace(r) || isControl(r) {
				return false
			}
			i += n
		default:
			return false
		}
	}
	return true
}

// oneLineByte sorts the bytes for isOneLine: 0 for a byte a line holds as
// it is, oneLineSpace for a space, oneLineMulti for the first byte of a
// character past ASCII (or of one not valid), and oneLineControl for an
// ASCII control character, tab and line breaks among them.
var oneLineByte = func() (t [256]uint8) {
	for c := range 0x20 {
		t[c] = oneLineControl
	}
	t[0x7f] = oneLineControl
	t[' '] = oneLineSpace
	for c := utf8.RuneSelf; c < len(t); c++ {
		t[c] = oneLineMulti
	}
	return t
}()

// The sorts of oneLineByte.
const (
	oneLineControl = 1 + iota
	oneLineSpace
	oneLineMulti
)
