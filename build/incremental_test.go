package build_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/skillcat/skillcat/build"
	"github.com/skillcat/skillcat/internal/treetest"
	"github.com/skillcat/skillcat/synth"
	"pgregory.net/rapid"
)

// TestIncrementalEqualsCold checks the rebuild cache: after any sequence of
// edits (renames, new and removed skills, a skill turned private, a broken
// source, a touched file, new site settings, exports switched off, edits of the same size whose
// modification time is set back as touch -d and cp -p do, a build without
// the cache in between, an output restored from a copy), a build with the
// cache produces exactly the tree a cold build does, rewrites only files
// whose bytes changed, and a failed build leaves output and cache as they
// were. Files' identities are trusted at once (no racy window), so that the
// cache's fast path is what is tested.
func TestIncrementalEqualsCold(t *testing.T) {
	defer build.SetRacyWindow(0)()
	rapid.Check(t, func(rt *rapid.T) {
		dir := t.TempDir()
		content := filepath.Join(dir, "content")
		const n = 6
		if err := synth.Write(content, n, 7); err != nil {
			rt.Fatal(err)
		}
		cached := filepath.Join(dir, "cached")
		cacheFile := filepath.Join(dir, "cache.sqlite")
		cfg := func(out, cache string) build.Config {
			return build.Config{Content: os.DirFS(content), ContentLabel: content, ContentPath: content, Out: out, Cache: cache, Workers: 2}
		}
		if _, err := build.Build(context.Background(), cfg(cached, cacheFile)); err != nil {
			rt.Fatalf("first build: %v", err)
		}
		steps := rapid.IntRange(1, 3).Draw(rt, "steps")
		for s := 0; s < steps; s++ {
			before := snapshot(rt, cached)
			// The change feed continues the output's history; the cold
			// build continues a copy of it (as build --previous DIR does).
			previous := filepath.Join(dir, "previous")
			keepHistory := func() {
				os.RemoveAll(previous)
				if err := os.CopyFS(filepath.Join(previous, "changes"), os.DirFS(filepath.Join(cached, "changes"))); err != nil {
					rt.Fatal(err)
				}
			}
			keepHistory()
			saved := ""
			if rapid.IntRange(0, 5).Draw(rt, "restore output") == 0 {
				saved = filepath.Join(dir, "saved")
				os.RemoveAll(saved)
				copyDir(rt, cached, saved)
			}
			undo := edit(rt, content, n)
			between := rapid.IntRange(0, 5).Draw(rt, "no-cache build between") == 0 && undo == nil
			if between {
				if _, err := build.Build(context.Background(), cfg(cached, "")); err != nil {
					rt.Fatalf("build without the cache: %v", err)
				}
				keepHistory() // that build's feed is the history now
			}
			res, err := build.Build(context.Background(), cfg(cached, cacheFile))
			if saved != "" && err == nil {
				// Yesterday's output back, times and all; then build again.
				os.RemoveAll(cached)
				copyDir(rt, saved, cached)
				res, err = build.Build(context.Background(), cfg(cached, cacheFile))
			}
			if undo != nil {
				undo()
				var invalid *build.InvalidError
				if !errors.As(err, &invalid) {
					rt.Fatalf("build of broken content: got %v, want an InvalidError", err)
				}
				if after := snapshot(rt, cached); !maps.Equal(before, after) {
					rt.Fatalf("a failed build changed the output")
				}
				continue
			}
			if err != nil {
				rt.Fatalf("incremental build: %v", err)
			}
			cold := filepath.Join(dir, "cold")
			os.RemoveAll(cold)
			coldCfg := cfg(cold, "")
			coldCfg.Previous = os.DirFS(previous)
			if _, err := build.Build(context.Background(), coldCfg); err != nil {
				rt.Fatalf("cold build: %v", err)
			}
			got, want := snapshot(rt, cached), snapshot(rt, cold)
			if d := treetest.Diff(got, want); d != "" {
				rt.Fatalf("the output differs from a cold build's:\n%s", d)
			}
			changed := 0
			for p, h := range got {
				if before[p] != h && !strings.HasPrefix(h, "dir ") {
					changed++
				}
			}
			if saved != "" || between {
				continue // the output is not the cache's: every file is made again
			}
			if res.Files < changed || (changed == 0 && res.Files != 0) {
				rt.Fatalf("files written: got %d, want %d changed files written", res.Files, changed)
			}
		}
	})
}

