package store

import (
	"context"
	"testing"
)

// TestAsideStoresNoBytes holds an index that keeps its descriptors aside
// to store none of their bytes: an empty BLOB a row (the column is NOT
// NULL), whatever the rows carried.
func TestAsideStoresNoBytes(t *testing.T) {
	ctx := context.Background()
	db, err := OpenTemp(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.KeepDescriptorsAside(func(string) ([]byte, error) { return []byte("{}"), nil })
	rows := []Row{
		{ID: "a", Name: "A", Version: "1.0.0", CapabilityType: "api", Access: "public", Source: "a.json", Descriptor: []byte(`{"id":"a"}`), Digest: "sha256:0"},
		{ID: "b", Name: "B", Version: "1.0.0", CapabilityType: "task", Access: "private", Source: "b.json", Descriptor: []byte(`{"id":"b"}`), Digest: "sha256:1"},
	}
	if _, err := db.Load(ctx, rows); err != nil {
		t.Fatal(err)
	}
	var n, bytes int
	if err := db.q.QueryRowContext(ctx, `SELECT count(*), sum(length(descriptor)) FROM skills WHERE descriptor IS NOT NULL`).Scan(&n, &bytes); err != nil {
		t.Fatal(err)
	}
	if n != 2 || bytes != 0 {
		t.Errorf("got %d rows holding %d descriptor bytes, want 2 rows holding 0", n, bytes)
	}
}
