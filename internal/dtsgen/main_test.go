package main_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/skillcat/skillcat"
	dtsgen "github.com/skillcat/skillcat/internal/dtsgen"
)

// TestDeclarationsNotStale fails when the committed TypeScript declarations
// differ from what the schemas generate.
func TestDeclarationsNotStale(t *testing.T) {
	got, err := dtsgen.Generate(skillcat.Schemas())
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	committed, err := os.ReadFile(filepath.Join("..", "..", "skill-sharing-protocol.d.ts"))
	if err != nil {
		t.Fatalf("skill-sharing-protocol.d.ts is missing: run go generate ./...: %v", err)
	}
	if !bytes.Equal(got, committed) {
		t.Fatalf("skill-sharing-protocol.d.ts is stale: run go generate ./...\n%s", firstDifference(committed, got))
	}
}

// TestGenerateDeterministic checks that the output depends on the schemas
// only, not on map order.
func TestGenerateDeterministic(t *testing.T) {
	a, err := dtsgen.Generate(skillcat.Schemas())
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		b, err := dtsgen.Generate(skillcat.Schemas())
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Fatalf("two runs differ:\n%s", firstDifference(a, b))
		}
	}
}

// TestGenerateRefusesUnknown checks that a schema change the generator
// cannot express fails the generation instead of vanishing from the output.
func TestGenerateRefusesUnknown(t *testing.T) {
	for _, tc := range []struct {
		name, from, to, want string
	}{
		{"UnknownKeyword", `"summary": {"type": "string", "maxLength": 200}`, `"summary": {"type": "string", "maxLength": 200, "oneOf": []}`, `keyword "oneOf" is not supported`},
		{"UnnamedObject", `"summary": {"type": "string", "maxLength": 200}`, `"summary": {"type": "object", "properties": {"text": {"type": "string"}}}`, "needs a TypeScript name"},
		{"RuleShape", `"then": {"required": ["output"]}`, `"then": {"minProperties": 2}`, `keyword "minProperties" in a then`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := fstest.MapFS{}
			changed := false
			for _, name := range []string{skillcat.DescriptorSchemaFile, skillcat.IndexSchemaFile, skillcat.RequestSchemaFile, skillcat.ResponseSchemaFile} {
				data, err := fs.ReadFile(skillcat.Schemas(), name)
				if err != nil {
					t.Fatal(err)
				}
				s := strings.Replace(string(data), tc.from, tc.to, 1)
				changed = changed || s != string(data)
				fsys[name] = &fstest.MapFile{Data: []byte(s)}
			}
			if !changed {
				t.Fatalf("no schema holds %s", tc.from)
			}
			_, err := dtsgen.Generate(fsys)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// firstDifference shows the first line where want and got differ.
func firstDifference(want, got []byte) string {
	wl := strings.Split(string(want), "\n")
	gl := strings.Split(string(got), "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d:\n  committed: %s\n  generated: %s", i+1, w, g)
		}
	}
	return ""
}
