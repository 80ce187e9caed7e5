package store_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/skillcat/skillcat/store"
)

// outputRecords is a record of n files, each field distinct.
func outputRecords(n int) map[string]store.CachedOutput {
	outs := map[string]store.CachedOutput{}
	for i := range n {
		p := fmt.Sprintf("skills/s%05d/index.html", i)
		outs[p] = store.CachedOutput{
			Key:  sha256.Sum256([]byte("key " + p)),
			Hash: sha256.Sum256([]byte("bytes " + p)),
			Size: int64(i * 7),
			Stat: store.FileID{Dev: 2049, Ino: uint64(1e6 + i), Ctime: 1764600000123456789 + int64(i), Size: int64(i * 7)},
		}
	}
	outs["index.html"] = store.CachedOutput{Hash: sha256.Sum256(nil)} // no key, identity unknown
	return outs
}

// TestOutputsRecord checks that the record of the output's files comes
// back as stored, in full and by difference, in one transaction and the
// next, and that a bucket that does not decode is ErrCorrupt.
func TestOutputsRecord(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cache.sqlite")
	round := func(write func(tx *store.CacheTx, since map[string]store.CachedOutput) error) map[string]store.CachedOutput {
		t.Helper()
		tx, done := beginCache(t, path)
		defer done()
		since, err := tx.Outputs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if write != nil {
			if err := write(tx, since); err != nil {
				t.Fatal(err)
			}
			if err := tx.Commit(ctx); err != nil {
				t.Fatal(err)
			}
		}
		return since
	}
	want := outputRecords(3000)
	round(func(tx *store.CacheTx, _ map[string]store.CachedOutput) error { return tx.SetOutputs(ctx, want, nil) })
	if got := round(nil); !maps.Equal(got, want) {
		t.Fatalf("got %d records back, want the %d stored", len(got), len(want))
	}
	// Decoded aside, while the transaction runs another statement; the
	// same answer each time it is asked.
	func() {
		tx, done := beginCache(t, path)
		defer done()
		prev := tx.OutputsAside(ctx)
		if _, err := tx.Meta(ctx, "time"); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if got, err := prev(); err != nil || !maps.Equal(got, want) {
				t.Fatalf("OutputsAside: got %d records (%v), want the %d stored", len(got), err, len(want))
			}
		}
	}()

	// By difference: one record changed, one dropped, one added.
	next := maps.Clone(want)
	r := next["skills/s00001/index.html"]
	r.Stat.Ctime++
	next["skills/s00001/index.html"] = r
	delete(next, "skills/s00002/index.html")
	next["skills/new/index.html"] = store.CachedOutput{Size: 1}
	round(func(tx *store.CacheTx, since map[string]store.CachedOutput) error {
		return tx.SetOutputs(ctx, next, since)
	})
	if got := round(nil); !maps.Equal(got, next) {
		t.Fatalf("after an update by difference: got %d records, want %d (changed, dropped and added ones as given)", len(got), len(next))
	}

	// From the changed paths alone (UpdateOutputs): the same record, and
	// only the changed paths' buckets looked at.
	after := maps.Clone(next)
	r = after["skills/s00003/index.html"]
	r.Key[0]++
	after["skills/s00003/index.html"] = r
	delete(after, "skills/s00004/index.html")
	after["skills/newer/index.html"] = store.CachedOutput{Size: 2}
	changed := []string{"skills/s00003/index.html", "skills/s00004/index.html", "skills/newer/index.html"}
	looked := 0
	round(func(tx *store.CacheTx, _ map[string]store.CachedOutput) error {
		return tx.UpdateOutputs(ctx, func(p string) (store.CachedOutput, bool) {
			looked++
			r, ok := after[p]
			return r, ok
		}, changed)
	})
	if got := round(nil); !maps.Equal(got, after) {
		t.Fatalf("after an update from the changed paths: got %d records, want %d", len(got), len(after))
	}
	if looked == 0 || looked > len(after)/50 {
		t.Fatalf("an update of 3 paths looked up %d of %d records", looked, len(after))
	}

	// A bucket cut short.
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE outputs SET data = substr(data, 1, length(data) - 3) WHERE bucket = (SELECT min(bucket) FROM outputs)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	tx, done := beginCache(t, path)
	defer done()
	if _, err := tx.Outputs(ctx); !errors.Is(err, store.ErrCorrupt) {
		t.Fatalf("a bucket cut short: got %v, want ErrCorrupt", err)
	}
	prev := tx.OutputsAside(ctx)
	for range 2 {
		if got, err := prev(); !errors.Is(err, store.ErrCorrupt) || got != nil {
			t.Fatalf("a bucket cut short, decoded aside: got %d records and %v, want none and ErrCorrupt", len(got), err)
		}
	}
}
