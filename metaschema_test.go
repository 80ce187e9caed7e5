package skillcat_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/synth"
	"pgregory.net/rapid"
)

// The metaschema fast path (metaschema.go) must never change a verdict or a
// message: a skill schema compiled the build's way (metaValid, then the
// library's own path for anything it does not accept) must give exactly the
// violations of the library's path alone, and a compiled schema must judge
// every instance with the same violations.

// metaKeywords is every keyword the draft 2020-12 metaschema gives a
// subschema (its vocabularies and the top schema's legacy keywords).
func metaKeywords(t *testing.T) []string {
	t.Helper()
	c := jsonschema.NewCompiler()
	var out []string
	base := "https://json-schema.org/draft/2020-12/"
	for _, u := range []string{"schema", "meta/core", "meta/applicator", "meta/unevaluated", "meta/validation",
		"meta/meta-data", "meta/format-annotation", "meta/content"} {
		sch, err := c.Compile(base + u)
		if err != nil {
			t.Fatal(err)
		}
		for k := range sch.Properties {
			out = append(out, k)
		}
	}
	return out
}

// TestMetaKeywordsHandled holds metaKeywordValid to the metaschema: every
// keyword it defines is decided by a case of its own (a value of no JSON
// type fails it), none falls through to "not a keyword".
func TestMetaKeywordsHandled(t *testing.T) {
	kws := metaKeywords(t)
	if len(kws) < 50 {
		t.Fatalf("got %d metaschema keywords, want the 54 of draft 2020-12", len(kws))
	}
	for _, k := range kws {
		if k == "const" || k == "default" { // any value is valid
			continue
		}
		if skillcat.MetaKeywordValid(k, struct{}{}, true) {
			t.Errorf("keyword %q: a value of no JSON type passes, so it is not checked as the metaschema checks it", k)
		}
	}
}

// metaschema20 is the draft 2020-12 metaschema with formats asserted, as
// the library checks a schema with it.
func metaschema20(t *testing.T) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	sch, err := c.Compile("https://json-schema.org/draft/2020-12/schema")
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// checkSameCompile compiles the schema at path of the JSON document data
// both ways and fails on any difference, also validating instances.
func checkSameCompile(t tb, meta *jsonschema.Schema, data []byte, path skillcat.Path, instances [][]byte) (accepted bool) {
	t.Helper()
	src := &skillcat.Source{Name: "skill.json", Data: data}
	root, err := skillcat.ParseJSON(data)
	if err != nil {
		t.Fatalf("%s: %v", short(data), err)
	}
	n := root.At(path)
	if n == nil {
		return false
	}
	accepted = skillcat.MetaValid(n.Value())
	if accepted {
		if err := meta.Validate(n.Value()); err != nil {
			t.Fatalf("metaValid accepts a schema the metaschema refuses: %s\n%v", short(n.AppendJSON(nil)), err)
		}
	}
	fast, fvs := skillcat.CompileSkillSchemaNode(src, root, path, "inputs")
	slow, svs := skillcat.CompileSkillSchemaChecked(src, root, path, "inputs")
	fvs.Sort() // the validator finds them in map order; a build sorts them
	svs.Sort()
	// Where the fast path fails, or is not taken, compileNode returns what
	// compileChecked returns: the messages are the library path's by
	// construction (and on some hostile schemas, two broken "$anchor"s, the
	// library reports one problem or another from run to run, so two calls
	// need not agree). What must hold is the verdict, and that a schema the
	// fast path compiled has no problem on the library's path either.
	if fast != nil && len(svs) > 0 {
		t.Fatalf("schema %s: compiled, but the library's path says %v", short(n.AppendJSON(nil)), svs)
	}
	if len(fvs) == 0 && len(svs) > 0 || len(fvs) > 0 && len(svs) == 0 {
		t.Fatalf("schema %s:\ngot violations  %v\nwant violations %v", short(n.AppendJSON(nil)), fvs, svs)
	}
	if (fast == nil) != (slow == nil) {
		t.Fatalf("schema %s: compiled %v, want %v", short(n.AppendJSON(nil)), fast != nil, slow != nil)
	}
	if fast == nil {
		return accepted
	}
	for _, in := range instances {
		got, want := fast.Validate("example.json", in, "examples[0]", "inputs"), slow.Validate("example.json", in, "examples[0]", "inputs")
		got.Sort()
		want.Sort()
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("schema %s, instance %s:\ngot  %v\nwant %v", short(n.AppendJSON(nil)), in, got, want)
		}
	}
	return accepted
}

