package skillcat_test

import (
	"strings"
	"testing"

	"github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/synth"
)

// FuzzDescriptorValid holds descriptorValid, the descriptor schema's check
// written in Go, to the library's check of the schema on any JSON document
// the fuzzer makes from the corpus and the synthetic descriptors: a
// document the fast path accepts and the schema refuses would be published
// unchecked.
func FuzzDescriptorValid(f *testing.F) {
	addCorpus(f)
	f.Add(build(baseDescriptor))
	for i := 0; i < 40; i++ {
		if name, data := synth.Source(i, 3); strings.HasSuffix(name, ".json") {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		root, err := skillcat.ParseJSON(data)
		if err != nil {
			return
		}
		v := root.Value()
		if fast, lib := skillcat.DescriptorValid(v), skillcat.DescriptorSchemaValid(v); fast != lib {
			t.Fatalf("descriptorValid says %v, the library %v, of %s", fast, lib, data)
		}
	})
}
