package build_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/skillcat/skillcat/build"
)

// listed returns the ids a valid content lists, failing on violations.
func listed(t *testing.T, fsys fstest.MapFS) []string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "public")
	mustBuild(t, config(fsys, out))
	var ids []string
	for _, e := range parseIndex(t, out, ".well-known/skills.json").Skills {
		ids = append(ids, e.ID)
	}
	return ids
}

// validateLines validates fsys and returns its violations as lines.
func validateLines(t *testing.T, fsys fstest.MapFS) []string {
	t.Helper()
	_, err := build.Validate(context.Background(), config(fsys, ""))
	if err == nil {
		return nil
	}
	return lines(violations(t, err))
}

func assertLines(t *testing.T, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("got violations:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func TestSources(t *testing.T) {
	valid := func(id string) *fstest.MapFile { return &fstest.MapFile{Data: jsonSource(descriptor(id))} }
	broken := &fstest.MapFile{Data: []byte("not json")}

	t.Run("Skipped", func(t *testing.T) {
		fsys := fstest.MapFS{
			"a.json":                  valid("a"),
			"sub/b.md":                {Data: mdSource(descriptor("b"))},
			"_drafts/c.json":          broken,
			"_drafts/deep/d.json":     broken,
			".git/objects/e.json":     broken,
			"sub/.cache/f.json":       broken,
			"sub/_partial/g.md":       broken,
			"_h.json":                 broken,
			".i.json":                 broken,
			"sub/_j.md":               broken,
			"README.txt":              {Data: []byte("not a source")},
			"sub/notes.yaml":          {Data: []byte("not: a source")},
			"sub/schema.json.bak":     broken,
			"_index.md":               {Data: []byte("---\ntitle: T\n---\n")},
			"sub/_index.md":           broken,
			"deep/er/still/k.json":    valid("k"),
			"deep/_er/still/l.json":   broken,
			"deep/er/.still/m.json":   broken,
			"deep/er/still/_n/o.json": broken,
		}
		if got, want := listed(t, fsys), []string{"a", "b", "k"}; !slices.Equal(got, want) {
			t.Errorf("listed %q, want %q", got, want)
		}
	})

	t.Run("SizeLimit", func(t *testing.T) {
		src := jsonSource(descriptor("big"))
		pad := build.MaxSourceSize - len(src)
		fsys := fstest.MapFS{
			"at-limit.json":   {Data: append(src, strings.Repeat(" ", pad)...)},
			"over-limit.json": {Data: append(jsonSource(descriptor("big")), strings.Repeat(" ", pad+1)...)},
		}
		assertLines(t, validateLines(t, fsys), []string{
			"content/over-limit.json:1:1: (file): file is 1048577 bytes, over the 1048576-byte limit for a skill source",
		})
	})

	t.Run("SymlinkInside", func(t *testing.T) {
		fsys := fstest.MapFS{
			"_shared/geo.json":          valid("geo"),
			"_shared/dir/x.md":          {Data: mdSource(descriptor("x"))},
			"geo.json":                  symlink("_shared/geo.json"),
			"linked":                    symlink("_shared/dir"),
			"chain.json":                symlink("hop.json"),
			"hop.json":                  symlink("./_shared/../_shared/chain-target.json"),
			"_shared/chain-target.json": valid("chain"),
			"notes.txt":                 symlink("nowhere"), // not a source: ignored
		}
		// hop.json is a source too, so two sources claim "chain".
		assertLines(t, validateLines(t, fsys), []string{
			`content/hop.json:11:9: id: id "chain" is already used by content/chain.json; ids must be unique`,
		})
		delete(fsys, "hop.json")
		fsys["chain.json"] = symlink("_shared/chain-target.json")
		if got, want := listed(t, fsys), []string{"chain", "geo", "x"}; !slices.Equal(got, want) {
			t.Errorf("listed %q, want %q", got, want)
		}
	})

	t.Run("SymlinkOutside", func(t *testing.T) {
		fsys := fstest.MapFS{
			"ok.json":         valid("ok"),
			"abs.json":        symlink("/etc/passwd"),
			"up.json":         symlink("../secret.json"),
			"sub/upup.json":   symlink("../../secret.json"),
			"sub/sneaky.json": symlink("../sub/../../x.json"),
			"updir":           symlink(".."),
			"via-updir.json":  symlink("updir/secret.json"),
			"sub/dirlink":     symlink("../.."),
			"notes.txt":       symlink("/etc/passwd"), // not a source, but outside: reported
		}
		assertLines(t, validateLines(t, fsys), []string{
			`content/abs.json:1:1: (file): symbolic link leads outside the content directory (it points to "/etc/passwd")`,
			`content/notes.txt:1:1: (file): symbolic link leads outside the content directory (it points to "/etc/passwd")`,
			`content/sub/dirlink:1:1: (file): symbolic link leads outside the content directory (it points to "../..")`,
			`content/sub/sneaky.json:1:1: (file): symbolic link leads outside the content directory (it points to "../sub/../../x.json")`,
			`content/sub/upup.json:1:1: (file): symbolic link leads outside the content directory (it points to "../../secret.json")`,
			`content/up.json:1:1: (file): symbolic link leads outside the content directory (it points to "../secret.json")`,
			`content/updir:1:1: (file): symbolic link leads outside the content directory (it points to "..")`,
			`content/via-updir.json:1:1: (file): symbolic link leads outside the content directory (it points to "..")`,
		})
	})

	t.Run("SymlinkLoop", func(t *testing.T) {
		fsys := fstest.MapFS{
			"ok.json":       valid("ok"),
			"loop1.json":    symlink("loop2.json"),
			"loop2.json":    symlink("loop1.json"),
			"self.json":     symlink("self.json"),
			"sub/up":        symlink(".."), // a folder loop: walked once
			"sub/again/top": symlink("../.."),
			"broken.json":   symlink("missing.json"),
			"broken-dir":    symlink("missing"), // not a source name: ignored
		}
		assertLines(t, validateLines(t, fsys), []string{
			`content/broken.json:1:1: (file): symbolic link is broken: "missing.json" does not exist`,
			`content/loop1.json:1:1: (file): too many levels of symbolic links`,
			`content/loop2.json:1:1: (file): too many levels of symbolic links`,
			`content/self.json:1:1: (file): too many levels of symbolic links`,
		})
	})

	t.Run("SymlinkThroughLinkedFolder", func(t *testing.T) {
		// On a real file system a link whose target passes through a link
		// to a folder outside must not be followed out.
		root := t.TempDir()
		content := filepath.Join(root, "content")
		os.MkdirAll(filepath.Join(content, "real"), 0o755)
		os.WriteFile(filepath.Join(root, "secret.json"), jsonSource(descriptor("secret")), 0o644)
		os.WriteFile(filepath.Join(content, "real", "a.json"), jsonSource(descriptor("a")), 0o644)
		for link, target := range map[string]string{
			"outside":     root,
			"leak.json":   "outside/secret.json",
			"alias":       "real",
			"inside.json": "alias/a.json",
		} {
			if err := os.Symlink(target, filepath.Join(content, link)); err != nil {
				t.Skipf("cannot make symbolic links: %v", err)
			}
		}
		cfg := config(os.DirFS(content), "")
		_, err := build.Validate(context.Background(), cfg)
		got := lines(violations(t, err))
		want := []string{
			`content/inside.json:11:9: id: id "a" is already used by content/alias/a.json; ids must be unique`,
			`content/leak.json:1:1: (file): symbolic link leads outside the content directory (it points to "` + root + `")`,
			`content/outside:1:1: (file): symbolic link leads outside the content directory (it points to "` + root + `")`,
		}
		assertLines(t, got, want)
	})

	t.Run("Order", func(t *testing.T) {
		// Violations come sorted by file, line and column, whatever the
		// order the files were parsed in.
		fsys := fstest.MapFS{}
		for _, name := range []string{"z.json", "a/b.json", "m.md", "a.json", "B.json"} {
			fsys[name] = &fstest.MapFile{Data: []byte("[]")}
		}
		fsys["m.md"] = &fstest.MapFile{Data: []byte("no front matter")}
		cfg := config(fsys, "")
		cfg.Workers = 3
		_, err := build.Validate(context.Background(), cfg)
		assertLines(t, lines(violations(t, err)), []string{
			"content/B.json:1:1: (file): must be a JSON object; got an array",
			"content/a.json:1:1: (file): must be a JSON object; got an array",
			"content/a/b.json:1:1: (file): must be a JSON object; got an array",
			`content/m.md:1:1: (file): a Markdown source must start with a "---" line opening its YAML front matter`,
			"content/z.json:1:1: (file): must be a JSON object; got an array",
		})
	})
}
