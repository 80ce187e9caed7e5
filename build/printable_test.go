package build

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

// controlSource is a valid descriptor with a control character (ESC, BEL,
// NUL, DEL, a C1 control) in every text a page shows: JSON allows them
// escaped.
const controlSource = `{
  "protocol": {"version": "1.0.0"},
  "id": "ctl.one",
  "name": "Evil \u001b]0;title\u0007 name",
  "version": "1.0.0",
  "capability_type": "api",
  "description": "Summary \u001b[31mred\u0000.\n\nBody \u007f and \u009b, ` + "`code \\u001b`" + `.",
  "provider": {"name": "P\u001b[2J"},
  "endpoint": {"url": "https://e.example/x"},
  "inputs": {"type": "object", "properties": {"q\u001b": {"type": "string", "description": "d\u0007", "pattern": "^\u001b$", "format": "f\u0000"}}},
  "output": {"description": "out\u001b"},
  "auth": {"type": "oauth2", "token_url": "https://e.example/t", "scopes": {"read": "Read \u001b all"}},
  "access": "restricted",
  "examples": [{"title": "T\u001b[1m", "inputs": {"q\u001b": "\u001b"}}]
}`

// TestPagesHoldNoControl builds a skill whose texts hold control
// characters, in a site whose title, description and intro do too, and
// checks that no HTML page holds one (the HTML standard
// forbids them; the W3C checker reports "Forbidden code point U+001b"),
// while the published descriptor keeps them.
func TestPagesHoldNoControl(t *testing.T) {
	content := filepath.Join(t.TempDir(), "content")
	if err := os.MkdirAll(content, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(content, "ctl.json"), []byte(controlSource), 0o644); err != nil {
		t.Fatal(err)
	}
	site := "---\ntitle: \"Cat\\e[31m\\0x\"\ndescription: \"D\\e]0;t\\a\"\n---\nIntro \x1b[2J text.\n"
	if err := os.WriteFile(filepath.Join(content, "_index.md"), []byte(site), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "public")
	if _, err := Build(context.Background(), testConfig(content, out, "")); err != nil {
		t.Fatal(err)
	}
	pages := 0
	err := filepath.WalkDir(out, func(path string, e fs.DirEntry, err error) error {
		if err != nil || !strings.HasSuffix(path, ".html") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		pages++
		text := string(data)
		if i := strings.IndexFunc(text, func(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\t' && r != '\r' }); i >= 0 {
			t.Errorf("%s holds the control character %q: %q", path, text[i], text[max(0, i-40):min(len(text), i+20)])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if pages < 3 {
		t.Fatalf("found %d pages, want the home, type and skill pages", pages)
	}
	desc, err := os.ReadFile(filepath.Join(out, "skills", "ctl.one.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(desc), `\u001b]0;title\u0007`) {
		t.Errorf("the published descriptor lost its control characters:\n%s", desc)
	}
}
