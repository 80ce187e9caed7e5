package build

import (
	"context"
	"html"
	htmltemplate "html/template"
	"regexp"
	"testing"
	"testing/fstest"
	texttemplate "text/template"

	"encoding/json"
	"pgregory.net/rapid"
	"strings"

	"github.com/skillcat/skillcat/synth"
	"github.com/skillcat/skillcat/templates"
)

// TestHighlightJSONKeepsText checks that the markup adds only spans: the
// text shown is the JSON given, character for character, and nothing in it
// becomes markup.
func TestHighlightJSONKeepsText(t *testing.T) {
	tags := regexp.MustCompile(`<span class="(nt|s2|mi|mf|kc|p)">|</span>`)
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.StringOf(rapid.RuneFrom([]rune(`<>&"'\ab{}[],:0123456789.-etrufalsn é😀`))).Draw(t, "s")
		doc := `{"k<&>": "` + escapeJSON(s) + `", "n": -1.5e3, "i": 42, "b": [true, false, null]}`
		for _, punct := range []string{"p", ""} {
			got := html.UnescapeString(tags.ReplaceAllString(string(highlightJSONText(doc, punct)), ""))
			if got != doc {
				t.Fatalf("text changed (punctuation of class %q):\n got %q\nwant %q", punct, got, doc)
			}
		}
	})
	if got := string(highlightJSONText(`{"a": "b"}`, "p")); got != `<span class="p">{</span><span class="nt">&#34;a&#34;</span><span class="p">:</span> <span class="s2">&#34;b&#34;</span><span class="p">}</span>` {
		t.Errorf("got %s", got)
	}
	if got := string(highlightJSONText(`{"a": ["b"]}`, "")); got != `{<span class="nt">&#34;a&#34;</span>: [<span class="s2">&#34;b&#34;</span>]}` {
		t.Errorf("with punctuation left plain, got %s", got)
	}
}

// escapeJSON returns s as the inside of a JSON string.
func escapeJSON(s string) string {
	b, _ := json.Marshal(s)
	return strings.TrimSuffix(strings.TrimPrefix(string(b), `"`), `"`)
}

// genJSON draws a JSON text with white space of every kind between its
// tokens, strings with escapes, markup characters and non-ASCII text, and
// numbers in each form.
func genJSON(t *rapid.T, depth int) string {
	ws := func() string {
		return rapid.StringOf(rapid.SampledFrom([]rune(" \t\n"))).Draw(t, "ws")
	}
	str := func() string {
		parts := rapid.SliceOf(rapid.SampledFrom([]string{`a`, `é`, `😀`, `<`, `>`, `&`, `'`, `\"`, `\\`, `\/`, `\n`, `\u00e9`, `\ud83d\ude00`, `:`, `,`, ` `, `{`, `]`, `\u0000`})).Draw(t, "str")
		return `"` + strings.Join(parts, "") + `"`
	}
	kind := rapid.IntRange(0, 7).Draw(t, "kind")
	if depth > 3 && kind > 5 {
		kind = 0
	}
	switch kind {
	case 0:
		return str()
	case 1:
		return rapid.SampledFrom([]string{"0", "-0", "42", "-17", "1.5", "-0.25", "1e5", "1E+5", "2.5e-3", "-3.0E10"}).Draw(t, "num")
	case 2:
		return rapid.SampledFrom([]string{"true", "false", "null"}).Draw(t, "const")
	case 3:
		return "[" + ws() + "]"
	case 4:
		return "{" + ws() + "}"
	case 6:
		n := rapid.IntRange(1, 4).Draw(t, "items")
		var items []string
		for i := 0; i < n; i++ {
			items = append(items, ws()+genJSON(t, depth+1)+ws())
		}
		return "[" + strings.Join(items, ",") + "]"
	default:
		n := rapid.IntRange(1, 4).Draw(t, "members")
		var members []string
		for i := 0; i < n; i++ {
			members = append(members, ws()+str()+ws()+":"+ws()+genJSON(t, depth+1)+ws())
		}
		return "{" + strings.Join(members, ",") + "}"
	}
}

// TestJSONCodeIsChroma checks that a fenced JSON block is highlighted with
// the bytes chroma's JSON lexer gives it: on generated JSON, on the
// synthetic catalog's descriptions, and on runs of one token type longer
// than chroma joins.
func TestJSONCodeIsChroma(t *testing.T) {
	lexer := lexerFor("json")
	if lexer.lexer == nil || !lexer.json || !lexerFor("JSON").json || lexerFor("yaml").json {
		t.Fatal("chroma's JSON lexer is not recognised")
	}
	check := func(t interface {
		Helper()
		Fatalf(string, ...any)
	}, code string) {
		t.Helper()
		if !isPlainJSON(code) {
			t.Fatalf("not plain JSON: %q", code)
		}
		if got, want := highlightJSONCode(code), chromaHighlight(lexer.lexer, code); got != want {
			t.Fatalf("highlightJSONCode differs from chroma on %q\n got: %s\nwant: %s", code, got, want)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		check(t, rapid.StringOf(rapid.SampledFrom([]rune(" \n"))).Draw(t, "lead")+genJSON(t, 0)+"\n")
	})
	fence := regexp.MustCompile("(?s)```json\n(.*?)```")
	blocks := 0
	for i := 0; i < 40; i++ {
		_, data := synth.Source(i, 1)
		for _, m := range fence.FindAllStringSubmatch(string(data), -1) {
			check(t, m[1])
			blocks++
		}
	}
	if blocks == 0 {
		t.Fatal("no JSON blocks in the synthetic descriptions")
	}
	check(t, strings.Repeat("[", 5000)+strings.Repeat("]", 5000)+"\n")
	check(t, "{"+strings.Repeat(" ", 9000)+"}")
	for _, code := range []string{"{\r\n}", "{\"a\": 1} // c", "\"\xff\"", "", "{} {}"} {
		if isPlainJSON(code) {
			t.Errorf("%q is taken for plain JSON", code)
		}
	}
}

