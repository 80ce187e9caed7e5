package skillcat

import (
	"slices"
	"testing"
)

// TestRefProblemsEveryRun checks that a schema with several broken
// references and duplicate anchors gets every one of them reported, the
// same each run: the compiler alone reported one, picked in Go's map
// order (of 20 runs of such a descriptor, 8 different messages).
func TestRefProblemsEveryRun(t *testing.T) {
	doc := []byte(`{"protocol":{"version":"1.0.0"},"id":"h.one","name":"H","version":"1.0.0","capability_type":"api","description":"x",
"provider":{"name":"p"},"endpoint":{"url":"https://e.example/x"},"auth":{"type":"none"},"access":"public",
"inputs":{"type":"object","$defs":{"x":{"$anchor":"a","type":"string"},"y":{"$anchor":"a"},"z":{"$anchor":"a"},"k":{"enum":[{"$anchor":"a"}]}},
 "properties":{"p":{"$ref":"#a"},"r":{"$ref":"#nope"},"s":{"$ref":"#/$defs/missing"},"t":{"$ref":"#/$defs/x"},"u":{"items":[{"$ref":"#zz"}]}}},
"output":{"$defs":{"x":{"$anchor":"a"},"y":{"$dynamicAnchor":"a"}},"$ref":"#a"}}`)
	want := []string{ // sorted as violations are (by place, then reason), each at its member
		`inputs.$defs.y.$anchor: is not a valid JSON Schema: duplicate anchor "a" in "inputs" at "/$defs/x" and "/$defs/y"`,
		`inputs.$defs.z.$anchor: is not a valid JSON Schema: duplicate anchor "a" in "inputs" at "/$defs/x" and "/$defs/z"`,
		`inputs.properties.r.$ref: is not a valid JSON Schema: a "$ref" points to "#nope", an anchor that no subschema declares`,
		`inputs.properties.s.$ref: is not a valid JSON Schema: a "$ref" points to "#/$defs/missing", which does not exist in the schema`,
		`inputs.properties.u.items[0].$ref: is not a valid JSON Schema: a "$ref" points to "#zz", an anchor that no subschema declares`,
		`output.$defs.y.$dynamicAnchor: is not a valid JSON Schema: duplicate anchor "a" in "output" at "/$defs/x" and "/$defs/y"`,
	}
	for range 20 {
		_, vs := ParseDescriptor("h.json", doc)
		var got []string
		for _, v := range vs {
			if v.Severity == SeverityError {
				got = append(got, v.Field+": "+v.Reason)
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("got\n%q\nwant\n%q", got, want)
		}
	}
}

// TestRefProblemsLeftToTheCompiler checks what refProblems does not
// judge: a schema without such problems, an embedded resource ("$id"),
// an older draft.
func TestRefProblemsLeftToTheCompiler(t *testing.T) {
	for _, doc := range []string{
		`{"type":"object","$defs":{"a":{"$anchor":"a"}},"properties":{"p":{"$ref":"#a"},"q":{"$ref":"#/$defs/a"},"r":{"$ref":"#"}}}`,
		`{"type":"object","$defs":{"a":{"$id":"https://x.example/a","$anchor":"a"}},"properties":{"p":{"$ref":"#nope"}}}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"p":{"$ref":"#nope"}}}`,
	} {
		root, vs := ParseSource(&Source{Name: "s.json", Data: []byte(doc)})
		if len(vs) > 0 {
			t.Fatal(vs)
		}
		if got := refProblems(root, "inputs"); got != nil {
			t.Errorf("%s: %q, want none", doc, got)
		}
	}
}