// TestMetaValidAgrees compares the two ways on generated schemas: valid
// ones (the property tests' generator), and keyword soup with values of
// every shape, right and wrong, down to hostile references and patterns.
func TestMetaValidAgrees(t *testing.T) {
	meta := metaschema20(t)
	var accepted, refused atomic.Int64
	rapid.Check(t, func(rt *rapid.T) {
		var doc any
		if rapid.IntRange(0, 3).Draw(rt, "valid?") == 0 {
			doc = drawSchema(rt, 3, nil).schema
		} else {
			doc = drawMetaSchema(rt, 3, true)
		}
		data, err := json.Marshal(doc)
		if err != nil {
			rt.Fatal(err)
		}
		var instances [][]byte
		for i := rapid.IntRange(0, 3).Draw(rt, "instances"); i > 0; i-- {
			in, err := json.Marshal(drawValue(rt, 3))
			if err != nil {
				rt.Fatal(err)
			}
			instances = append(instances, in)
		}
		if checkSameCompile(rt, meta, data, nil, instances) {
			accepted.Add(1)
		} else {
			refused.Add(1)
		}
	})
	t.Logf("fast path taken for %d schemas, library path for %d", accepted.Load(), refused.Load())
	if accepted.Load() == 0 || refused.Load() == 0 {
		t.Errorf("fast path taken for %d schemas, library path for %d: the generator must exercise both", accepted.Load(), refused.Load())
	}
}

// TestMetaValidCorpus compares the two ways on the schemas of the
// descriptor corpus (good, bad and warning cases) and of synthetic
// catalogs, with their examples as instances.
func TestMetaValidCorpus(t *testing.T) {
	meta := metaschema20(t)
	var docs [][]byte
	files, _ := filepath.Glob("testdata/descriptor/*/*.json")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, data)
	}
	for i := 0; i < 400; i++ {
		if name, data := synth.Source(i, 7); strings.HasSuffix(name, ".json") {
			docs = append(docs, data)
		}
	}
	var accepted int
	for _, data := range docs {
		root, err := skillcat.ParseJSON(data)
		if err != nil || root.Kind != skillcat.Object {
			continue
		}
		var instances [][]byte
		if ex := root.Get("examples"); ex != nil {
			for _, e := range ex.Items {
				for _, m := range []string{"inputs", "output"} {
					if v := e.Get(m); v != nil {
						instances = append(instances, v.AppendJSON(nil))
					}
				}
			}
		}
		for _, m := range []string{"inputs", "output"} {
			if checkSameCompile(t, meta, data, skillcat.Members(m), instances) {
				accepted++
			}
		}
	}
	if accepted < 200 {
		t.Errorf("fast path taken for %d corpus schemas, want most of the synthetic ones", accepted)
	}
}

// metaKeywordNames are the keywords drawMetaSchema uses: the metaschema's,
// and names it does not define.
var metaKeywordNames = []string{
	"$id", "$schema", "$ref", "$anchor", "$dynamicRef", "$dynamicAnchor", "$vocabulary", "$comment", "$defs",
	"prefixItems", "items", "contains", "additionalProperties", "properties", "patternProperties",
	"dependentSchemas", "propertyNames", "if", "then", "else", "allOf", "anyOf", "oneOf", "not",
	"unevaluatedItems", "unevaluatedProperties", "type", "const", "enum", "multipleOf", "maximum",
	"exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength", "minLength", "pattern", "maxItems",
	"minItems", "uniqueItems", "maxContains", "minContains", "maxProperties", "minProperties", "required",
	"dependentRequired", "title", "description", "default", "deprecated", "readOnly", "writeOnly",
	"examples", "format", "contentEncoding", "contentMediaType", "contentSchema", "definitions",
	"dependencies", "$recursiveAnchor", "$recursiveRef", "x-widget", "nullable", "$foo",
}

