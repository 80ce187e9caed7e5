package skillcat

import (
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"pgregory.net/rapid"
)

// TestMarkdownText renders MarkdownText's line with goldmark and wants the
// text back as one paragraph of plain text: no element but the paragraph,
// every character as written.
func TestMarkdownText(t *testing.T) {
	for _, s := range []string{
		"Use <b> and *x*",
		"Use `<script>alert(1)</script>` here",
		"a_b_c __init__ ~~gone~~ [link](http://x) ![img](y)",
		"Fish &amp; chips &copy; \\*",
		"# not a heading",
		"- not a list",
		"+ not a list",
		"= not an underline",
		"1. not a list",
		"2026) not a list",
		"> not a quote",
		"<http://autolink.example>",
		"plain text, nothing to escape",
		"C# and C++ and a-b",
		"notes & decisions, snake_case, a < b > c",
		"_x_ and x_ and _y",
		"&#38; &amp",
		"mail <#x@y> or <a.b+c@d.example>, <-x@y.z>",
	} {
		got := MarkdownText(s)
		var html strings.Builder
		if err := goldmark.Convert([]byte(got), &html); err != nil {
			t.Fatal(err)
		}
		want := "<p>" + htmlEscape(s) + "</p>\n"
		if html.String() != want {
			t.Errorf("MarkdownText(%q) = %q renders %q, want %q", s, got, html.String(), want)
		}
	}
	if got := MarkdownText("plain words"); got != "plain words" {
		t.Errorf("plain text changed: %q", got)
	}
}

// htmlEscape escapes s as goldmark writes text.
func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}

// TestMarkdownTextLeavesPlain wants the texts that Markdown reads as they
// are written back unescaped.
func TestMarkdownTextLeavesPlain(t *testing.T) {
	for _, s := range []string{"notes & decisions", "snake_case_name", "a < b > c", "C# and C++", "2 + 2 = 4"} {
		if got := MarkdownText(s); got != s {
			t.Errorf("MarkdownText(%q) = %q, want it unchanged", s, got)
		}
	}
}

// TestMarkdownTextProperty renders MarkdownText of texts drawn from
// Markdown's punctuation and words and wants each back as the paragraph of
// its plain text.
func TestMarkdownTextProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		parts := rapid.SliceOfN(rapid.SampledFrom([]string{
			"a", "b1", " ", "_", "*", "**", "`", "``", "[", "]", "(", ")", "!", "<", ">", "&", "#", ";", "amp", "#38",
			"-", "+", "=", "1", ".", ")", "~", "~~", "\\", "/", "?", "http:", "x@y", "|", "'", "\"", "ü", "{", "}", ":",
		}), 1, 14).Draw(t, "parts")
		s := OneLine(strings.Join(parts, ""))
		if s == "" {
			return
		}
		got := MarkdownText(s)
		var html strings.Builder
		if err := goldmark.Convert([]byte(got), &html); err != nil {
			t.Fatal(err)
		}
		if want := "<p>" + htmlEscape(s) + "</p>\n"; html.String() != want {
			t.Fatalf("MarkdownText(%q) = %q renders %q, want %q", s, got, html.String(), want)
		}
	})
}
