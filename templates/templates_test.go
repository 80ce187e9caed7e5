package templates_test

import (
	"io/fs"
	"slices"
	"testing"
	"testing/fstest"

	"github.com/skillcat/skillcat/templates"
)

func TestOverlay(t *testing.T) {
	top := fstest.MapFS{
		"home.html":        {Data: []byte("mine")},
		"assets/style.css": {Data: []byte("body{}")},
		"assets/extra.png": {Data: []byte("png")},
	}
	fsys := templates.Overlay(top, templates.FS())

	t.Run("TopWins", func(t *testing.T) {
		for name, want := range map[string]string{"home.html": "mine", "assets/style.css": "body{}"} {
			got, err := fs.ReadFile(fsys, name)
			if err != nil || string(got) != want {
				t.Errorf("%s: got %q, %v; want %q", name, got, err, want)
			}
		}
	})
	t.Run("BaseOtherwise", func(t *testing.T) {
		got, err := fs.ReadFile(fsys, "skill.html")
		want, _ := fs.ReadFile(templates.FS(), "skill.html")
		if err != nil || string(got) != string(want) {
			t.Errorf("skill.html: got %d bytes, %v; want the built-in %d bytes", len(got), err, len(want))
		}
	})
	t.Run("ReadDirUnion", func(t *testing.T) {
		entries, err := fs.ReadDir(fsys, "assets")
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		for _, want := range []string{"app.js", "extra.png", "style.css"} {
			if !slices.Contains(names, want) {
				t.Errorf("assets: got %v, want %s among them", names, want)
			}
		}
		if !slices.IsSorted(names) {
			t.Errorf("assets: got %v, want sorted", names)
		}
	})
	t.Run("Missing", func(t *testing.T) {
		if _, err := fsys.Open("nope.html"); err == nil {
			t.Error("nope.html: got a file, want an error")
		}
	})
}

// TestFiles checks the built-in templates and assets are all embedded.
func TestFiles(t *testing.T) {
	for _, name := range []string{"home.html", "skill.html", "type.html", "404.html", "partials.html", "assets/app.js", "assets/style.css", "assets/favicon.svg"} {
		if _, err := fs.Stat(templates.FS(), name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
