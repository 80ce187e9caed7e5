package build_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/skillcat/skillcat/agentskills"
	"github.com/skillcat/skillcat/build"
	"github.com/skillcat/skillcat/internal/treetest"
	"github.com/skillcat/skillcat/synth"
)

// exportFiles are the exported documents that hold a part of every listed
// skill.
var exportFiles = []string{"llms-full.txt", "llms.txt", ".well-known/agent-skills/index.json", ".well-known/api-catalog"}

// readOut returns a file of the fixture's output.
func (f *cacheFixture) readOut(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(f.out, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// holds reports whether an exported file names the skill id, by its id
// or its Agent Skills name.
func (f *cacheFixture) holds(t *testing.T, file, id string) bool {
	data := f.readOut(t, file)
	return strings.Contains(data, id) || strings.Contains(data, agentskills.BaseName(id)+"/SKILL.md")
}

// holding returns the exported files that name the skill id, and fails
// unless llms-full.txt, llms.txt and the Agent Skills index are among them.
func (f *cacheFixture) holding(t *testing.T, id string) []string {
	t.Helper()
	var in []string
	for _, file := range exportFiles {
		if f.holds(t, file, id) {
			in = append(in, file)
		}
	}
	if len(in) < 3 {
		t.Fatalf("%s is only in %q of the exports", id, in)
	}
	return in
}

// skillID returns the id of synthetic skill i, whose source is JSON (i
// even).
func skillID(t *testing.T, f *cacheFixture, i int) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(f.content, synth.Name(i)))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := bytes.Cut(data, []byte(`"id": "`))
	if !ok {
		t.Fatalf("%s: no id", synth.Name(i))
	}
	id, _, _ := bytes.Cut(rest, []byte(`"`))
	return string(id)
}

// TestExportsRebuild changes a catalog one skill at a time and rebuilds
// with the cache, which makes the exports from the previous build's
// parts for the skills that did not change: a changed description must
// reach llms-full.txt and the Agent Skills index, a skill turned private
// or removed must leave every export, and each time the output must be a
// cold build's.
func TestExportsRebuild(t *testing.T) {
	t.Parallel()
	f := newCacheFixture(t, 24)
	f.build(t)

	t.Run("Description", func(t *testing.T) {
		build.EditDescription(t, filepath.Join(f.content, synth.Name(4)))
		f.build(t)
		for _, file := range []string{"llms-full.txt", ".well-known/agent-skills/index.json"} {
			if got := strings.Count(f.readOut(t, file), "Zanzibarish"); got == 0 {
				t.Errorf("%s: the changed description is missing", file)
			}
		}
		f.checkCold(t)
	})
	t.Run("Private", func(t *testing.T) {
		id := skillID(t, f, 6)
		in := f.holding(t, id)
		sameSizeEdit(t, filepath.Join(f.content, synth.Name(6)), true)
		f.build(t)
		for _, file := range in {
			if f.holds(t, file, id) {
				t.Errorf("%s: the private skill %s is there", file, id)
			}
		}
		f.checkCold(t)
	})
	t.Run("Removed", func(t *testing.T) {
		id := skillID(t, f, 8)
		in := f.holding(t, id)
		if err := os.Remove(filepath.Join(f.content, synth.Name(8))); err != nil {
			t.Fatal(err)
		}
		f.build(t)
		for _, file := range in {
			if f.holds(t, file, id) {
				t.Errorf("%s: the removed skill %s is there", file, id)
			}
		}
		f.checkCold(t)
	})
	t.Run("Templates", func(t *testing.T) {
		// A site of its own templates rebuilt with the cache: everything
		// it shapes is made again, and still equals a cold build of it.
		templates := fstest.MapFS{"assets/mine.css": {Data: []byte("body{}")}}
		cfg := f.config(f.out, f.cache)
		cfg.Templates = templates
		f.keepHistory(t)
		if _, err := build.Build(context.Background(), cfg); err != nil {
			t.Fatal(err)
		}
		if got := f.readOut(t, "assets/mine.css"); got != "body{}" {
			t.Fatalf("the template override: got %q", got)
		}
		cold := filepath.Join(t.TempDir(), "cold")
		coldCfg := f.config(cold, "")
		coldCfg.Templates = templates
		coldCfg.Previous = os.DirFS(f.previous)
		if _, err := build.Build(context.Background(), coldCfg); err != nil {
			t.Fatal(err)
		}
		if d := treetest.Diff(snapshot(t, f.out), snapshot(t, cold)); d != "" {
			t.Fatalf("the output differs from a cold build's:\n%s", d)
		}
	})
}

// TestCacheTamperedExportParts changes what the cache keeps of the
// documents that hold every skill (the layout of llms-full.txt, the api
// skills' endpoints, the search index's documents, the change feed's
// replayed state) in a way SQLite cannot see: their checksums must catch it on the next
// rebuild that uses them, and the build run cold.
func TestCacheTamperedExportParts(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"llms-full-layout", "api-endpoints", "search-layout", "feed-state"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			f := newCacheFixture(t, 12)
			f.build(t)
			db, err := sql.Open("sqlite", f.cache)
			if err != nil {
				t.Fatal(err)
			}
			res, err := db.Exec(`UPDATE parts SET data = replace(data, '1', '2') WHERE kind = ?`, kind)
			if err != nil {
				t.Fatal(err)
			}
			if n, _ := res.RowsAffected(); n == 0 {
				t.Fatalf("the cache holds no %s part", kind)
			}
			db.Close()
			// One skill changed: the exports are made again from the
			// parts of the others.
			sameSizeEdit(t, filepath.Join(f.content, synth.Name(2)), false)
			if res := f.build(t); !strings.Contains(res.Notice, "damaged") {
				t.Errorf("notice: got %q, want one saying the cache was damaged", res.Notice)
			}
			f.checkCold(t)
		})
	}
}

// TestSearchRebuildReadsPreviousIndex forges every skill's search tokens
// in the cache, checksums and all, then changes one skill: the rebuild
// must take the unchanged skills' postings from the previous search index
// (whose layout the cache keeps), not from those tokens, and so equal a
// cold build. A rebuild that merged the cached tokens would index the
// forged token.
func TestSearchRebuildReadsPreviousIndex(t *testing.T) {
	t.Parallel()
	f := newCacheFixture(t, 16)
	f.build(t)
	keepSearchTokens(t, f)
	db, err := sql.Open("sqlite", f.cache)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query(`SELECT key, data FROM parts WHERE kind = 'search-tokens'`)
	if err != nil {
		t.Fatal(err)
	}
	forged := map[string]string{}
	for rows.Next() {
		var key, data string
		if err := rows.Scan(&key, &data); err != nil {
			t.Fatal(err)
		}
		forged[key] = "3zzforged\n" + data
	}
	rows.Close()
	if len(forged) < 10 {
		t.Fatalf("the cache holds %d skills' search tokens, want the listed skills'", len(forged))
	}
	for key, data := range forged {
		h := sha256.New()
		for _, s := range []string{"search-tokens", key, data} {
			fmt.Fprintf(h, "%d:%s", len(s), s)
		}
		if _, err := db.Exec(`UPDATE parts SET data = ?, sum = ? WHERE kind = 'search-tokens' AND key = ?`, data, hex.EncodeToString(h.Sum(nil)), key); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	sameSizeEdit(t, filepath.Join(f.content, synth.Name(4)), false)
	if res := f.build(t); res.Notice != "" {
		t.Errorf("notice: got %q, want none", res.Notice)
	}
	f.checkCold(t)
}
