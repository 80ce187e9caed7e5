package build

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"unicode"

	"pgregory.net/rapid"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/synth"
)

// TestFirstTextNeedsNoPageTransformer checks that firstText, which parses
// without pageTransformer, finds the text the page's own parser does.
func TestFirstTextNeedsNoPageTransformer(t *testing.T) {
	docs := []string{
		"", "# Title\n\nFirst *para* with [a link][ref] and <b>html</b>.\n\n[ref]: https://example.com\n",
		"## Only a heading with `code` & [link](javascript:x)", "| a | b |\n|:--|--:|\n| 1 | 2 |\n\nAfter.",
		"```json\n{\"a\": 1}\n```\n\nText after code.", "<div>\nraw block\n</div>\n\npara", "- [x] done\n- [ ] not\n",
		"Line one  \nline two\\\nthree ~~struck~~ www.example.com &amp; &#35; \\*", "# A\n# A\n## inputs\n\n> quoted\n> text",
	}
	for i := 0; i < 60; i++ {
		_, data := synth.Source(i, 1)
		docs = append(docs, string(data))
	}
	for _, d := range docs {
		if got, want := firstText(d), firstTextOf(markdown.Parser(), d); got != want {
			t.Errorf("firstText(%q) = %q, want %q", d, got, want)
		}
	}
}

// markdownBlocks are pieces of Markdown whose order and spacing decide
// which block is a description's first paragraph, and what it says.
var markdownBlocks = []string{
	"# Heading *one*", "Setext\n===", "para one\nline *two* [link](http://x.example) `code` <b>x</b> &amp;",
	"- item\n- item two", "1. one\n\n2. two", "> quote\nlazy line", "```\ncode\n\nmore\n```", "```json\n{\"a\": 1}\n```",
	"    indented code\n\n    more", "<!-- comment\n\nstill -->", "<div>\nhtml\n</div>", "<pre>\n\npre\n</pre>",
	"| a | b |\n|---|---|\n| 1 | 2 |", "***", "para\n---", "[x]: https://example.com/ref", "see [x] and [x][] here",
	"- [ ] task\n- [x] done", "~~strike~~ www.example.com\\\nhard", "tail *open", "  \t ", "```\nunclosed fence",
}

// TestFirstTextOfPrefix checks that firstText, which parses a
// description's first paragraph on its own when it can, finds the text a
// parse of the whole description does.
func TestFirstTextOfPrefix(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 7).Draw(t, "blocks")
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteString(rapid.SampledFrom(markdownBlocks).Draw(t, "block"))
			b.WriteString(rapid.SampledFrom([]string{"\n", "\n\n", "\n   \n", "\r\n\r\n", "\n\n\n", "\n\t\n"}).Draw(t, "sep"))
		}
		d := b.String()
		if got, want := firstText(d), firstTextOf(textParser, d); got != want {
			t.Fatalf("firstText(%q) = %q, want %q", d, got, want)
		}
	})
	for i := 0; i < 200; i++ {
		_, data := synth.Source(i, 1)
		d := string(data)
		if _, body, ok := strings.Cut(d, "\n---\n"); ok && strings.HasPrefix(d, "---") {
			d = body
		}
		if got, want := firstText(d), firstTextOf(textParser, d); got != want {
			t.Fatalf("firstText(%q) = %q, want %q", d, got, want)
		}
	}
}

// TestCollapseSpace holds collapseSpace to the fields of its text joined
// by single spaces, on generated text of white space of every kind,
// letters and invalid UTF-8.
func TestCollapseSpace(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		parts := rapid.SliceOf(rapid.SampledFrom([]string{" ", "\t", "\n", "\r", "\u00a0", "\u2028", "\u3000", "\x85", "\u0085", "a", "é", "字", "\xff", "\xe2\x80", "x y"})).Draw(t, "parts")
		s := strings.Join(parts, "")
		if got, want := collapseSpace(s), strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " "); got != want {
			t.Fatalf("collapseSpace(%q) = %q; want %q", s, got, want)
		}
	})
}

// plainPieces are pieces of text whose every mix plainParagraph must read
// as the parser does, or leave to it.
var plainPieces = []string{
	"word", "Word", "é", "字", "42", "1.", "2)", "1990s", " ", "  ", "\t", "\n", "\n\n", "\n    ", "\n   \t", "\u00a0",
	"*", "**", "***", "*em*", "**strong**", "**a*", "*a**", "`", "``", "`code`", "` sp `", "`a*b`", "`<x>`", "(", ")", ".", ",", ";", "!", "?", "'", "\"",
	"-", "--", "---", "+", "=", "===", "#", "##", ">", "<b>", "&amp;", "\\*", "[x]", "_u_", "~~s~~", "|", "www.", "WWW.x",
	"http://x.example", "a@b.example", ":", "\r\n", "\x00", "\xff", "$", "%", "/", "{", "}",
	// Unicode punctuation and white space next to stars, marks, controls
	// other than \n, and stars beside brackets.
	"“", "”", "’", "—", "…", "©", "€", "😀", "\u2003", "\u3000", "\u0085", "\u2028", "\u0301", "\u200b", "\ufeff",
	"\f", "\v", "\r", "\x7f", "  \n", "\t\n", "(*", "*)", "a*", "*a", "x`y", "9", "x`ya@b.examplex`y", "`a:b`",
}

