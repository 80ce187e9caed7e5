package skillcat_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	skillcat "github.com/skillcat/skillcat"
)

// TestCapabilityTypesSchemas ties the capability_type enums of the JSON
// Schemas and the TypeScript declaration to skillcat.CapabilityTypes, where
// the types are declared (store and build have tests of their own).
func TestCapabilityTypesSchemas(t *testing.T) {
	var want []string
	for _, c := range skillcat.CapabilityTypes {
		want = append(want, string(c))
	}
	found := 0
	for _, name := range []string{skillcat.DescriptorSchemaFile, "skill-index.schema.json"} {
		data, err := fs.ReadFile(skillcat.Schemas(), name)
		if err != nil {
			t.Fatal(err)
		}
		var doc any
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		var walk func(v any)
		walk = func(v any) {
			switch v := v.(type) {
			case map[string]any:
				if ct, ok := v["capability_type"].(map[string]any); ok {
					found++
					var got []string
					for _, e := range ct["enum"].([]any) {
						got = append(got, e.(string))
					}
					if !slices.Equal(got, want) {
						t.Errorf("%s: capability_type enum %q; skillcat.CapabilityTypes is %q", name, got, want)
					}
				}
				for _, x := range v {
					walk(x)
				}
			case []any:
				for _, x := range v {
					walk(x)
				}
			}
		}
		walk(doc)
	}
	if found < 2 {
		t.Errorf("found %d capability_type schemas; want one in each of the descriptor and index schemas", found)
	}

	data, err := os.ReadFile("skill-sharing-protocol.d.ts")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`export type CapabilityType = ([^;]*);`).FindSubmatch(data)
	if m == nil {
		t.Fatal("skill-sharing-protocol.d.ts declares no CapabilityType")
	}
	var got []string
	for _, v := range strings.Split(string(m[1]), "|") {
		got = append(got, strings.Trim(strings.TrimSpace(v), `"`))
	}
	if !slices.Equal(got, want) {
		t.Errorf("skill-sharing-protocol.d.ts: CapabilityType is %q; skillcat.CapabilityTypes is %q", got, want)
	}
}
