package store_test

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/skillcat/skillcat/store"
)

// exportBytes exports db to a new file in a fresh directory and returns the
// file's bytes.
func exportBytes(t *testing.T, db *store.DB) []byte {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "catalog.sqlite")
	if err := db.Export(context.Background(), path); err != nil {
		t.Fatalf("Export: %v", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("got %v in the export directory, want only catalog.sqlite", names)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// secret is a private skill whose every field is a marker to look for.
func secret() store.Row {
	s := newSkill("zz-secret-skill", "api", "private", "hidden/secret-source.json", "secret-tag")
	s.Name = "Hush Hush Name"
	s.Summary = "Secret summary text."
	s.ProviderName = "Secret Provider Ltd"
	s.Descriptor = []byte(`{"id":"zz-secret-skill","x-marker":"PRIVATE-DESCRIPTOR-MARKER"}`)
	s.Digest = digest(s.Descriptor)
	return s
}

func TestExport(t *testing.T) {
	ctx := context.Background()
	public := []store.Row{
		newSkill("b-tool", "plugin", "public", "tools/b.json", "one", "two"),
		newSkill("a-api", "api", "restricted", "apis/a.md"),
		newSkill("c-notes", "knowledge", "public", "c.json", "z", "a"),
	}

	t.Run("NoPrivateBytes", func(t *testing.T) {
		db := openMemory(t)
		load(t, db, append([]store.Row{secret()}, public...)...)
		file := exportBytes(t, db)
		s := secret()
		for _, marker := range []string{s.ID, s.Name, s.Summary, s.ProviderName, string(s.Descriptor),
			"PRIVATE-DESCRIPTOR-MARKER", s.Digest, s.Source, "secret-tag", "private"} {
			if bytes.Contains(file, []byte(marker)) {
				t.Errorf("got %q in the exported file, want it absent", marker)
			}
		}
		for _, p := range public {
			if bytes.Contains(file, []byte(p.Source)) {
				t.Errorf("got source path %q in the exported file, want no source paths", p.Source)
			}
			if !bytes.Contains(file, p.Descriptor) {
				t.Errorf("got no descriptor of %q in the exported file, want it", p.ID)
			}
		}
	})

	t.Run("Deterministic", func(t *testing.T) {
		db := openMemory(t)
		load(t, db, public...)
		first, second := exportBytes(t, db), exportBytes(t, db)
		if !bytes.Equal(first, second) {
			t.Fatalf("got two different files (%d and %d bytes), want byte-identical", len(first), len(second))
		}

		// The private skills and the load order leave no trace either.
		other := openMemory(t)
		reversed := slices.Clone(public)
		slices.Reverse(reversed)
		load(t, other, secret())
		load(t, other, reversed...)
		if third := exportBytes(t, other); !bytes.Equal(first, third) {
			t.Errorf("got a different file (%d bytes) with a private skill loaded, want the same %d bytes", len(third), len(first))
		}
	})

	t.Run("Contents", func(t *testing.T) {
		db := openMemory(t)
		load(t, db, append(public, secret())...)
		path := filepath.Join(t.TempDir(), "catalog.sqlite")
		if err := os.WriteFile(path, []byte("an old file to replace"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := db.Export(ctx, path); err != nil {
			t.Fatal(err)
		}
		out, err := sql.Open("sqlite", path+"?mode=ro")
		if err != nil {
			t.Fatal(err)
		}
		defer out.Close()

		var cols []string
		rows, err := out.Query("SELECT name FROM pragma_table_info('skills') ORDER BY cid")
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var c string
			if err := rows.Scan(&c); err != nil {
				t.Fatal(err)
			}
			cols = append(cols, c)
		}
		rows.Close()
		wantCols := []string{"id", "name", "version", "capability_type", "access", "summary", "provider_name", "descriptor", "digest"}
		if !slices.Equal(cols, wantCols) {
			t.Errorf("got columns %v, want %v", cols, wantCols)
		}

		type row struct{ ID, Type, DescType, Name, Digest string }
		var got []row
		rows, err = out.Query(`SELECT id, capability_type, typeof(descriptor), json_extract(descriptor, '$.id'), digest
			FROM skills ORDER BY rowid`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var r row
			if err := rows.Scan(&r.ID, &r.Type, &r.DescType, &r.Name, &r.Digest); err != nil {
				t.Fatal(err)
			}
			got = append(got, r)
		}
		rows.Close()
		want := []row{
			{"a-api", "api", "text", "a-api", public[1].Digest},
			{"b-tool", "plugin", "text", "b-tool", public[0].Digest},
			{"c-notes", "knowledge", "text", "c-notes", public[2].Digest},
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("got %v, want %v", got, want)
		}

		var tags []string
		rows, err = out.Query("SELECT skill_id || ':' || tag FROM skill_tags ORDER BY skill_id, position")
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var tag string
			if err := rows.Scan(&tag); err != nil {
				t.Fatal(err)
			}
			tags = append(tags, tag)
		}
		rows.Close()
		if want := []string{"b-tool:one", "b-tool:two", "c-notes:z", "c-notes:a"}; !slices.Equal(tags, want) {
			t.Errorf("got tags %v, want %v", tags, want)
		}

		var version int
		if err := out.QueryRow("PRAGMA user_version").Scan(&version); err != nil {
			t.Fatal(err)
		}
		if version != 1 {
			t.Errorf("got user_version %d, want 1", version)
		}

		var freelist int
		if err := out.QueryRow("PRAGMA freelist_count").Scan(&freelist); err != nil {
			t.Fatal(err)
		}
		if freelist != 0 {
			t.Errorf("got %d free pages, want 0", freelist)
		}
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
			t.Errorf("got %v, %v, want mode 0644", fi.Mode(), err)
		}
	})

	t.Run("PathWithURICharacters", func(t *testing.T) {
		db := openMemory(t)
		load(t, db, public...)
		root := t.TempDir()
		dir := filepath.Join(root, "a?b#c%20d")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := db.Export(ctx, filepath.Join(dir, "catalog.sqlite")); err != nil {
			t.Fatal(err)
		}
		for _, d := range []string{root, dir} {
			entries, err := os.ReadDir(d)
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != 1 {
				var names []string
				for _, e := range entries {
					names = append(names, e.Name())
				}
				t.Errorf("got %v in %s, want only %s", names, d, filepath.Base(dir)+" or catalog.sqlite")
			}
		}
		if got, want := exportBytes(t, db), mustRead(t, filepath.Join(dir, "catalog.sqlite")); !bytes.Equal(got, want) {
			t.Errorf("got a different file in a folder named with URI characters (%d bytes, want %d)", len(want), len(got))
		}
	})

	t.Run("Empty", func(t *testing.T) {
		db := openMemory(t)
		load(t, db, secret())
		if file := exportBytes(t, db); len(file) == 0 || bytes.Contains(file, []byte("zz-secret-skill")) {
			t.Errorf("got %d bytes, want an empty catalog database", len(file))
		}
	})

	t.Run("ErrNoDirectory", func(t *testing.T) {
		db := openMemory(t)
		if err := db.Export(ctx, filepath.Join(t.TempDir(), "missing", "catalog.sqlite")); err == nil {
			t.Error("got no error, want one")
		}
	})
}

func BenchmarkExport(b *testing.B) {
	ctx := context.Background()
	db := openMemory(b)
	load(b, db, benchSkills(10_000)...)
	path := filepath.Join(b.TempDir(), "catalog.sqlite")
	b.ReportAllocs()
	for b.Loop() {
		if err := db.Export(ctx, path); err != nil {
			b.Fatal(err)
		}
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
