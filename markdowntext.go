package skillcat

import "strings"

// MarkdownText writes plain text s (a name, a summary, a title) as one line
// of Markdown that reads back as the same text: OneLine's collapsed line
// with every character that could open an inline construct there backslash-
// escaped (code spans, emphasis, links, raw HTML, entities, strikethrough),
// and the first character too where it could open a block (a heading, a
// list item, a quote, a setext underline, a thematic break). A summary
// of "Use `<b>`" loses its code span when it is made plain, and written
// as it is into SKILL.md or llms.txt its "<b>" would be HTML again.
func MarkdownText(s string) string {
	s = OneLine(s)
	if !needsMarkdownEscape(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isInlineMark(s, i) || i == markdownBlockMark(s) {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// needsMarkdownEscape reports whether MarkdownText must escape any byte of
// the one-line text s.
func needsMarkdownEscape(s string) bool {
	if markdownBlockMark(s) >= 0 {
		return true
	}
	for i := 0; i < len(s); i++ {
		if isInlineMark(s, i) {
			return true
		}
	}
	return false
}

// isInlineMark reports whether s[i] can open or close an inline construct
// of CommonMark or GitHub's Markdown: a backslash, code span, emphasis,
// link or strikethrough mark anywhere but an underscore within a word
// ("snake_case" is no emphasis), an ampersand that could begin an entity
// ("&amp;", "&#38;", not "notes & decisions"), a '<' that could begin raw
// HTML or an autolink (any '<' not followed by a space).
func isInlineMark(s string, i int) bool {
	switch s[i] {
	case '\\', '`', '*', '[', ']', '~':
		return true
	case '_':
		return i == 0 || i == len(s)-1 || !isAlnum(s[i-1]) || !isAlnum(s[i+1])
	case '&':
		return i+1 < len(s) && (isAlnum(s[i+1]) || s[i+1] == '#')
	case '<':
		// Raw HTML starts "<a", "</", "<!" or "<?"; an email autolink's
		// local part may start with any of ".!#$%&'*+/=?^_`{|}~-" ("<#x@y>"):
		// only a space after it is always plain.
		return i+1 < len(s) && s[i+1] != ' ' && s[i+1] != '\t'
	}
	return false
}

// isAlnum reports whether c is an ASCII letter or digit.
func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// markdownBlockMark is the index of the byte of s that would make a line
// starting with s open a block (an ATX heading's '#', a list item's or a
// setext underline's '-', '+' or '=', an ordered item's '.' or ')' after up
// to nine digits, a quote's '>'), or -1. '*' is escaped everywhere already.
func markdownBlockMark(s string) int {
	if s == "" {
		return -1
	}
	switch s[0] {
	case '#', '-', '+', '=', '>':
		return 0
	}
	i := 0
	for i < len(s) && i < 9 && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i > 0 && i < len(s) && (s[i] == '.' || s[i] == ')') {
		return i
	}
	return -1
}
