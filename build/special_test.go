package build_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/skillcat/skillcat/build"
)

// TestSourceNotRegular checks that a FIFO named as a source, or a link to
// one, is reported and never opened: opening it would block the build for
// ever.
func TestSourceNotRegular(t *testing.T) {
	content := t.TempDir()
	if err := mkfifo(filepath.Join(content, "_pipe")); err != nil {
		t.Skipf("cannot make a FIFO: %v", err)
	}
	if err := mkfifo(filepath.Join(content, "fifo.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("_pipe", filepath.Join(content, "link.json")); err != nil {
		t.Skipf("cannot make symbolic links: %v", err)
	}
	if err := os.WriteFile(filepath.Join(content, "ok.json"), jsonSource(descriptor("ok")), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := build.Validate(context.Background(), config(os.DirFS(content), ""))
		done <- err
	}()
	var err error
	select {
	case err = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("validate hangs on a FIFO")
	}
	assertLines(t, lines(violations(t, err)), []string{
		"content/fifo.json:1:1: (file): is not a regular file (a FIFO, socket or device, or a link to one); only regular files are read as sources",
		"content/link.json:1:1: (file): is not a regular file (a FIFO, socket or device, or a link to one); only regular files are read as sources",
	})
}

// TestBuiltSiteFolderWarned checks that a content subfolder holding a
// built site (an old output copied in) is skipped with a warning naming it.
func TestBuiltSiteFolderWarned(t *testing.T) {
	fsys := fstest.MapFS{
		"a.json":                          {Data: jsonSource(descriptor("a"))},
		"old/.well-known/skills.json":     {Data: []byte(`{}`)},
		"old/skills/b.json":               {Data: jsonSource(descriptor("b"))},
		"deep/er/.well-known/skills.json": {Data: []byte(`{}`)},
	}
	res, err := build.Validate(context.Background(), config(fsys, ""))
	if err != nil {
		t.Fatal(err)
	}
	const reason = "folder holds a site skillcat built (.well-known/skills.json), so none of its files is read as a source; move it out of the content folder, or rename it to start with _ to keep it"
	assertLines(t, lines(res.Warnings), []string{
		"content/deep/er: warning: (file): " + reason,
		"content/old: warning: (file): " + reason,
	})
	if res.Sources != 1 {
		t.Errorf("counted %d sources, want 1", res.Sources)
	}
}

// TestSiteLogo checks the logo of content/_index.md like a descriptor's
// members: one the pages could not show is reported at its position.
func TestSiteLogo(t *testing.T) {
	skill := &fstest.MapFile{Data: jsonSource(descriptor("site.skill"))}
	assets := fstest.MapFS{"assets/logo.svg": {Data: []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`)}}
	for _, tc := range []struct{ name, logo, want string }{
		{"Asset", "assets/logo.svg", ""},
		{"AssetDotSlash", "./assets/logo.svg", ""},
		{"RootAbsolute", "/assets/logo.svg", ""},
		{"DataImage", "data:image/svg+xml;base64,PHN2Zy8+", ""},
		{"Missing", "assets/missing.png", `content/_index.md:3:7: logo: "assets/missing.png" is not a file of the site: ship it with --templates DIR, as DIR/assets/missing.png`},
		{"External", "https://cdn.example.com/logo.png", `content/_index.md:3:7: logo: must be a path inside the site, such as assets/logo.svg; "https://cdn.example.com/logo.png" is on another site, which the pages' Content-Security-Policy would block`},
		{"SchemeRelative", "//cdn.example.com/logo.png", `content/_index.md:3:7: logo: must be a path inside the site, such as assets/logo.svg; "//cdn.example.com/logo.png" is on another site, which the pages' Content-Security-Policy would block`},
		{"JavaScript", "javascript:alert(1)", `content/_index.md:3:7: logo: must be a path inside the site, such as assets/logo.svg; "javascript:alert(1)" is a javascript: URL, which the pages' Content-Security-Policy would block`},
		{"DataHTML", "data:text/html,<script>alert(1)</script>", `content/_index.md:3:7: logo: a data: logo must be an image (data:image/...); got "data:text/html,<script>alert(1)</script>"`},
		{"Folder", "assets", `content/_index.md:3:7: logo: "assets" is not a file of the site: ship it with --templates DIR, as DIR/assets`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := fstest.MapFS{"_index.md": {Data: []byte("---\ntitle: My Skills\nlogo: " + tc.logo + "\n---\n")}, "skill.json": skill}
			cfg := config(fsys, "")
			cfg.Templates = assets
			var got []string
			if _, err := build.Validate(context.Background(), cfg); err != nil {
				got = lines(violations(t, err))
			}
			var want []string
			if tc.want != "" {
				want = []string{tc.want}
			}
			assertLines(t, got, want)
		})
	}
}

// TestHugeNumberInSources puts 1e1000001 in a JSON source, a Markdown
// source and the site file: each is reported at the number, and the build
// goes on to report them all.
func TestHugeNumberInSources(t *testing.T) {
	withHuge := func(id string) map[string]any {
		return descriptor(id, set("x-n", json.Number("1e1000001")),
			set("examples", []any{map[string]any{"title": "t", "inputs": map[string]any{"n": json.Number("1e1000001")}}}))
	}
	fsys := fstest.MapFS{
		"a.json":    {Data: jsonSource(withHuge("a"))},
		"b.md":      {Data: mdSource(withHuge("b"))},
		"_index.md": {Data: []byte("---\ntitle: T\nx-n: 1e1000001\n---\n")},
	}
	got := validateLines(t, fsys)
	const reason = "number 1e1000001 has an exponent beyond ±1000; no schema keyword needs one that large"
	if len(got) < 3 {
		t.Fatalf("got %q, want the number refused in each file", got)
	}
	for _, file := range []string{"content/_index.md:3:6: x-n: ", "content/a.json:", "content/b.md:"} {
		found := false
		for _, l := range got {
			found = found || strings.HasPrefix(l, file) && strings.HasSuffix(l, reason)
		}
		if !found {
			t.Errorf("%s…%s is missing from:\n%s", file, reason, strings.Join(got, "\n"))
		}
	}
}
