package build

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// MaxSummary is the longest summary, in code points, "…" included.
const MaxSummary = 200

// markdown renders descriptions: CommonMark with GitHub's tables,
// strikethrough, autolinks and task lists, and heading anchors. Raw HTML is
// shown as text, never passed through, and dangerous link targets such as
// javascript: are dropped (goldmark's default without WithUnsafe).
var markdown = goldmark.New(
	goldmark.WithExtensions(extension.GFM),
	goldmark.WithParserOptions(parser.WithAutoHeadingID()),
	goldmark.WithRendererOptions(
		html.WithXHTML(),
		renderer.WithNodeRenderers(util.Prioritized(rawHTMLAsText{}, 100)),
	),
)

// rawHTMLAsText renders raw HTML, inline or as a block, escaped as the text
// it is, so nothing is interpreted and nothing is lost.
type rawHTMLAsText struct{}

func (rawHTMLAsText) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindRawHTML, func(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkSkipChildren, nil
		}
		segs := n.(*ast.RawHTML).Segments
		for i := 0; i < segs.Len(); i++ {
			seg := segs.At(i)
			_, _ = w.Write(util.EscapeHTML(seg.Value(source)))
		}
		return ast.WalkSkipChildren, nil
	})
	reg.Register(ast.KindHTMLBlock, func(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		b := n.(*ast.HTMLBlock)
		_, _ = w.WriteString("<p class=\"raw-html\">")
		lines := b.Lines()
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			_, _ = w.Write(util.EscapeHTML(seg.Value(source)))
		}
		if b.HasClosure() {
			_, _ = w.Write(util.EscapeHTML(b.ClosureLine.Value(source)))
		}
		_, _ = w.WriteString("</p>\n")
		return ast.WalkContinue, nil
	})
}

// renderMarkdown renders a description to HTML.
func renderMarkdown(src string) ([]byte, error) {
	var buf bytes.Buffer
	if err := markdown.Convert([]byte(src), &buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Summarize returns the plain text of a description's first paragraph:
// inline markup removed, white space collapsed, at most MaxSummary code
// points, cut at a word boundary with "…" when longer. A description with no
// paragraph summarizes its first block of text.
func Summarize(description string) string {
	source := []byte(description)
	doc := markdown.Parser().Parse(text.NewReader(source))
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
	return truncate(strings.Join(strings.FieldsFunc(b.String(), unicode.IsSpace), " "), MaxSummary)
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