var (
	metaNumbers = []json.Number{"0", "1", "7", "-1", "0.5", "1.0", "0.0", "1e2", "2E0", "-0", "12345678901234567890123", "0.000", "3.25", "1e-3"}
	metaStrings = []string{"", "a", "string", "object", "integer", "int", "Number", "null", "array", "boolean", "number",
		"^[a-z]+$", "(", "[a-", "a{2,1}", `\p{L}+`, `(?i)x`, `\d{3}`, `(?=x)`, `\`, "é", "#", "#/$defs/a", "#/properties/a",
		"#/$defs/missing", "#%zz", "#/%25", "#a", "other.json", "http://x/y#", `#\x`, "#/properties", "#/required",
		"https://json-schema.org/draft/2020-12/schema", "https://json-schema.org/draft-07/schema#",
		"https://json-schema.org/draft/2020-12/schema#", "not a uri", "urn:x", "https://example.com/s.json"}
	metaNames = []string{"a", "b", "city", "$ref", "type", "q/a", "t~ilde", "^x", "(", "名前"}
)

// drawMetaSchema draws a schema position: now and then a boolean or a
// value that is no schema at all, mostly an object of drawn keywords.
func drawMetaSchema(t *rapid.T, depth int, root bool) any {
	switch rapid.IntRange(0, 15).Draw(t, "shape") {
	case 0:
		return rapid.Bool().Draw(t, "bool-schema")
	case 1:
		return drawValue(t, 1)
	}
	m := map[string]any{}
	if root && rapid.Bool().Draw(t, "$schema?") {
		m["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	}
	for i := rapid.IntRange(0, 5).Draw(t, "keywords"); i > 0; i-- {
		k := rapid.SampledFrom(metaKeywordNames).Draw(t, "keyword")
		m[k] = drawKeywordValue(t, k, depth)
	}
	if depth > 1 && rapid.Bool().Draw(t, "defs?") {
		m["$defs"] = map[string]any{"a": drawMetaSchema(t, depth-1, false)}
		m["properties"] = map[string]any{"a": drawMetaSchema(t, depth-1, false)}
	}
	return m
}

// drawKeywordValue draws a value for keyword k: mostly of the shape the
// metaschema asks for, sometimes any JSON value.
func drawKeywordValue(t *rapid.T, k string, depth int) any {
	if rapid.IntRange(0, 7).Draw(t, "any-value?") == 0 {
		return drawValue(t, 1)
	}
	schema := func() any {
		if depth <= 0 {
			return rapid.Bool().Draw(t, "leaf")
		}
		return drawMetaSchema(t, depth-1, false)
	}
	str := func() any { return rapid.SampledFrom(metaStrings).Draw(t, "string") }
	switch k {
	case "items", "contains", "additionalProperties", "propertyNames", "if", "then", "else", "not",
		"unevaluatedItems", "unevaluatedProperties", "contentSchema":
		return schema()
	case "prefixItems", "allOf", "anyOf", "oneOf":
		a := make([]any, rapid.IntRange(0, 3).Draw(t, "len"))
		for i := range a {
			a[i] = schema()
		}
		return a
	case "properties", "$defs", "definitions", "dependentSchemas", "patternProperties", "dependencies":
		m := map[string]any{}
		for i := rapid.IntRange(0, 3).Draw(t, "len"); i > 0; i-- {
			name := rapid.SampledFrom(append(metaNames, metaStrings...)).Draw(t, "name")
			if k == "dependencies" && rapid.Bool().Draw(t, "array?") {
				m[name] = drawStringArray(t)
				continue
			}
			m[name] = schema()
		}
		return m
	case "type":
		if rapid.Bool().Draw(t, "one type?") {
			return str()
		}
		return drawStringArray(t)
	case "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength", "minLength",
		"maxItems", "minItems", "maxContains", "minContains", "maxProperties", "minProperties":
		return rapid.SampledFrom(metaNumbers).Draw(t, "number")
	case "required":
		return drawStringArray(t)
	case "dependentRequired":
		return map[string]any{rapid.SampledFrom(metaNames).Draw(t, "name"): drawStringArray(t)}
	case "uniqueItems", "deprecated", "readOnly", "writeOnly":
		return rapid.Bool().Draw(t, "bool")
	case "enum", "examples":
		return []any{drawValue(t, 1)}
	case "$vocabulary":
		return map[string]any{str().(string): rapid.Bool().Draw(t, "bool")}
	}
	return str()
}

// drawStringArray draws a short array of strings, repeats included.
func drawStringArray(t *rapid.T) []any {
	a := make([]any, rapid.IntRange(0, 3).Draw(t, "len"))
	for i := range a {
		a[i] = rapid.SampledFrom(append(metaNames, "string", "object", "integer")).Draw(t, "item")
	}
	return a
}
