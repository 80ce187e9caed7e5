package build

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// MaxSummary is the longest summary, in code points, "…" included.
const MaxSummary = 200

// Summarize returns the plain text of a description's first paragraph:
// inline markup removed, white space collapsed, at most MaxSummary code
// points, cut at a word boundary with "…" when longer. A description with no
// paragraph summarizes its first block of text.
func Summarize(description string) string {
	return truncate(firstText(description), MaxSummary)
}

// firstText returns the plain text of a Markdown document's first
// paragraph (or first block), whole.
//
// Most of a description comes after its first paragraph, so that is parsed
// first on its own: CommonMark reads blocks line by line, and a top-level
// paragraph followed by a blank line is closed by lines before that blank
// line alone. What else could change it is a link reference definition
// further down ("[x]: /url" gives "[x]" in the paragraph its meaning), so
// a description that has "]:" anywhere is parsed whole, as is one whose
// first paragraph is not found within its first few blank lines.
// TestFirstTextOfPrefix compares the two ways on generated documents.
func firstText(description string) string {
	if text, ok := plainParagraph(description); ok {
		return text
	}
	if !strings.Contains(description, "]:") {
		cut := 0
		for range 4 {
			if cut = afterBlankLine(description, cut); cut < 0 {
				break
			}
			if text, ok := firstParagraphText(textParser, description[:cut]); ok {
				return text
			}
		}
	}
	return firstTextOf(textParser, description)
}

// plainParagraph is firstText without a Markdown parser, for a first
// paragraph that holds only text, single-backtick code spans and
// emphasis or strong emphasis by stars, not nested, whose every run of
// one or two stars only opens or only closes (nearly every
// description's): ok is false for anything else, which the parser then
// reads. The paragraph runs from the first non-blank line to the next
// blank one; each of its lines must begin as no other block does (a
// letter, a digit not followed by "." or ")", "(", '"', a star or a
// backtick), the first indented by at most three spaces, and nowhere may
// it hold a character that could start other markup (an escape, an
// entity, HTML, a link, underscore emphasis, strikethrough, a table, an
// autolink: `\&<>[]_~|#@:` and "www.", and '@' or ':' in code spans
// too). The text is what plainText gives:
// the markup's stars and backticks dropped, white space collapsed.
// FuzzPlainParagraph holds it to the parser.
func plainParagraph(s string) (string, bool) {
	start := 0
	for {
		line, rest, more := strings.Cut(s[start:], "\n")
		if strings.Trim(line, " \t") != "" {
			break
		}
		if !more {
			return "", false
		}
		start = len(s) - len(rest)
	}
	end := len(s)
	for i := start; i < len(s); {
		line, rest, more := strings.Cut(s[i:], "\n")
		if strings.Trim(line, " \t") == "" {
			end = i
			break
		}
		if !more {
			break
		}
		i = len(s) - len(rest)
	}
	para := s[start:end]
	if !utf8.ValidString(para) || containsWWW(para) {
		return "", false
	}
	var b strings.Builder
	b.Grow(len(para))
	open := 0 // the length of the star run that opened an emphasis
	for rest, first := para, true; rest != ""; first = false {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		t := strings.TrimLeft(line, " \t")
		if lead := line[:len(line)-len(t)]; first && (len(lead) > 3 || strings.IndexByte(lead, '\t') >= 0) {
			return "", false
		}
		if !plainLineStart(t) {
			return "", false
		}
		for j := 0; j < len(t); j++ {
			c := t[j]
			switch {
			case c == '`':
				k := strings.IndexByte(t[j+1:], '`')
				if k <= 0 {
					return "", false
				}
				code := t[j+1 : j+1+k]
				// Linkify reads an email or URL across a code span's
				// backticks ("x`ya@b.example`y" is no code span to it):
				// the parser decides those.
				if code[0] == ' ' || code[len(code)-1] == ' ' || strings.ContainsFunc(code, isControl) || strings.ContainsAny(code, "@:") ||
					(j+2+k < len(t) && t[j+2+k] == '`') {
					return "", false
				}
				b.WriteString(code)
				j += 1 + k
			case c == '*':
				n := len(t[j:]) - len(strings.TrimLeft(t[j:], "*"))
				if n > 2 {
					return "", false
				}
				before, after := rune(' '), rune(' ') // a line's ends are white space
				if j > 0 {
					before, _ = utf8.DecodeLastRuneInString(t[:j])
				}
				if j+n < len(t) {
					after, _ = utf8.DecodeRuneInString(t[j+n:])
				}
				if open > 0 {
					if n != open || !isWordRune(before) || !isSpaceOrPunct(after) {
						return "", false // a run that closes nothing, or not the open one: the parser decides
					}
					open = 0
				} else if !isSpaceOrPunct(before) || !isWordRune(after) {
					return "", false
				} else {
					open = n
				}
				j += n - 1
			case c < ' ' && c != '\t', strings.IndexByte("\\&<>[]_~|#@:", c) >= 0:
				return "", false
			default:
				b.WriteByte(c)
			}
		}
		b.WriteByte(' ')
	}
	if open > 0 {
		return "", false
	}
	return collapseSpace(b.String()), true
}

