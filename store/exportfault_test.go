package store_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillcat/skillcat/store"
)

// TestFaultGuardExport cuts the cache file short while Export reads it
// through the mapping of its own connection (a rebuild that changed a few
// rows merges them into the rows the cache committed): the read's SIGBUS
// reaches OnFault as an error wrapping ErrCorrupt. Before, it was a fatal
// error, a crash dump that named nothing; it runs in a child process,
// which such a crash ends.
func TestFaultGuardExport(t *testing.T) {
	if os.Getenv("STORE_EXPORT_FAULT") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestFaultGuardExport$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "STORE_EXPORT_FAULT=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestFaultGuardExport") {
			t.Fatalf("the child: %v\n%.3000s", err, out)
		}
		return
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cache.sqlite")
	rows := manyPageRows()
	keptCache(t, path, rows)
	tx, _ := beginCache(t, path) // not ended: the fault leaves its connection locked
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
	if err := l.Remove(ctx, changed.Source); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Add(ctx, &changed); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Commit(); err != nil {
		t.Fatal(err)
	}
	if !kept.ExportsAside() {
		t.Fatal("the export does not merge the changed rows into the cache's")
	}
	faulted := make(chan error, 1)
	store.OnFault = func(err error) { faulted <- err; select {} } // as skillcat build does: never returns
	defer func() { store.OnFault = nil }()
	defer store.SetKeptCopied(func() {
		if err := os.Truncate(path, 4096); err != nil {
			faulted <- err
		}
	})()
	go func() {
		faulted <- kept.Export(ctx, filepath.Join(t.TempDir(), "catalog.sqlite"))
	}()
	select {
	case err := <-faulted:
		if !errors.Is(err, store.ErrCorrupt) {
			t.Fatalf("exporting from a cache cut short: got %v, want an error wrapping ErrCorrupt", err)
		}
		t.Log(err)
	case <-time.After(20 * time.Second):
		t.Fatal("no answer")
	}
}
