package store

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestRowColumns ties rowColumns, the one statement of the row, to the
// skills table the migrations create and to the one the rebuild cache
// keeps the index in: both hold exactly its columns, in its order.
func TestRowColumns(t *testing.T) {
	var want []string
	for _, c := range rowColumns {
		want = append(want, c.name)
	}
	ctx := context.Background()
	db, err := Open(ctx, ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.db.QueryContext(ctx, `SELECT name FROM pragma_table_info('skills') ORDER BY cid`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		got = append(got, n)
	}
	if err := closeRows(rows); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("the skills table has columns %q; rowColumns states %q", got, want)
	}

	c, err := OpenCache(ctx, filepath.Join(t.TempDir(), "cache.sqlite"), "v")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var cached []string
	rows, err = c.db.QueryContext(ctx, `SELECT name FROM pragma_table_info('skills') ORDER BY cid`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		cached = append(cached, n)
	}
	if err := closeRows(rows); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cached, want) {
		t.Errorf("the cache's skills table has columns %q; want %q", cached, want)
	}

	// Each column holds the field of its name: load a row whose fields all
	// differ, and read every column back by name.
	s := Row{ID: "a", Name: "A", Version: "1", CapabilityType: "api", Access: "public", Summary: "S",
		ProviderName: "P", Source: "a.json", Descriptor: []byte("{}"), Digest: "sha256:x"}
	if _, err := db.Load(ctx, []Row{s}); err != nil {
		t.Fatal(err)
	}
	v := reflect.ValueOf(s)
	for _, c := range rowColumns {
		var goName string
		for _, part := range strings.Split(c.name, "_") {
			goName += strings.ToUpper(part[:1]) + part[1:]
		}
		if goName == "Id" {
			goName = "ID"
		}
		var got []byte
		if err := db.db.QueryRowContext(ctx, `SELECT CAST(`+c.name+` AS BLOB) FROM skills`).Scan(&got); err != nil {
			t.Fatal(err)
		}
		f := v.FieldByName(goName)
		want := fmt.Sprint(f.Interface())
		if f.Kind() == reflect.Slice {
			want = string(f.Bytes())
		}
		if string(got) != want {
			t.Errorf("column %s holds %q; Row.%s is %q", c.name, got, goName, want)
		}
	}
}
