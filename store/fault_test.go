package store_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/skillcat/skillcat/store"
)

// TestFaultGuard cuts the cache file short while a build reads it through
// its mapping: the read's SIGBUS, a fatal error (a crash dump) before,
// reaches OnFault as an error wrapping ErrCorrupt.
func TestFaultGuard(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cache.sqlite")
	rows := manyPageRows()
	keptCache(t, path, rows)
	c, err := store.OpenCache(ctx, path, "v")
	if err != nil {
		t.Fatal(err)
	}
	tx, err := c.Begin(ctx) // sealed: reads the seal, mapping the file
	if err != nil {
		t.Fatal(err)
	}
	faulted := make(chan error, 1)
	store.OnFault = func(err error) { faulted <- err; runtime.Goexit() }
	defer func() { store.OnFault = nil }()
	go func() {
		defer store.GuardFaults()()
		if err := os.Truncate(path, 4096); err != nil {
			faulted <- err
			return
		}
		faulted <- tx.Verify(ctx)
	}()
	select {
	case err := <-faulted:
		if !errors.Is(err, store.ErrCorrupt) {
			t.Fatalf("reading a cache cut short: got %v, want an error wrapping ErrCorrupt", err)
		}
		t.Log(err)
	case <-time.After(20 * time.Second):
		t.Fatal("no answer")
	}
	// The connection is left as it is: its locks are held (see OnFault).
}

// manyPageRows are 400 public rows whose summaries spread them over many
// of the cache's pages, so that a file cut short is met mid-read.
func manyPageRows() []store.Row {
	rows := make([]store.Row, 400)
	for i := range rows {
		rows[i] = keptRow(i, "public")
		rows[i].Summary = fmt.Sprintf("%0*d", 3000, i)
	}
	return rows
}
