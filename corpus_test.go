package skillcat_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillcat/skillcat"
)

var update = flag.Bool("update", false, "rewrite testdata/descriptor/{bad,warn}/*.want from the current violations")

// corpusDir holds descriptors that must parse (good), that break exactly one
// rule (bad) and that only draw warnings (warn). Each bad and warn file has a
// .want file beside it holding the exact violations, one per line, as
// Violation.Error prints them with the file's base name.
const corpusDir = "testdata/descriptor"

func TestCorpus(t *testing.T) {
	t.Run("good", func(t *testing.T) {
		for _, file := range corpusFiles(t, "good", ".json") {
			t.Run(filepath.Base(file), func(t *testing.T) {
				d, vs := skillcat.ParseDescriptor(filepath.Base(file), readFile(t, file))
				if d == nil || len(vs) > 0 {
					t.Fatalf("got violations\n%v\nwant none", vs)
				}
			})
		}
	})
	for _, dir := range []string{"bad", "warn"} {
		t.Run(dir, func(t *testing.T) {
			files := corpusFiles(t, dir, ".json")
			for _, file := range files {
				t.Run(filepath.Base(file), func(t *testing.T) {
					d, vs := skillcat.ParseDescriptor(filepath.Base(file), readFile(t, file))
					lines := make([]string, len(vs))
					for i, v := range vs {
						lines[i] = v.Error()
					}
					got := strings.Join(lines, "\n") + "\n"
					wantFile := strings.TrimSuffix(file, ".json") + ".want"
					if *update {
						if err := os.WriteFile(wantFile, []byte(got), 0o644); err != nil {
							t.Fatal(err)
						}
					}
					want := string(readFile(t, wantFile))
					if got != want {
						t.Errorf("got violations\n%s\nwant (%s)\n%s", got, wantFile, want)
					}
					switch {
					case dir == "bad" && (d != nil || len(vs) != 1):
						t.Errorf("got %d violations and a descriptor %v, want exactly one error and no descriptor: each bad file breaks one rule", len(vs), d != nil)
					case dir == "warn" && (d == nil || vs.HasErrors() || len(vs) == 0):
						t.Errorf("got %v and a descriptor %v, want warnings only and a descriptor", vs, d != nil)
					}
				})
			}
			// Every .want belongs to a document.
			for _, w := range corpusFiles(t, dir, ".want") {
				if _, err := os.Stat(strings.TrimSuffix(w, ".want") + ".json"); err != nil {
					t.Errorf("%s: no document beside it", w)
				}
			}
		})
	}
}

func corpusFiles(t *testing.T, dir, ext string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(corpusDir, dir, "*"+ext))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no %s files in %s", ext, filepath.Join(corpusDir, dir))
	}
	return files
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatalf("%v (run go test -run TestCorpus -update to write the .want files)", err)
	}
	return data
}
