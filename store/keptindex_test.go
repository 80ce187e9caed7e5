package store_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillcat/skillcat/store"
)

// keptRow is a row of n skills' catalog, source i; its tags are not in
// their names' order, so an export must follow their positions.
func keptRow(i int, access string) store.Row {
	d := []byte(fmt.Sprintf(`{"id":"s%03d","n":%d}`, i, i))
	sum := sha256.Sum256(d)
	return store.Row{ID: fmt.Sprintf("s%03d", i), Name: fmt.Sprintf("Skill %d", i), Version: "1.0.0",
		CapabilityType: []string{"plugin", "api", "knowledge", "task"}[i%4], Access: access, Summary: "S",
		ProviderName: "P", Tags: []string{fmt.Sprintf("t%d", i%3), "m", "a"}, Source: fmt.Sprintf("g/%03d.json", i),
		Descriptor: d, Digest: "sha256:" + hex.EncodeToString(sum[:])}
}

// keptCache commits rows into the index of a new cache at path, as a
// build does (a cache not sealed is verified before it is sealed).
func keptCache(t *testing.T, path string, rows []store.Row) {
	t.Helper()
	ctx := context.Background()
	tx, done := beginCache(t, path)
	if err := tx.Verify(ctx); err != nil { // a new cache: as a build does
		t.Fatal(err)
	}
	l, err := tx.Index().NewLoader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		if _, err := l.Add(ctx, &rows[i]); err != nil {
			t.Fatal(err)
		}
		if err := tx.PutSource(ctx, &store.CachedSource{Path: rows[i].Source, Stat: "x", Hash: "h", Row: rows[i], Warnings: []byte("null")}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := done(); err != nil {
		t.Fatal(err)
	}
}

// TestKeptIndexExport checks that catalog.sqlite exported from the index
// a cache keeps, after a rebuild changed, added, removed and made private
// a few of its rows (the committed rows merged with the changed ones), is
// byte for byte the file exported from a fresh index of the same rows,
// and holds no private row.
func TestKeptIndexExport(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cache.sqlite")
	var rows []store.Row
	for i := 0; i < 40; i++ {
		access := "public"
		if i%7 == 3 {
			access = "private"
		}
		rows = append(rows, keptRow(i, access))
	}
	keptCache(t, path, rows)

	tx, done := beginCache(t, path)
	defer done()
	if !tx.Trusted() {
		t.Error("a cache just committed and closed is not sealed")
	}
	if _, err := tx.Sources(ctx); err != nil {
		t.Fatal(err)
	}
	kept := tx.Index()
	l, err := kept.NewLoader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	changed := rows[5]
	changed.Summary = "changed"
	changed.Tags = []string{"z", "a"}
	private := rows[6]
	private.Access = "private"
	added := keptRow(40, "public")
	for _, r := range []store.Row{changed, private, added} {
		if err := l.Remove(ctx, r.Source); err != nil {
			t.Fatal(err)
		}
		if _, err := l.Add(ctx, &r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := tx.RemoveSource(ctx, rows[8].Source); err != nil {
		t.Fatal(err)
	}

	want := append([]store.Row{}, rows...)
	want[5], want[6] = changed, private
	want = append(want[:8], want[9:]...)
	want = append(want, added)
	fresh, err := store.Open(ctx, ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	if _, err := fresh.Load(ctx, want); err != nil {
		t.Fatal(err)
	}
	got, wantBytes := exportBytes(t, kept), exportBytes(t, fresh)
	if !bytes.Equal(got, wantBytes) {
		t.Fatalf("the export of the kept index (%d bytes) differs from a fresh index's (%d bytes)", len(got), len(wantBytes))
	}
	file := filepath.Join(t.TempDir(), "catalog.sqlite")
	if err := os.WriteFile(file, got, 0o644); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", file)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n, private6 int
	var summary string
	if err := db.QueryRow(`SELECT count(*), count(*) FILTER (WHERE id = 's006'), max(CASE WHEN id = 's005' THEN summary END) FROM skills`).Scan(&n, &private6, &summary); err != nil {
		t.Fatal(err)
	}
	listed := 0
	for _, r := range want {
		if r.Access != "private" {
			listed++
		}
	}
	if n != listed || private6 != 0 || summary != "changed" {
		t.Errorf("got %d skills (s006 %d times, s005's summary %q); want %d, s006 made private absent, %q", n, private6, summary, listed, "changed")
	}
}

// TestCacheSeal checks when a cache is trusted without verifying its rows:
// only when the build that committed it last sealed it and nothing wrote
// it since.
func TestCacheSeal(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cache.sqlite")
	keptCache(t, path, []store.Row{keptRow(1, "public"), keptRow(2, "private")})
	trusted := func() bool {
		t.Helper()
		tx, done := beginCache(t, path)
		defer done()
		ok := tx.Trusted()
		if err := tx.Verify(ctx); err != nil && !errors.Is(err, store.ErrCorrupt) {
			t.Fatal(err)
		}
		return ok
	}
	if !trusted() {
		t.Fatal("committed and sealed: not trusted")
	}
	if !trusted() {
		t.Fatal("a build that changed nothing broke the seal")
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE skills SET access = 'public'`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if trusted() {
		t.Fatal("written by another program: still trusted")
	}
	tx, done := beginCache(t, path)
	if err := tx.Verify(ctx); !errors.Is(err, store.ErrCorrupt) {
		t.Errorf("Verify of a tampered row: got %v, want ErrCorrupt", err)
	}
	done()
	if trusted() {
		t.Fatal("found damaged, then sealed again")
	}
}

// TestSetStat checks that a source whose identity alone changed (a fresh
// checkout, a restored cache) takes its new identity without its row
// being written again: the row still verifies, and reads back with it.
func TestSetStat(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cache.sqlite")
	row := keptRow(1, "public")
	keptCache(t, path, []store.Row{row})
	tx, done := beginCache(t, path)
	if err := tx.SetStat(ctx, row.Source, "y"); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	done()
	tx, done = beginCache(t, path)
	defer done()
	if err := tx.Verify(ctx); err != nil {
		t.Fatalf("Verify after SetStat: %v", err)
	}
	got, ok, err := tx.Source(ctx, row.Source)
	if err != nil || !ok || got.Stat != "y" || got.Hash != "h" || got.Row.Digest != row.Digest {
		t.Fatalf("Source after SetStat: %+v, %v, %v", got, ok, err)
	}
}

// TestVerifyOrphanTagsSameEachRun checks that Verify of a cache holding
// tags of several skills it lacks names the same one every time (the
// first by id), not the one a map's order gives.
func TestVerifyOrphanTagsSameEachRun(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cache.sqlite")
	keptCache(t, path, []store.Row{keptRow(1, "public")})
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"zz.gone", "mm.gone", "aa.gone", "qq.gone", "cc.gone"} {
		if _, err := db.Exec(`INSERT INTO skill_tags (skill_id, tag, position) VALUES (?, 't', 0)`, id); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	for i := 0; i < 20; i++ {
		tx, done := beginCache(t, path)
		err := tx.Verify(ctx)
		done()
		if !errors.Is(err, store.ErrCorrupt) || !strings.Contains(err.Error(), `of no skill "aa.gone"`) {
			t.Fatalf("run %d: Verify = %v, want ErrCorrupt naming aa.gone", i, err)
		}
	}
}
