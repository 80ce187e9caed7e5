package build

import (
	"testing"

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
