package build

import (
	"bufio"
	"bytes"
	"html/template"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// markdown renders descriptions and the site intro: CommonMark with GitHub's
// tables, strikethrough, autolinks and task lists, fenced code highlighted at
// build time (chroma, CSS classes only: the pages run under a CSP without
// inline styles; see highlightCode), and headings with anchors. Raw HTML is shown as text, never
// passed through; links keep only http, https and mailto targets (or
// relative ones), so javascript: and friends are dropped with their text
// kept; images become links (the CSP allows no images from elsewhere).
var markdown = goldmark.New(
	goldmark.WithExtensions(markdownSyntax()...),
	goldmark.WithParserOptions(
		parser.WithASTTransformers(util.Prioritized(pageTransformer{}, 100)),
	),
	goldmark.WithRendererOptions(
		renderer.WithNodeRenderers(util.Prioritized(safeRenderer{}, 100)),
	),
)

// markdownSyntax is the Markdown of descriptions: CommonMark and GitHub's
// extensions.
func markdownSyntax() []goldmark.Extender {
	return []goldmark.Extender{
		extension.NewTable(extension.WithTableCellAlignMethod(extension.TableCellAlignNone)),
		extension.Strikethrough,
		extension.Linkify,
		extension.TaskList,
	}
}

// textParser parses a description for its text alone (Summarize): the
// syntax of markdown without pageTransformer, whose heading levels, ids
// and cell classes are no part of the text.
var textParser = goldmark.New(goldmark.WithExtensions(markdownSyntax()...)).Parser()

// ReservedIDs are the element ids the page templates use, besides
// "example-1", "example-2", …; a description's heading never takes one (it
// gets "inputs-1" instead of "inputs"), so a heading can never collide with
// the page around it.
var ReservedIDs = []string{
	"main", "top", "title", "q", "search", "filters", "filters-label", "status", "skills",
	"catalog", "catalog-title", "clear", "empty", "intro", "call", "description",
	"inputs", "output", "examples", "descriptor", "not-found",
}

// headingIDs makes heading ids as goldmark does (lowercase ASCII letters
// and digits, spaces and '-'/'_' as '-'), unique within a page and never
// one of ReservedIDs.
type headingIDs struct{ used map[string]bool }

func newHeadingIDs() *headingIDs { return &headingIDs{} }

// reservedIDs is ReservedIDs as a set.
var reservedIDs = func() map[string]bool {
	m := map[string]bool{}
	for _, id := range ReservedIDs {
		m[id] = true
	}
	return m
}()

func (s *headingIDs) Generate(value []byte, kind ast.NodeKind) []byte {
	var b []byte
	for _, c := range bytes.TrimSpace(value) {
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
			b = append(b, c)
		case 'A' <= c && c <= 'Z':
			b = append(b, c+'a'-'A')
		case c == ' ' || c == '\t' || c == '-' || c == '_':
			b = append(b, '-')
		}
	}
	base := strings.Trim(string(b), "-")
	if base == "" {
		base = "section"
	}
	id := base
	for i := 1; s.used[id] || reservedIDs[id] || isExampleID(id); i++ {
		id = base + "-" + strconv.Itoa(i)
	}
	s.put(id)
	return []byte(id)
}

// isExampleID reports whether id is one the skill page gives its examples.
func isExampleID(id string) bool {
	n, ok := strings.CutPrefix(id, "example-")
	if !ok || n == "" {
		return false
	}
	for _, c := range n {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func (s *headingIDs) Put(value []byte) { s.put(string(value)) }

// put marks id used; the set is made at the first heading.
func (s *headingIDs) put(id string) {
	if s.used == nil {
		s.used = map[string]bool{}
	}
	s.used[id] = true
}

// pageTransformer fits a parsed document into a page: its headings are
// shifted so the highest is an h2 (the page has the h1) and get ids from
// their text, and aligned table cells get a class instead of a style
// attribute.
type pageTransformer struct{}

func (pageTransformer) Transform(doc *ast.Document, reader text.Reader, pc parser.Context) {
	source := reader.Source()
	top := 7
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if h, ok := n.(*ast.Heading); ok && entering && h.Level < top {
			top = h.Level
		}
		return ast.WalkContinue, nil
	})
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			n.Level = min(n.Level-top+2, 6)
			var b strings.Builder
			plainText(&b, n, source)
			n.SetAttributeString("id", pc.IDs().Generate([]byte(b.String()), ast.KindHeading))
		case *east.TableCell:
			switch n.Alignment {
			case east.AlignLeft:
				n.SetAttributeString("class", []byte("align-left"))
			case east.AlignCenter:
				n.SetAttributeString("class", []byte("align-center"))
			case east.AlignRight:
				n.SetAttributeString("class", []byte("align-right"))
			}
		}
		return ast.WalkContinue, nil
	})
}