// TestPlainParagraph holds plainParagraph to the parser's first text on
// generated paragraphs, and checks that it reads most of the synthetic
// catalog's descriptions itself.
func TestPlainParagraph(t *testing.T) {
	read, left := 0, 0
	rapid.Check(t, func(t *rapid.T) {
		parts := rapid.SliceOfN(rapid.SampledFrom(plainPieces), 1, 24).Draw(t, "parts")
		d := strings.Join(parts, "")
		if got, ok := plainParagraph(d); ok {
			read++
			if want := firstTextOf(textParser, d); got != want {
				t.Fatalf("plainParagraph(%q) = %q, want %q", d, got, want)
			}
		} else {
			left++
		}
	})
	t.Logf("generated: %d read, %d left to the parser", read, left)
	plain := 0
	for i := 0; i < 200; i++ {
		_, data := synth.Source(i, 1)
		d, err := sourceDescription(data)
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := plainParagraph(d); ok {
			plain++
			if want := firstTextOf(textParser, d); got != want {
				t.Fatalf("plainParagraph(%q) = %q, want %q", d, got, want)
			}
		}
	}
	if plain < 190 {
		t.Errorf("plainParagraph read %d of 200 synthetic descriptions", plain)
	}
}

// sourceDescription is the description of a source file (a synthetic
// one, or one of the sample's and the test data's).
func sourceDescription(data []byte) (string, error) {
	src := &skillcat.Source{Name: "x", Data: data}
	var root *skillcat.Node
	if bytes.HasPrefix(data, []byte("---")) {
		root, _ = markdownNode(src)
	} else {
		root, _ = skillcat.ParseSource(src)
	}
	if root == nil {
		return "", errors.New("no document")
	}
	d, vs := skillcat.DecodeDescriptor(src, root)
	if d == nil {
		return "", vs
	}
	return d.Description, nil
}

// FuzzPlainParagraph holds plainParagraph to the parser on any input:
// whatever text it gives must be the parser's (go test -fuzz
// FuzzPlainParagraph ./build/).
func FuzzPlainParagraph(f *testing.F) {
	for _, p := range plainPieces {
		f.Add("Some *em* and `code` " + p + " more\nline two\n\n## Next")
	}
	for i := 0; i < 10; i++ {
		_, data := synth.Source(i, 1)
		if d, err := sourceDescription(data); err == nil {
			f.Add(d)
		}
	}
	f.Fuzz(func(t *testing.T, d string) {
		if got, ok := plainParagraph(d); ok {
			if want := firstTextOf(textParser, d); got != want {
				t.Fatalf("plainParagraph(%q) = %q, want %q", d, got, want)
			}
		}
	})
}

// TestSummaryDropsInlineHTML holds the summary's reading of SPEC 6's
// "inline markup removed" for raw HTML: a tag is markup, so it goes, and
// the text between tags stays (the page shows the tags escaped as text).
func TestSummaryDropsInlineHTML(t *testing.T) {
	cases := map[string]string{
		"Hello <b>world</b> <img src=x onerror=alert(1)>": "Hello world",
		"A <!-- note --> comment and <br/> a break.":      "A comment and a break.",
		"Keep &lt;b&gt; escaped and `<b>` code.":          "Keep <b> escaped and <b> code.",
	}
	for in, want := range cases {
		if got := Summarize(in); got != want {
			t.Errorf("Summarize(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPlainParagraphLinkifyAcrossCode holds plainParagraph to the parser
// where Linkify reads an email or URL across a code span's backticks
// (TestPlainParagraph at 200,000 cases found the first).
func TestPlainParagraphLinkifyAcrossCode(t *testing.T) {
	for _, d := range []string{"x`ya@b.examplex`y", "see `a@b.example` here", "x`yhttp://a.example`y", "run `a:b` now"} {
		if got, ok := plainParagraph(d); ok {
			if want := firstTextOf(markdown.Parser(), d); got != want {
				t.Errorf("plainParagraph(%q) = %q, want %q", d, got, want)
			}
		}
	}
}