// plainLineStart reports whether a paragraph's line beginning (its
// indentation taken off) as t can start no other block: a letter, "(",
// '"', a star or a backtick (which plainParagraph then checks as markup),
// or digits not followed by "." or ")" (an ordered list).
func plainLineStart(t string) bool {
	r, _ := utf8.DecodeRuneInString(t)
	switch {
	case unicode.IsLetter(r), r == '(', r == '"', r == '*', r == '`':
		return true
	case '0' <= r && r <= '9':
		rest := strings.TrimLeft(t, "0123456789")
		return rest == "" || (rest[0] != '.' && rest[0] != ')')
	}
	return false
}

// isWordRune reports whether r is a letter or a digit: neither white
// space nor punctuation, so a star before it can open and one after it
// can close.
func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// isSpaceOrPunct reports whether r is an ASCII space, tab or punctuation
// character, so that a star before a word rune only opens and one after
// a word rune only closes.
func isSpaceOrPunct(r rune) bool {
	return r == ' ' || r == '\t' || (r < utf8.RuneSelf && strings.ContainsRune("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", r))
}

// containsWWW reports whether s holds "www." in any case (where Linkify
// may find a link).
func containsWWW(s string) bool {
	for i := 3; i < len(s); i++ {
		if s[i] == '.' && strings.EqualFold(s[i-3:i], "www") {
			return true
		}
	}
	return false
}

// isControl reports whether r is a control character other than a tab.
func isControl(r rune) bool { return r < ' ' && r != '\t' }

// afterBlankLine returns the index just after the first line at or after
// from that follows a non-blank line and holds only spaces and tabs, or -1.
func afterBlankLine(s string, from int) int {
	seen := false
	for from < len(s) {
		end := strings.IndexByte(s[from:], '\n')
		if end < 0 {
			return -1
		}
		line := strings.TrimRight(s[from:from+end], " \t\r")
		from += end + 1
		if line != "" {
			seen = true
		} else if seen {
			return from
		}
	}
	return -1
}

// firstTextOf is firstText parsing the whole description with p.
func firstTextOf(p parser.Parser, description string) string {
	source := []byte(description)
	doc := p.Parse(text.NewReader(source))
	block := firstParagraph(doc)
	if block == nil {
		block = doc.FirstChild()
	}
	if block == nil {
		return ""
	}
	return blockText(block, source)
}

// firstParagraphText is the text of the first top-level paragraph of
// source as p parses it, if it has one.
func firstParagraphText(p parser.Parser, source string) (string, bool) {
	src := []byte(source)
	block := firstParagraph(p.Parse(text.NewReader(src)))
	if block == nil {
		return "", false
	}
	return blockText(block, src), true
}

// firstParagraph returns doc's first top-level paragraph, or nil.
func firstParagraph(doc ast.Node) ast.Node {
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if n.Kind() == ast.KindParagraph {
			return n
		}
	}
	return nil
}

// blockText is the plain text of block, white space collapsed.
func blockText(block ast.Node, source []byte) string {
	var b strings.Builder
	plainText(&b, block, source)
	return collapseSpace(b.String())
}

// collapseSpace is strings.Join(strings.FieldsFunc(s, unicode.IsSpace),
// " ") in one pass and one allocation: s without leading and trailing
// white space, each run of it inside one space, other bytes (invalid
// UTF-8 included) kept as they are.
func collapseSpace(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			space = b.Len() > 0
		} else {
			if space {
				b.WriteByte(' ')
				space = false
			}
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// plainText writes the text of n's inline content, markup removed.
func plainText(b *strings.Builder, n ast.Node, source []byte) {
	switch t := n.(type) {
	case *ast.Text:
		v := t.Segment.Value(source)
		if _, inCode := n.Parent().(*ast.CodeSpan); !inCode {
			v = util.UnescapePunctuations(util.ResolveNumericReferences(util.ResolveEntityNames(v)))
		}
		b.Write(v)
		if t.SoftLineBreak() || t.HardLineBreak() {
			b.WriteByte(' ')
		}
		return
	case *ast.String:
		b.Write(t.Value)
		return
	case *ast.RawHTML:
		return // tags are markup
	case *ast.AutoLink:
		b.Write(t.Label(source))
		return
	case *ast.CodeBlock, *ast.FencedCodeBlock, *ast.HTMLBlock:
		lines := n.Lines()
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			b.Write(seg.Value(source))
			b.WriteByte(' ')
		}
		return
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		plainText(b, c, source)
		if c.Type() == ast.TypeBlock {
			b.WriteByte(' ')
		}
	}
}

// truncate cuts s to at most max code points at a word boundary, ending it
// with "…" when anything was cut.
func truncate(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	full := []rune(s)
	r := full[:max-1] // leave room for "…"
	cut := len(r)
	if full[cut] != ' ' {
		for i := len(r) - 1; i > 0; i-- {
			if r[i] == ' ' {
				cut = i
				break
			}
		}
	}
	if cut < len(r)/2 { // one very long word: cut inside it
		cut = len(r)
	}
	return strings.TrimRight(string(r[:cut]), " ,;:") + "…"
}
