package store

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	skillcat "github.com/skillcat/skillcat"
)

// TestCapabilityTypesCheck ties the CHECK constraint of the skills table to
// skillcat.CapabilityTypes: it lists exactly those types, in their order,
// and the index accepts every one of them and nothing else.
func TestCapabilityTypesCheck(t *testing.T) {
	data, err := migrationFS.ReadFile("migrations/0001_init.sql")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`CHECK \(capability_type IN \(([^)]*)\)\)`).FindSubmatch(data)
	if m == nil {
		t.Fatal("no CHECK constraint on capability_type in migrations/0001_init.sql")
	}
	var inSQL []string
	for _, v := range strings.Split(string(m[1]), ",") {
		inSQL = append(inSQL, strings.Trim(strings.TrimSpace(v), "'"))
	}
	if !slices.Equal(inSQL, capabilityTypes) {
		t.Errorf("CHECK lists %q; skillcat.CapabilityTypes is %q", inSQL, capabilityTypes)
	}

	ctx := context.Background()
	db, err := Open(ctx, ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, typ := range skillcat.CapabilityTypes {
		s := Row{ID: "s-" + string(typ), Name: "S", Version: "1.0.0", CapabilityType: string(typ), Access: "public",
			Source: string(typ) + ".json", Descriptor: []byte("{}"), Digest: "sha256:0"}
		if _, err := db.Load(ctx, []Row{s}); err != nil {
			t.Errorf("load a skill of type %q: %v", typ, err)
		}
	}
	bad := Row{ID: "bad", Name: "S", Version: "1.0.0", CapabilityType: "widget", Access: "public",
		Source: "bad.json", Descriptor: []byte("{}"), Digest: "sha256:0"}
	if _, err := db.Load(ctx, []Row{bad}); err == nil {
		t.Error(`the index accepted capability type "widget"`)
	}
	counts, err := db.CountByType(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, typ := range skillcat.CapabilityTypes {
		if counts[string(typ)] != 1 {
			t.Errorf("CountByType[%q] = %d; want 1", typ, counts[string(typ)])
		}
	}
}
