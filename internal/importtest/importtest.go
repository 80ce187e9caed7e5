// Package importtest is the golden test the importers (openapi, mcp, a2a)
// run over whole documents in their testdata. It is imported by tests only.
package importtest

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	skillcat "github.com/skillcat/skillcat"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// Importer is the Import function of an importer package.
type Importer func(file string, data []byte, opts skillcat.ImportOptions) (*skillcat.Imported, error)

// Golden imports each document testdata/NAME with imp and compares what it
// made (Render) with testdata/golden/BASE.golden, BASE being NAME without
// its extension; go test -update rewrites those files. Each document is a
// subtest, and a second import must give the same bytes.
func Golden(t *testing.T, imp Importer, names ...string) {
	t.Helper()
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			got := importAndRender(t, imp, name, data)
			if again := importAndRender(t, imp, name, data); !bytes.Equal(again, got) {
				t.Error("a second import gave other bytes")
			}
			check(t, strings.TrimSuffix(name, filepath.Ext(name))+".golden", got)
		})
	}
}

func importAndRender(t *testing.T, imp Importer, name string, data []byte) []byte {
	t.Helper()
	im, err := imp("testdata/"+name, data, skillcat.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return Render(t, im)
}

// TB is the part of testing.TB (and of rapid.T) that Render needs.
type TB interface {
	Helper()
	Fatal(args ...any)
	Errorf(format string, args ...any)
}

// Render writes what an import made: every skill as published, each of
// which must validate, then "--- warnings" and every warning, one a line.
func Render(t TB, im *skillcat.Imported) []byte {
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

// check compares got with testdata/golden/name, or rewrites it with
// -update.
func check(t *testing.T, name string, got []byte) {
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
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it); got:\n%s", path, got)
	}
}
