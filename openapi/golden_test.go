package openapi_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/openapi"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// golden renders what an import made: every skill as published, then
// every warning, one per line.
func golden(t *testing.T, im *skillcat.Imported) []byte {
	t.Helper()
	var b bytes.Buffer
	for _, d := range im.Skills {
		data, err := d.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if _, vs := skillcat.ParseDescriptor(d.ID+".json", data); vs.HasErrors() {
			t.Errorf("%s does not validate: %v", d.ID, vs)
		}
		b.Write(data)
	}
	b.WriteString("--- warnings\n")
	for _, w := range im.Warnings {
		b.WriteString(w.Error() + "\n")
	}
	return b.Bytes()
}

// checkGolden compares got with testdata/golden/name, or rewrites it
// with -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it)\ngot:\n%s", path, got)
	}
}

// TestGolden imports whole documents: a Petstore-like 3.0 spec, a 3.1
// spec with $ref cycles and oneOf, a spec with every security scheme, and
// the same Petstore as Swagger 2.0 and as JSON.
func TestGolden(t *testing.T) {
	for _, name := range []string{"petstore.yaml", "cycles31.yaml", "security.yaml", "swagger2.json"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			im, err := openapi.Import("testdata/"+name, data, skillcat.ImportOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got := golden(t, im)
			checkGolden(t, strings.TrimSuffix(name, filepath.Ext(name))+".golden", got)
			again, err := openapi.Import("testdata/"+name, data, skillcat.ImportOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(golden(t, again), got) {
				t.Error("a second import gave other bytes")
			}
		})
	}
}
