package build

import (
	"html"
	"regexp"
	"testing"

	"encoding/json"
	"pgregory.net/rapid"
	"strings"
)

// TestHighlightJSONKeepsText checks that the markup adds only spans: the
// text shown is the JSON given, character for character, and nothing in it
// becomes markup.
func TestHighlightJSONKeepsText(t *testing.T) {
	tags := regexp.MustCompile(`<span class="(nt|s2|mi|mf|kc|p)">|</span>`)
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.StringOf(rapid.RuneFrom([]rune(`<>&"'\ab{}[],:0123456789.-etrufalsn é😀`))).Draw(t, "s")
		doc := `{"k<&>": "` + escapeJSON(s) + `", "n": -1.5e3, "i": 42, "b": [true, false, null]}`
		got := html.UnescapeString(tags.ReplaceAllString(string(highlightJSONText(doc)), ""))
		if got != doc {
			t.Fatalf("text changed:\n got %q\nwant %q", got, doc)
		}
	})
	if got := string(highlightJSONText(`{"a": "b"}`)); got != `<span class="p">{</span><span class="nt">&#34;a&#34;</span><span class="p">:</span> <span class="s2">&#34;b&#34;</span><span class="p">}</span>` {
		t.Errorf("got %s", got)
	}
}

// escapeJSON returns s as the inside of a JSON string.
func escapeJSON(s string) string {
	b, _ := json.Marshal(s)
	return strings.TrimSuffix(strings.TrimPrefix(string(b), `"`), `"`)
}
