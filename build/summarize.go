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