// safeRenderer renders the nodes whose default HTML would be unsafe or break
// the CSP: raw HTML (as text), links and images (allow-listed targets),
// headings (with an anchor), fenced code (highlighted with classes) and task
// list check boxes (labelled).
type safeRenderer struct{}

func (safeRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
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
		var text []byte
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			text = append(text, seg.Value(source)...)
		}
		if b.HasClosure() {
			text = append(text, b.ClosureLine.Value(source)...)
		}
		_, _ = w.Write(util.EscapeHTML(bytes.TrimRight(text, "\n")))
		_, _ = w.WriteString("</p>\n")
		return ast.WalkContinue, nil
	})
	reg.Register(ast.KindLink, func(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
		n := node.(*ast.Link)
		dest, ok := linkTarget(n.Destination)
		if !ok {
			return ast.WalkContinue, nil // the text stays, the link goes
		}
		if entering {
			_, _ = w.WriteString(`<a href="`)
			_, _ = w.Write(util.EscapeHTML(util.URLEscape(dest, false)))
			_ = w.WriteByte('"')
			if n.Title != nil {
				_, _ = w.WriteString(` title="`)
				html.DefaultWriter.Write(w, n.Title)
				_ = w.WriteByte('"')
			}
			_ = w.WriteByte('>')
		} else {
			_, _ = w.WriteString("</a>")
		}
		return ast.WalkContinue, nil
	})
	reg.Register(ast.KindAutoLink, func(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		n := node.(*ast.AutoLink)
		url, label := n.URL(source), n.Label(source)
		if n.AutoLinkType == ast.AutoLinkEmail && !bytes.HasPrefix(bytes.ToLower(url), []byte("mailto:")) {
			url = append([]byte("mailto:"), url...)
		}
		if !safeURL(url) {
			_, _ = w.Write(util.EscapeHTML(label))
			return ast.WalkContinue, nil
		}
		_, _ = w.WriteString(`<a href="`)
		_, _ = w.Write(util.EscapeHTML(util.URLEscape(url, false)))
		_, _ = w.WriteString(`">`)
		_, _ = w.Write(util.EscapeHTML(label))
		_, _ = w.WriteString("</a>")
		return ast.WalkContinue, nil
	})
	reg.Register(ast.KindImage, func(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
		n := node.(*ast.Image)
		dest, ok := linkTarget(n.Destination)
		if entering {
			if ok {
				_, _ = w.WriteString(`<a class="image-link" href="`)
				_, _ = w.Write(util.EscapeHTML(util.URLEscape(dest, false)))
				_, _ = w.WriteString(`">`)
			}
			_, _ = w.WriteString(`<span class="image-alt">`)
		} else {
			_, _ = w.WriteString(`</span>`)
			if ok {
				_, _ = w.WriteString(`</a>`)
			}
		}
		return ast.WalkContinue, nil
	})
	reg.Register(ast.KindHeading, func(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
		n := node.(*ast.Heading)
		id, _ := n.AttributeString("id")
		idb, _ := id.([]byte)
		// A heading holding a link cannot be wrapped in one: it gets a
		// separate anchor after its text instead.
		nested := hasLink(n)
		if entering {
			writeHeadingStart(w, n.Level, idb, nested)
		} else {
			writeHeadingEnd(w, n.Level, idb, nested)
		}
		return ast.WalkContinue, nil
	})
	reg.Register(ast.KindFencedCodeBlock, func(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		n := node.(*ast.FencedCodeBlock)
		var code []byte
		lines := n.Lines()
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			code = append(code, seg.Value(source)...)
		}
		writeFencedCode(w, string(n.Language(source)), string(code))
		return ast.WalkContinue, nil
	})
	reg.Register(east.KindTaskCheckBox, func(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		if node.(*east.TaskCheckBox).IsChecked {
			_, _ = w.WriteString(`<input type="checkbox" checked disabled aria-label="Done"> `)
		} else {
			_, _ = w.WriteString(`<input type="checkbox" disabled aria-label="Not done"> `)
		}
		return ast.WalkContinue, nil
	})
}

// htmlWriter is what the page's HTML is written to: goldmark's writer
// or markdownFast's buffer.
type htmlWriter interface {
	Write([]byte) (int, error)
	WriteString(string) (int, error)
	WriteByte(byte) error
}

