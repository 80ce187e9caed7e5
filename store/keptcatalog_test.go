package store_test

import (
	"bytes"
	"context"
	"database/sql"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/skillcat/skillcat/internal/treetest"
	"github.com/skillcat/skillcat/store"
)

// TestKeptCatalog checks the catalog database a rebuild cache keeps beside
// it: over a series of rebuilds (descriptions changed, which update it in
// place; a skill made private, one added, one removed, which fill a new
// one; a build that fails after it updated the file; a hand edit of the
// file), every catalog.sqlite exported is byte for byte the one a fresh
// index of the same rows gives, and the file is updated in place exactly
// when it may be. Its folder's name holds characters of a URI.
func TestKeptCatalog(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "a?b#c%20d") // read as a name, never as a URI
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "cache.sqlite")
	catalog := path + "-catalog"
	rows := map[string]store.Row{}
	var initial []store.Row
	for i := 0; i < 40; i++ {
		access := "public"
		if i%7 == 3 {
			access = "private"
		}
		r := keptRow(i, access)
		rows[r.Source] = r
		initial = append(initial, r)
	}
	keptCache(t, path, initial)
	inode := func() uint64 {
		info, err := os.Stat(catalog)
		if err != nil {
			return 0
		}
		return treetest.Inode(info)
	}
	// rebuild changes the rows of changed (by source; a zero Row's source
	// in gone removes it), exports, checks the file against a fresh
	// index's and whether the catalog was updated in place, and commits
	// when commit says so.
	rebuild := func(name string, changed []store.Row, gone []string, inPlace, commit bool) {
		t.Helper()
		time.Sleep(20 * time.Millisecond) // a later tick than the seal
		tx, done := beginCache(t, path)
		defer done()
		if !tx.Trusted() {
			t.Fatalf("%s: the cache is not sealed", name)
		}
		if _, err := tx.Sources(ctx); err != nil {
			t.Fatal(err)
		}
		l, err := tx.Index().NewLoader(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]store.Row{}
		for k, v := range rows {
			want[k] = v
		}
		for _, r := range changed {
			if err := l.Remove(ctx, r.Source); err != nil {
				t.Fatal(err)
			}
			if _, err := l.Add(ctx, &r); err != nil {
				t.Fatal(err)
			}
			want[r.Source] = r
		}
		if _, err := l.Commit(); err != nil {
			t.Fatal(err)
		}
		for _, s := range gone {
			if err := tx.RemoveSource(ctx, s); err != nil {
				t.Fatal(err)
			}
			delete(want, s)
		}
		before := inode()
		got := exportBytes(t, tx.Index())
		if updated := before != 0 && inode() == before; updated != inPlace {
			t.Errorf("%s: updated the kept catalog in place: %v, want %v", name, updated, inPlace)
		}
		fresh, err := store.Open(ctx, ":memory:")
		if err != nil {
			t.Fatal(err)
		}
		defer fresh.Close()
		var list []store.Row
		for _, r := range want {
			list = append(list, r)
		}
		if _, err := fresh.Load(ctx, list); err != nil {
			t.Fatal(err)
		}
		if wantBytes := exportBytes(t, fresh); !bytes.Equal(got, wantBytes) {
			t.Fatalf("%s: the export (%d bytes) differs from a fresh index's (%d bytes)", name, len(got), len(wantBytes))
		}
		if !commit {
			return
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		if err := done(); err != nil {
			t.Fatal(err)
		}
		rows = want
	}
	edit := func(source, summary string, tags ...string) store.Row {
		r := rows[source]
		r.Summary = summary
		r.Descriptor = append(append([]byte{}, r.Descriptor...), ' ')
		r.Digest = digest(r.Descriptor)
		r.Tags = tags
		return r
	}
	rebuild("first", []store.Row{edit("g/005.json", "first", "b", "a")}, nil, false, true)
	rebuild("description", []store.Row{edit("g/005.json", "second")}, nil, true, true)
	rebuild("two descriptions", []store.Row{edit("g/005.json", "third", "x"), edit("g/007.json", "other", "m", "a")}, nil, true, true)
	rebuild("a private one's", []store.Row{edit("g/003.json", "still private")}, nil, true, true)
	private := rows["g/009.json"]
	private.Access = "private"
	rebuild("made private", []store.Row{private}, nil, false, true)
	rebuild("added", []store.Row{keptRow(40, "public")}, nil, false, true)
	rebuild("removed", nil, []string{"g/011.json"}, false, true)
	rebuild("failed", []store.Row{edit("g/005.json", "never committed")}, nil, true, false)
	rebuild("after a failed build", []store.Row{edit("g/007.json", "after")}, nil, false, true)

	// A hand edit of the kept catalog: the next build fills a new one,
	// without the edited row.
	time.Sleep(20 * time.Millisecond)
	db, err := sql.Open("sqlite", (&url.URL{Scheme: "file", Path: catalog}).String())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE skills SET summary = 'HAND EDIT' WHERE id = 's001'`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	rebuild("after a hand edit", []store.Row{edit("g/005.json", "fourth")}, nil, false, true)
	rebuild("again in place", []store.Row{edit("g/005.json", "fifth")}, nil, true, true)
}