// TestHighlightIndentedIsIndent checks that highlightIndented marks up
// what json.Indent makes of a schema, as highlightJSONText does.
func TestHighlightIndentedIsIndent(t *testing.T) {
	check := func(t interface {
		Helper()
		Fatalf(string, ...any)
	}, raw string) {
		t.Helper()
		pretty, err := indentJSON([]byte(raw))
		if err != nil {
			t.Fatalf("%q: %v", raw, err)
		}
		for _, punct := range []string{"p", ""} {
			if got, want := highlightIndented([]byte(raw), punct), highlightJSON(pretty, punct); got != want {
				t.Fatalf("highlightIndented differs on %q (punctuation of class %q)\n got: %s\nwant: %s", raw, punct, got, want)
			}
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		doc := genJSON(t, 0)
		check(t, doc)
		var v any
		if err := json.Unmarshal([]byte(doc), &v); err == nil {
			compact, _ := json.Marshal(v)
			check(t, string(compact))
		}
	})
	for i := 0; i < 40; i++ {
		name, data := synth.Source(i, 1)
		row := parseSource(context.Background(), SourceFile{Path: name, Data: data}, name).row
		if row == nil {
			continue
		}
		d := decodePublished(t, row.Descriptor)
		check(t, string(d.Inputs))
		check(t, string(d.Output))
	}
}

// TestPunctClass checks when JSON's punctuation is marked: not with the
// built-in templates, whose highlight.css colours none, and whenever a
// site's style sheet or template names the class p.
func TestPunctClass(t *testing.T) {
	if got := punctClass(templates.FS()); got != "" {
		t.Errorf("built-in templates: punctuation of class %q, want none", got)
	}
	for css, want := range map[string]string{
		".chroma .p { color: #f8f8f2 }":            "p",
		"span.p{color:red}":                        "p",
		".chroma .pre, .p-1 { margin: 0.5em }":     "",
		"pre { padding: .5rem } .x.p,.y { }":       "p",
		"/* nothing */ .chroma .nt { color: red }": "",
		".chroma span { font-weight: bold }":       "p",
		"pre > code span:hover, .x { }":            "p",
		".side { grid-row: 1 / span 4; } pre { }":  "",
	} {
		fsys := templates.Overlay(fstest.MapFS{"assets/highlight.css": {Data: []byte(css)}}, templates.FS())
		if got := punctClass(fsys); got != want {
			t.Errorf("highlight.css %q: punctuation of class %q, want %q", css, got, want)
		}
	}
}

// TestAppendEscaped holds appendEscaped to text/template's HTMLEscapeString
// and, with plus, to html/template's escaping of text, which escapes '+'
// too.
func TestAppendEscaped(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.String().Draw(t, "s") + rapid.StringOf(rapid.RuneFrom([]rune("\x00\"'&<>+a é"))).Draw(t, "marks")
		prefix := rapid.StringOf(rapid.RuneFrom([]rune("ab<"))).Draw(t, "prefix")
		want := texttemplate.HTMLEscapeString(s)
		if got := string(appendEscaped([]byte(prefix), s, false)); got != prefix+want {
			t.Fatalf("appendEscaped(%q): got %q, want %q", s, got, prefix+want)
		}
		want = strings.ReplaceAll(want, "+", "&#43;")
		if got := string(appendEscaped(nil, s, true)); got != want {
			t.Fatalf("appendEscaped(%q, plus): got %q, want %q", s, got, want)
		}
		var b strings.Builder
		if err := htmltemplate.Must(htmltemplate.New("").Parse("{{.}}")).Execute(&b, s); err != nil {
			t.Fatal(err)
		}
		if got := string(appendEscaped(nil, s, true)); got != b.String() {
			t.Fatalf("appendEscaped(%q, plus): got %q, html/template wrote %q", s, got, b.String())
		}
	})
}

// BenchmarkAppendEscaped escapes a skill page's text: mostly plain words,
// with a few quotes and marks.
func BenchmarkAppendEscaped(b *testing.B) {
	s := strings.Repeat(`Use it to narrow "budget" to regional translations before the skill returns them; a & b < c. `, 8)
	b.SetBytes(int64(len(s)))
	out := make([]byte, 0, 2*len(s))
	for b.Loop() {
		out = appendEscaped(out[:0], s, true)
	}
}