// writeHeadingStart writes a heading's start tag with its id, and the
// anchor around its text unless it holds a link (nested).
func writeHeadingStart(w htmlWriter, level int, id []byte, nested bool) {
	_, _ = w.WriteString("<h")
	_ = w.WriteByte("0123456"[level])
	if id != nil {
		_, _ = w.WriteString(` id="`)
		_, _ = w.Write(util.EscapeHTML(id))
		_ = w.WriteByte('"')
	}
	_ = w.WriteByte('>')
	if id != nil && !nested {
		_, _ = w.WriteString(`<a class="anchor" href="#`)
		_, _ = w.Write(util.EscapeHTML(id))
		_, _ = w.WriteString(`">`)
	}
}

// writeHeadingEnd closes what writeHeadingStart opened; a heading holding
// a link gets its anchor after its text.
func writeHeadingEnd(w htmlWriter, level int, id []byte, nested bool) {
	if id != nil && !nested {
		_, _ = w.WriteString("</a>")
	} else if id != nil {
		_, _ = w.WriteString(` <a class="anchor-mark" href="#`)
		_, _ = w.Write(util.EscapeHTML(id))
		_, _ = w.WriteString(`" aria-label="Link to this section">#</a>`)
	}
	_, _ = w.WriteString("</h")
	_ = w.WriteByte("0123456"[level])
	_, _ = w.WriteString(">\n")
}

// writeFencedCode writes a fenced code block in the given language,
// highlighted.
func writeFencedCode(w htmlWriter, lang, code string) {
	// The block scrolls sideways when its lines are long, so it takes
	// keyboard focus.
	_, _ = w.WriteString(`<pre class="chroma" tabindex="0"><code`)
	if lang != "" {
		_, _ = w.WriteString(` class="language-`)
		_, _ = w.Write(util.EscapeHTML([]byte(lang)))
		_ = w.WriteByte('"')
	}
	_ = w.WriteByte('>')
	_, _ = w.WriteString(highlightCode(lang, code))
	_, _ = w.WriteString("</code></pre>\n")
}

// hasLink reports whether n holds a link of any kind.
func hasLink(n ast.Node) bool {
	found := false
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		switch c.Kind() {
		case ast.KindLink, ast.KindAutoLink, ast.KindImage:
			found = true
			return ast.WalkStop, nil
		}
		return ast.WalkContinue, nil
	})
	return found
}

// linkTarget decodes a link or image destination as CommonMark does
// (backslash escapes, numeric and named character references) and reports
// whether the decoded target may be rendered (safeURL), also once
// percent-decoded. It is the decoded target that must be written, escaped
// but not decoded again: checking the raw destination would let
// "&#106;avascript:" through, to be decoded into a live "javascript:" link.
func linkTarget(dest []byte) ([]byte, bool) {
	decoded := util.ResolveEntityNames(util.ResolveNumericReferences(util.UnescapePunctuations(dest)))
	if !safeURL(decoded) {
		return nil, false
	}
	if unescaped, err := url.PathUnescape(string(decoded)); err == nil && !safeURL([]byte(unescaped)) {
		return nil, false
	}
	return decoded, true
}

// safeURL reports whether a link target may be rendered: one without a
// scheme (relative or a fragment), or http, https or mailto. Tabs, newlines
// and leading control characters, which browsers ignore in a URL, are
// ignored here too.
func safeURL(dest []byte) bool {
	var clean []byte
	for _, c := range dest {
		if c == '\t' || c == '\n' || c == '\r' || (len(clean) == 0 && c <= ' ') {
			continue
		}
		clean = append(clean, c)
	}
	for i, c := range clean {
		switch {
		case c == ':':
			scheme := strings.ToLower(string(clean[:i]))
			return scheme == "http" || scheme == "https" || scheme == "mailto"
		case c == '/' || c == '?' || c == '#':
			return true // the colon, if any, is not a scheme's
		case i == 0 && !('a' <= c|0x20 && c|0x20 <= 'z'):
			return true
		case !('a' <= c|0x20 && c|0x20 <= 'z') && !('0' <= c && c <= '9') && c != '+' && c != '-' && c != '.':
			return true
		}
	}
	return true
}

