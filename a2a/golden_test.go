package a2a_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/a2a"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestGolden imports whole documents in each form the package reads and
// compares every descriptor and warning with testdata/golden; each
// descriptor must validate, and a second import give the same bytes.
func TestGolden(t *testing.T) {
	for _, name := range []string{"current.json", "legacy.json"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			got := render(t, name, data)
			if again := render(t, name, data); !bytes.Equal(again, got) {
				t.Error("a second import gave other bytes")
			}
			path := filepath.Join("testdata", "golden", strings.TrimSuffix(name, ".json")+".golden")
			if *update {
				os.MkdirAll(filepath.Dir(path), 0o755)
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
		})
	}
}

func render(t *testing.T, name string, data []byte) []byte {
	t.Helper()
	im, err := a2a.Import("testdata/"+name, data, skillcat.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for _, d := range im.Skills {
		out, err := d.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if _, vs := skillcat.ParseDescriptor(d.ID+".json", out); vs.HasErrors() {
			t.Errorf("%s does not validate: %v", d.ID, vs)
		}
		b.Write(out)
	}
	b.WriteString("--- warnings\n")
	for _, w := range im.Warnings {
		b.WriteString(w.Error() + "\n")
	}
	return b.Bytes()
}
