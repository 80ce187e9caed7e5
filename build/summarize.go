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
func firstText(description string) string { return firstTextOf(textParser, description) }

// firstTextOf is firstText with the given Markdown parser.
func firstTextOf(p parser.Parser, description string) string {
	source := []byte(description)
	doc := p.Parse(text.NewReader(source))
	var block ast.Node
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if n.Kind() == ast.KindParagraph {
			block = n
			break
		}
	}
	if block == nil {
		block = doc.FirstChild()
	}
	if block == nil {
		return ""
	}
	var b strings.Builder
	plainText(&b, block, source)
	return strings.Join(strings.FieldsFunc(b.String(), unicode.IsSpace), " ")
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
