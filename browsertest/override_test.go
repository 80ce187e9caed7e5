package browsertest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/skillcat/skillcat/build"
	"github.com/skillcat/skillcat/templates"
)

// TestTemplateOverride builds the sample catalog with a site's own
// templates directory (skillcat build --templates DIR): a file it ships
// replaces the built-in one of the same name, and every other file stays.
func TestTemplateOverride(t *testing.T) {
	const css = "/* the maintainer's own style */\nbody { color: rebeccapurple; }\n"
	site := fstest.MapFS{
		"assets/style.css": {Data: []byte(css)},
		"assets/logo.svg":  {Data: []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`)},
		"type.html":        {Data: []byte(`{{define "type.html"}}{{template "head" .}}<main id="main"><h1>Custom {{.Type}} page</h1>{{template "skill-list" .}}</main>{{template "foot" .}}{{end}}`)},
	}
	out := filepath.Join(t.TempDir(), "public")
	if _, err := build.Build(context.Background(), build.Config{Content: os.DirFS(sample), Out: out, Templates: site}); err != nil {
		t.Fatal(err)
	}
	read := func(name string) []byte {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	if got := read("assets/style.css"); string(got) != css {
		t.Errorf("assets/style.css: got %q, want the override %q", got, css)
	}
	if got := read("assets/logo.svg"); !bytes.Contains(got, []byte("<svg")) {
		t.Errorf("assets/logo.svg: a new asset is not copied: %q", got)
	}
	builtin, err := templates.FS().Open("assets/app.js")
	if err != nil {
		t.Fatal(err)
	}
	defer builtin.Close()
	var want bytes.Buffer
	want.ReadFrom(builtin)
	if got := read("assets/app.js"); !bytes.Equal(got, want.Bytes()) {
		t.Error("assets/app.js: not the built-in file, though the site did not override it")
	}
	if got := string(read("types/api/index.html")); !strings.Contains(got, "<h1>Custom api page</h1>") {
		t.Errorf("types/api/index.html does not come from the overriding type.html:\n%s", got)
	}
	if got := string(read("index.html")); !strings.Contains(got, `id="skills"`) {
		t.Error("index.html: the built-in home page is gone")
	}
	if _, err := os.Stat(filepath.Join(out, "assets", "highlight.css")); err != nil {
		t.Errorf("assets/highlight.css: %v", err)
	}
}