// edit changes the content at random; when it leaves it invalid, it
// returns a function that restores it.
func edit(t *rapid.T, content string, n int) (undo func()) {
	name := filepath.Join(content, synth.Name(rapid.IntRange(0, n-1).Draw(t, "skill")))
	data, err := os.ReadFile(name)
	if errors.Is(err, os.ErrNotExist) {
		data = nil
	} else if err != nil {
		t.Fatal(err)
	}
	// File times have a granularity; make every edit visible to size or time.
	later := time.Now().Add(time.Duration(rapid.IntRange(1, 1000).Draw(t, "ms")) * time.Millisecond)
	write := func(b []byte) {
		if err := os.WriteFile(name, b, 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(name, later, later)
	}
	switch op := rapid.IntRange(0, 8).Draw(t, "op"); {
	case data == nil || op == 0: // a new (or restored) skill
		i := rapid.IntRange(0, n-1).Draw(t, "new")
		name = filepath.Join(content, "added", synth.Name(i))
		os.MkdirAll(filepath.Dir(name), 0o755)
		_, src := synth.Source(i, 99)
		src = addedIDRE.ReplaceAll(src, []byte("${1}added-"))
		write(src)
	case op == 1: // removed
		os.Remove(name)
	case op == 2: // renamed
		write(replaceName(data))
	case op == 3: // private
		write(bytes.Replace(bytes.Replace(data, []byte(`"public"`), []byte(`"private"`), 1), []byte("access: public"), []byte("access: private"), 1))
	case op == 4: // broken
		write(append([]byte("{"), data...))
		return func() { write(data) }
	case op == 5: // touched, same bytes
		os.Chtimes(name, later, later)
	case op == 6: // new site settings
		site := filepath.Join(content, "_index.md")
		exports := rapid.SampledFrom([]string{"", "exports:\n  agent_skills: false\n", "exports:\n  api_catalog: false\n  llms_txt: false\n"}).Draw(t, "exports")
		os.WriteFile(site, []byte("---\ntitle: \"Catalog "+rapid.StringMatching(`[a-z]{1,8}`).Draw(t, "title")+"\"\n"+exports+"---\nHello.\n"), 0o644)
	case op == 7 || op == 8: // same size, time set back (touch -d, cp -p): renamed, or private where it fits
		edited := sameSize(data, op == 8)
		info, err := os.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := os.OpenFile(name, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteAt(edited, 0)
		f.Close()
		os.Chtimes(name, info.ModTime(), info.ModTime())
	}
	return nil
}

// sameSize edits a source without changing its size: the skill made
// private where the access member allows it, its name's first letter's
// case swapped otherwise.
func sameSize(data []byte, private bool) []byte {
	if private {
		for _, r := range [][2]string{{`"access": "public"`, `"access":"private"`}, {`"access": "restricted"`, `"access":"private"    `},
			{"access: restricted", "access: private   "}} {
			if e := bytes.Replace(data, []byte(r[0]), []byte(r[1]), 1); !bytes.Equal(e, data) {
				return e
			}
		}
	}
	return sameSizeNameRE.ReplaceAllFunc(data, func(m []byte) []byte {
		m = bytes.Clone(m)
		m[len(m)-1] ^= 0x20
		return m
	})
}

var sameSizeNameRE = regexp.MustCompile(`("name": "|\nname: )([A-Za-z])`)

// copyDir copies a folder with its files' modification times, as an
// output restored from an artifact comes back.
func copyDir(t *rapid.T, src, dst string) {
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		data, err := os.ReadFile(p)
		if err == nil {
			err = os.WriteFile(to, data, 0o644)
		}
		if err == nil {
			err = os.Chtimes(to, info.ModTime(), info.ModTime())
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// replaceName changes a source's name member, in JSON or YAML.
func replaceName(data []byte) []byte {
	s := string(data)
	for _, key := range []string{`"name": "`, "\nname: "} {
		if i := strings.Index(s, key); i >= 0 {
			return []byte(s[:i+len(key)] + "Renamed " + s[i+len(key):])
		}
	}
	return data
}

// addedIDRE finds a source's id member, JSON or YAML, to give an added
// skill an id of its own.
var addedIDRE = regexp.MustCompile(`(?m)((?:^|")id"?: "?)`)

// TestPathCollision checks that skills "x" and "x.json", whose files would
// need one path (/skills/x.json is a descriptor and a page folder), are an
// error naming both sources rather than a failed write.
func TestPathCollision(t *testing.T) {
	dir := t.TempDir()
	content := filepath.Join(dir, "content")
	if err := synth.Write(content, 2, 3); err != nil {
		t.Fatal(err)
	}
	for i, id := range []string{"x", "x.json"} {
		name := filepath.Join(content, synth.Name(i))
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		data = regexp.MustCompile(`(?m)("id": "|^id: )[^"\n]+`).ReplaceAll(data, []byte("${1}"+id))
		data = bytes.ReplaceAll(data, []byte(`"private"`), []byte(`"public"`))
		data = bytes.ReplaceAll(data, []byte("access: private"), []byte("access: public"))
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := build.Build(context.Background(), build.Config{Content: os.DirFS(content), ContentLabel: content, ContentPath: content, Out: filepath.Join(dir, "public")})
	var invalid *build.InvalidError
	if !errors.As(err, &invalid) {
		t.Fatalf("got %v, want an InvalidError", err)
	}
	if len(invalid.Violations) != 1 || !strings.Contains(invalid.Violations[0].Reason, `id "x.json" cannot be published beside "x"`) {
		t.Fatalf("got %v, want one violation naming both ids", invalid.Violations)
	}
	if _, err := os.Stat(filepath.Join(dir, "public")); err == nil {
		t.Error("a failed build wrote the output")
	}
}
