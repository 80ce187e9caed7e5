package store_test

import (
	"context"
	"testing"

	"github.com/skillcat/skillcat/store"
)

// beginCache opens the cache at path and begins its update, as a build
// does. done rolls back whatever was not committed and closes the cache,
// returning Close's error; closing seals the cache when the update
// committed or was verified.
func beginCache(t *testing.T, path string) (tx *store.CacheTx, done func() error) {
	t.Helper()
	ctx := context.Background()
	c, err := store.OpenCache(ctx, path, "v")
	if err != nil {
		t.Fatal(err)
	}
	tx, err = c.Begin(ctx)
	if err != nil {
		c.Close()
		t.Fatal(err)
	}
	return tx, func() error {
		tx.Rollback()
		return c.Close()
	}
}