// highlightCode returns code in the given chroma language as HTML spans
// with classes (no <pre>), or escaped plain text when the language is
// unknown.
//
// Chroma's lexers are regular expressions that give up on a match after
// 250ms; on a loaded machine that turns a token into an error, so the same
// source could highlight differently from build to build. Tokens with an
// error are therefore never shown: the code is tokenised again, and shown
// plain if the second try has errors too (as code that really does not lex
// always has). The output depends on the input alone, and code that lexes
// cleanly costs one pass.
func highlightCode(lang, code string) string {
	l := lexerFor(lang)
	switch {
	case l.lexer == nil:
		return string(util.EscapeHTML([]byte(code)))
	case l.json && isPlainJSON(code):
		return highlightJSONCode(code)
	}
	return chromaHighlight(l.lexer, code)
}

// codeLexer is the coalesced chroma lexer of a fenced block's language (nil
// for none), and whether it is chroma's JSON lexer.
type codeLexer struct {
	lexer chroma.Lexer
	json  bool
}

// lexerCache holds each language's codeLexer: looking a name up in
// chroma's registry can walk every lexer's file name patterns.
var lexerCache sync.Map // lang → codeLexer

// lexerFor returns the lexer for a fenced block's language.
func lexerFor(lang string) codeLexer {
	if lang == "" {
		return codeLexer{}
	}
	if l, ok := lexerCache.Load(lang); ok {
		return l.(codeLexer)
	}
	var l codeLexer
	if found := lexers.Get(lang); found != nil {
		l = codeLexer{lexer: chroma.Coalesce(found), json: found == lexers.Get("json")}
	}
	lexerCache.Store(lang, l)
	return l
}

// chromaHighlight writes code as chroma's lexer tokenises it.
func chromaHighlight(lexer chroma.Lexer, code string) string {
	tokens := func() []chroma.Token {
		it, err := lexer.Tokenise(nil, code)
		if err != nil {
			return nil
		}
		toks := it.Tokens()
		for _, t := range toks {
			if t.Type == chroma.Error {
				return nil
			}
		}
		return toks
	}
	toks := tokens()
	if toks == nil {
		if toks = tokens(); toks == nil {
			return string(util.EscapeHTML([]byte(code)))
		}
	}
	// Each token as a span with chroma's class for its type, which is what
	// chroma's HTML formatter writes with classes, at a fraction of its cost.
	var out strings.Builder
	out.Grow(len(code) * 3)
	for _, t := range toks {
		cls := tokenClass(t.Type)
		if cls != "" {
			out.WriteString(`<span class="`)
			out.WriteString(cls)
			out.WriteString(`">`)
		}
		out.Write(util.EscapeHTML([]byte(t.Value)))
		if cls != "" {
			out.WriteString("</span>")
		}
	}
	return out.String()
}

// tokenClass returns chroma's CSS class for a token type, taken from the
// nearest ancestor type that has one.
func tokenClass(t chroma.TokenType) string {
	for ; t != 0; t = t.Parent() {
		if cls, ok := chroma.StandardTypes[t]; ok {
			return cls
		}
	}
	return chroma.StandardTypes[t]
}

// renderMarkdown renders a description (or the site intro) to HTML.
func renderMarkdown(src string) ([]byte, error) {
	html, err := markdownHTML(src)
	return []byte(html), err
}

// markdownOut is a rendering's buffered writer and its buffer, reused.
type markdownOut struct {
	buf bytes.Buffer
	w   *bufio.Writer
}

var markdownOuts = sync.Pool{New: func() any {
	m := new(markdownOut)
	m.w = bufio.NewWriter(&m.buf)
	return m
}}

// markdownHTML renders a description to HTML, in buffers reused from one
// page to the next: by markdownFast when the description lies in its
// subset, else by goldmark.
func markdownHTML(src string) (template.HTML, error) {
	m := markdownOuts.Get().(*markdownOut)
	defer markdownOuts.Put(m)
	m.buf.Reset()
	if markdownFast(src, &m.buf) {
		return template.HTML(m.buf.String()), nil
	}
	return goldmarkHTML(m, src)
}

// goldmarkHTML renders a description to HTML with goldmark, in m's
// buffers.
func goldmarkHTML(m *markdownOut, src string) (template.HTML, error) {
	source := []byte(src)
	ctx := parser.NewContext(parser.WithIDs(newHeadingIDs()))
	doc := markdown.Parser().Parse(text.NewReader(source), parser.WithContext(ctx))
	m.buf.Reset()
	m.w.Reset(&m.buf)
	if err := markdown.Renderer().Render(m.w, source, doc); err != nil {
		return "", err
	}
	if err := m.w.Flush(); err != nil {
		return "", err
	}
	return template.HTML(m.buf.String()), nil
}
