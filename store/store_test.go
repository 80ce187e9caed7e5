package store_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/skillcat/skillcat/store"
)

// newSkill returns a valid row whose descriptor is a small JSON document
// naming it, and whose digest is that document's.
func newSkill(id, capabilityType, access, source string, tags ...string) store.Row {
	desc := fmt.Appendf(nil, `{"id":%q,"capability_type":%q,"access":%q}`, id, capabilityType, access)
	return store.Row{
		ID:             id,
		Name:           "Name of " + id,
		Version:        "1.0.0",
		CapabilityType: capabilityType,
		Access:         access,
		Summary:        "Summary of " + id + ".",
		ProviderName:   "Provider of " + id,
		Tags:           tags,
		Source:         source,
		Descriptor:     desc,
		Digest:         digest(desc),
	}
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// openMemory opens a fresh ":memory:" index closed when the test ends.
func openMemory(t testing.TB) *store.DB {
	t.Helper()
	return openDSN(t, ":memory:")
}

func openDSN(t testing.TB, dsn string) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), dsn)
	if err != nil {
		t.Fatalf("Open(%q): %v", dsn, err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return db
}

// load loads skills and fails the test on an error or a duplicate.
func load(t testing.TB, db *store.DB, skills ...store.Row) {
	t.Helper()
	dups, err := db.Load(context.Background(), skills)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if dups != nil {
		t.Fatalf("Load: got duplicates %v, want none", dups)
	}
}

func listedIDs(t testing.TB, db *store.DB, capabilityType string) []string {
	t.Helper()
	skills, err := db.Listed(context.Background(), capabilityType)
	if err != nil {
		t.Fatalf("Listed(%q): %v", capabilityType, err)
	}
	ids := make([]string, 0, len(skills))
	for _, s := range skills {
		ids = append(ids, s.ID)
	}
	return ids
}

// userVersion reads PRAGMA user_version of the database file at path.
func userVersion(t *testing.T, path string) int {
	t.Helper()
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var v int
	if err := raw.QueryRow("PRAGMA user_version").Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestOpen(t *testing.T) {
	ctx := context.Background()
	t.Run("Memory", func(t *testing.T) {
		db := openMemory(t)
		load(t, db, newSkill("a", "api", "public", "a.json"))
		// One connection: what one call wrote, the next one sees.
		if got, want := listedIDs(t, db, ""), []string{"a"}; !slices.Equal(got, want) {
			t.Errorf("got %v, want %v", got, want)
		}
	})
	t.Run("MemoryIsPerDB", func(t *testing.T) {
		a, b := openMemory(t), openMemory(t)
		load(t, a, newSkill("a", "api", "public", "a.json"))
		if got := listedIDs(t, b, ""); len(got) != 0 {
			t.Errorf("got %v in a second :memory: index, want nothing", got)
		}
	})
	t.Run("PathWithURICharacters", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "a?b#c%20d")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "index.db")
		openDSN(t, path)
		if _, err := os.Stat(path); err != nil {
			t.Errorf("got %v, want the file at %s", err, path)
		}
	})
	t.Run("ErrEmptyDSN", func(t *testing.T) {
		if _, err := store.Open(ctx, ""); err == nil {
			t.Error("got no error, want one")
		}
	})
	t.Run("ErrNotADatabase", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "junk.db")
		if err := os.WriteFile(path, []byte(strings.Repeat("not a database ", 100)), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := store.Open(ctx, path)
		if err == nil || !strings.Contains(err.Error(), "open store") {
			t.Errorf("got %v, want an open store error", err)
		}
	})
}

func TestConcurrentUse(t *testing.T) {
	// Run with -race: readers and a writer share the one connection.
	ctx := context.Background()
	db := openMemory(t)
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range 50 {
			id := fmt.Sprintf("s%03d", i)
			if _, err := db.Load(ctx, []store.Row{newSkill(id, "api", "public", id+".json", "t")}); err != nil {
				t.Errorf("Load: %v", err)
			}
		}
	})
	for range 4 {
		wg.Go(func() {
			for range 50 {
				skills, err := db.Listed(ctx, "api")
				if err != nil {
					t.Errorf("Listed: %v", err)
					return
				}
				for _, s := range skills {
					if len(s.Tags) != 1 {
						t.Errorf("got tags %v of %q, want [t]", s.Tags, s.ID)
					}
				}
				if _, err := db.CountByType(ctx); err != nil {
					t.Errorf("CountByType: %v", err)
				}
			}
		})
	}
	wg.Wait()
	if got := len(listedIDs(t, db, "")); got != 50 {
		t.Errorf("got %d skills, want 50", got)
	}
}

func TestMigrations(t *testing.T) {
	ctx := context.Background()
	t.Run("IdempotentOnReopen", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "index.db")
		db, err := store.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		load(t, db, newSkill("a", "api", "public", "a.json", "x", "y"))
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		first := userVersion(t, path)
		if first < 1 {
			t.Fatalf("got user_version %d after the first Open, want at least 1", first)
		}

		for range 2 {
			db, err = store.Open(ctx, path)
			if err != nil {
				t.Fatalf("reopen: %v", err)
			}
			if got, want := listedIDs(t, db, ""), []string{"a"}; !slices.Equal(got, want) {
				t.Errorf("got %v after reopen, want %v", got, want)
			}
			// The schema is still there: the UNIQUE constraint still holds.
			dups, err := db.Load(ctx, []store.Row{newSkill("a", "api", "public", "b.json")})
			if err != nil || len(dups) != 1 {
				t.Errorf("got %v, %v, want one duplicate", dups, err)
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			if got := userVersion(t, path); got != first {
				t.Errorf("got user_version %d, want %d", got, first)
			}
		}
	})
	t.Run("ErrNewerSchema", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "index.db")
		raw, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := raw.Exec("PRAGMA user_version = 999"); err != nil {
			t.Fatal(err)
		}
		raw.Close()
		_, err = store.Open(ctx, path)
		if err == nil || !strings.Contains(err.Error(), "newer") {
			t.Errorf("got %v, want a schema version error", err)
		}
	})
}
