package skillcat_test

import (
	"context"
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/synth"
	"pgregory.net/rapid"
)

// examplecheck.go answers "no violation" for a descriptor's examples
// without the library; it must do so only where the library's path
// (compile, validate within the budget) finds none. For the schemas it
// reads it must moreover judge every instance as the library does, so a
// wrong rule shows here whichever way it errs.

// libraryAccepts compiles schema the library's way (its metaschema check
// included) and reports whether it compiles without a problem and accepts
// the instance.
func libraryAccepts(t tb, schema, instance any) (compiles, accepts bool) {
	t.Helper()
	data, err := json.Marshal(map[string]any{"output": schema})
	if err != nil {
		t.Fatalf("%v", err)
	}
	root, err := skillcat.ParseJSON(data)
	if err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	src := &skillcat.Source{Name: "skill.json", Data: data}
	s, vs := skillcat.CompileSkillSchemaChecked(src, root, skillcat.Members("output"), "output")
	if s == nil || len(vs) > 0 {
		return false, false
	}
	in, err := json.Marshal(instance)
	if err != nil {
		t.Fatalf("%v", err)
	}
	return true, len(s.Validate("example.json", in, "output")) == 0
}

// checkQuickAgrees fails when the fast reading of schema judges instance
// otherwise than the library, and reports whether it read the schema and
// accepted the instance.
func checkQuickAgrees(t tb, schema, instance any) (readable, accepted bool) {
	t.Helper()
	readable, accepted = skillcat.QuickSchemaAccepts(schema, instance)
	if !readable {
		return false, false
	}
	compiles, want := libraryAccepts(t, schema, instance)
	if !compiles {
		t.Fatalf("schema %s: read by the fast check, but the library does not compile it", short(mustJSON(t, schema)))
	}
	if accepted != want {
		t.Fatalf("schema %s, instance %s: fast check accepts %v, the library %v",
			short(mustJSON(t, schema)), short(mustJSON(t, instance)), accepted, want)
	}
	return readable, accepted
}

func mustJSON(t tb, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("%v", err)
	}
	return data
}

// TestExampleCheckAgrees compares the fast check with the library on
// generated schemas (the property tests' valid ones, keyword soup, and
// soup made of the keywords the fast check reads) and instances (valid
// ones, near misses made from them, and values of every shape).
func TestExampleCheckAgrees(t *testing.T) {
	var read, accepted, rejected, skipped atomic.Int64
	rapid.Check(t, func(rt *rapid.T) {
		var schema any
		var valid func(*rapid.T) any
		switch rapid.IntRange(0, 2).Draw(rt, "generator") {
		case 0:
			c := drawSchema(rt, 3, nil)
			schema, valid = c.schema, c.valid
		case 1:
			schema = drawMetaSchema(rt, 3, true)
		default:
			schema = drawQuickSchema(rt, 3)
		}
		for i := rapid.IntRange(1, 4).Draw(rt, "instances"); i > 0; i-- {
			var in any
			switch {
			case valid != nil && rapid.Bool().Draw(rt, "valid?"):
				in = valid(rt)
			case valid != nil && rapid.Bool().Draw(rt, "near miss?"):
				in = nearMiss(rt, valid(rt))
			default:
				in = drawQuickValue(rt, 3)
			}
			switch r, a := checkQuickAgrees(rt, schema, in); {
			case !r:
				skipped.Add(1)
			case a:
				read.Add(1)
				accepted.Add(1)
			default:
				read.Add(1)
				rejected.Add(1)
			}
		}
	})
	t.Logf("fast check read %d instances (%d accepted, %d refused), left %d to the library",
		read.Load(), accepted.Load(), rejected.Load(), skipped.Load())
	if accepted.Load() < 20 || rejected.Load() < 20 || skipped.Load() == 0 {
		t.Errorf("accepted %d, refused %d, left %d: the generators must exercise all three", accepted.Load(), rejected.Load(), skipped.Load())
	}
}

// quickKeywords are the keywords the fast check reads, annotations, and a
// few it leaves to the library.
var quickKeywords = []string{
	"type", "type", "type", "enum", "const", "properties", "properties", "required", "additionalProperties",
	"patternProperties", "propertyNames", "minProperties", "maxProperties", "dependentRequired", "dependentSchemas",
	"items", "items", "prefixItems", "contains", "minContains", "maxContains", "minItems", "maxItems", "uniqueItems",
	"minLength", "maxLength", "pattern", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
	"allOf", "anyOf", "oneOf", "not", "if", "then", "else", "format", "title", "default", "examples", "$comment",
	"contentMediaType", "contentSchema", "$defs", "x-widget", "nullable", "unevaluatedProperties", "$ref",
}

var (
	quickNumbers  = []json.Number{"0", "1", "2", "3", "-1", "0.5", "1.0", "2.0", "1e0", "1e1", "10", "2E0", "-0", "0.0", "0.25", "1e-3", "3.25", "12345678901234567890123", "1e20"}
	quickStrings  = []string{"", "a", "ab", "abc", "é", "名前", "😀😀", "A", "a1", "string", "integer", "x-y", "^a", "a b"}
	quickPatterns = []string{"^a", "a", "^[a-z]+$", `\d`, "^.{2}$", "b|é", "(?i)A", "^$", "名"}
	quickNames    = []string{"a", "b", "c", "x-y", "名前"}
)

// drawQuickSchema draws a schema position of the fast check's keywords,
// with values of the shapes the metaschema allows, mostly.
func drawQuickSchema(t *rapid.T, depth int) any {
	if rapid.IntRange(0, 9).Draw(t, "bool schema?") == 0 {
		return rapid.Bool().Draw(t, "bool")
	}
	sub := func() any {
		if depth <= 0 {
			return rapid.Bool().Draw(t, "leaf")
		}
		return drawQuickSchema(t, depth-1)
	}
	subs := func() []any {
		a := make([]any, rapid.IntRange(1, 3).Draw(t, "len"))
		for i := range a {
			a[i] = sub()
		}
		return a
	}
	names := func() []any {
		a := []any{}
		for _, n := range rapid.SliceOfNDistinct(rapid.SampledFrom(quickNames), 0, 3, rapid.ID[string]).Draw(t, "names") {
			a = append(a, n)
		}
		return a
	}
	num := func() any { return rapid.SampledFrom(quickNumbers).Draw(t, "number") }
	count := func() any { return json.Number(rapid.SampledFrom([]string{"0", "1", "2", "3"}).Draw(t, "count")) }
	m := map[string]any{}
	for i := rapid.IntRange(0, 4).Draw(t, "keywords"); i > 0; i-- {
		switch k := rapid.SampledFrom(quickKeywords).Draw(t, "keyword"); k {
		case "type":
			types := []string{"string", "number", "integer", "boolean", "null", "array", "object"}
			if rapid.Bool().Draw(t, "one type?") {
				m[k] = rapid.SampledFrom(types).Draw(t, "type")
			} else {
				var a []any
				for _, ty := range rapid.SliceOfNDistinct(rapid.SampledFrom(types), 1, 3, rapid.ID[string]).Draw(t, "types") {
					a = append(a, ty)
				}
				m[k] = a
			}
		case "enum":
			a := make([]any, rapid.IntRange(0, 3).Draw(t, "len"))
			for i := range a {
				a[i] = drawQuickValue(t, 1)
			}
			m[k] = a
		case "const", "default":
			m[k] = drawQuickValue(t, 1)
		case "properties", "patternProperties", "dependentSchemas", "$defs":
			p := map[string]any{}
			pool := quickNames
			if k == "patternProperties" {
				pool = quickPatterns
			}
			for _, n := range rapid.SliceOfNDistinct(rapid.SampledFrom(pool), 0, 3, rapid.ID[string]).Draw(t, "members") {
				p[n] = sub()
			}
			m[k] = p
		case "required":
			m[k] = names()
		case "dependentRequired":
			m[k] = map[string]any{rapid.SampledFrom(quickNames).Draw(t, "name"): names()}
		case "additionalProperties", "propertyNames", "items", "contains", "not", "if", "then", "else",
			"contentSchema", "unevaluatedProperties":
			m[k] = sub()
		case "prefixItems", "allOf", "anyOf", "oneOf":
			m[k] = subs()
		case "minProperties", "maxProperties", "minContains", "maxContains", "minItems", "maxItems", "minLength", "maxLength":
			m[k] = count()
		case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
			m[k] = num()
		case "multipleOf":
			m[k] = json.Number(rapid.SampledFrom([]string{"1", "2", "0.5", "0.25", "3", "1e-3", "10"}).Draw(t, "multipleOf"))
		case "uniqueItems":
			m[k] = rapid.Bool().Draw(t, "unique")
		case "pattern":
			m[k] = rapid.SampledFrom(quickPatterns).Draw(t, "pattern")
		case "$ref":
			m[k] = "#/$defs/a"
		case "examples":
			m[k] = []any{drawQuickValue(t, 1)}
		default:
			m[k] = rapid.SampledFrom(quickStrings).Draw(t, "string")
		}
	}
	return m
}

// drawQuickValue draws an instance from small pools, so that it often
// meets a drawn schema's constants, names and bounds.
func drawQuickValue(t *rapid.T, depth int) any {
	kinds := 6
	if depth <= 0 {
		kinds = 4
	}
	switch rapid.IntRange(0, kinds-1).Draw(t, "kind") {
	case 0:
		return rapid.SampledFrom([]any{nil, true, false}).Draw(t, "literal")
	case 1:
		return rapid.SampledFrom(quickNumbers).Draw(t, "number")
	case 2, 3:
		return rapid.SampledFrom(quickStrings).Draw(t, "string")
	case 4:
		a := make([]any, rapid.IntRange(0, 4).Draw(t, "len"))
		for i := range a {
			a[i] = drawQuickValue(t, depth-1)
		}
		return a
	}
	m := map[string]any{}
	for _, n := range rapid.SliceOfNDistinct(rapid.SampledFrom(quickNames), 0, 3, rapid.ID[string]).Draw(t, "members") {
		m[n] = drawQuickValue(t, depth-1)
	}
	return m
}

// nearMiss changes one part of v: a member dropped, added or replaced, an
// item replaced, or a leaf swapped for another value.
func nearMiss(t *rapid.T, v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v)+1)
		var names []string
		for k, val := range v {
			out[k] = val
			names = append(names, k)
		}
		if len(names) == 0 || rapid.IntRange(0, 3).Draw(t, "add?") == 0 {
			out[rapid.SampledFrom(append(quickNames, "zz-extra-a")).Draw(t, "added")] = drawQuickValue(t, 1)
			return out
		}
		slicesSort(names)
		name := rapid.SampledFrom(names).Draw(t, "member")
		if rapid.Bool().Draw(t, "drop?") {
			delete(out, name)
		} else {
			out[name] = nearMiss(t, v[name])
		}
		return out
	case []any:
		if len(v) == 0 {
			return []any{drawQuickValue(t, 1)}
		}
		out := append([]any(nil), v...)
		i := rapid.IntRange(0, len(v)-1).Draw(t, "item")
		out[i] = nearMiss(t, v[i])
		return out
	}
	return drawQuickValue(t, 1)
}

func slicesSort(a []string) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// TestExampleCheckEdgeCases holds the fast check to the library on the
// corners where a hand-written validator most often errs: numbers by value
// (1.0 an integer, 0.3 a multiple of 0.1, -0 equal to 0, big and tiny
// exponents), deep equality in const, enum and uniqueItems (past the
// library's 20 items too), code points in lengths, Go regexp semantics
// (\w and \d ASCII, "$" before a final newline), formats and contents
// annotations only, additionalProperties beside patternProperties,
// prefixItems/items, contains with minContains 0 and maxContains, boolean
// schemas under if/then/else, member names a JSON Pointer escapes, and
// keywords of other drafts.
func TestExampleCheckEdgeCases(t *testing.T) {
	cases := [][2]string{
		{`{"multipleOf":0.1}`, `0.3`},
		{`{"multipleOf":0.01}`, `1e-3`},
		{`{"multipleOf":1e-2}`, `0.3`},
		{`{"type":"integer"}`, `1.0`},
		{`{"type":"integer"}`, `1e300`},
		{`{"type":"integer"}`, `1.5e1`},
		{`{"type":"integer"}`, `-0`},
		{`{"type":"integer"}`, `1e-300`},
		{`{"type":["integer","string"]}`, `1.5`},
		{`{"const":{"a":1}}`, `{"a":1.0}`},
		{`{"const":[1,2]}`, `[1.0,2e0]`},
		{`{"enum":[[1,2]]}`, `[1.0,2]`},
		{`{"const":0}`, `-0`},
		{`{"const":null}`, `null`},
		{`{"const":null}`, `{}`},
		{`{"enum":[null]}`, `0`},
		{`{"uniqueItems":true}`, `[1,1.0]`},
		{`{"uniqueItems":true}`, `[0,-0]`},
		{`{"uniqueItems":true}`, `[{"a":1},{"a":1.0}]`},
		{`{"uniqueItems":true}`, `[1,-1]`},
		{`{"uniqueItems":true}`, `[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,-1]`},
		{`{"uniqueItems":true}`, `[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,1.0]`},
		{`{"uniqueItems":false}`, `[1,1]`},
		{`{"pattern":"^\\w+$"}`, `"é"`},
		{`{"pattern":"^\\d+$"}`, `"١٢"`},
		{`{"pattern":"^.$"}`, `"😀"`},
		{`{"pattern":"^.$"}`, `"\n"`},
		{`{"pattern":"^\\p{L}+$"}`, `"é"`},
		{`{"pattern":"a$"}`, `"a\n"`},
		{`{"pattern":"(?i)A"}`, `"a"`},
		{`{"pattern":"\\Z"}`, `"a"`},
		{`{"pattern":"[[:alpha:]]"}`, `"a"`},
		{`{"minLength":2}`, `"😀"`},
		{`{"maxLength":1}`, `"😀"`},
		{`{"maxLength":1}`, `"e\u0301"`},
		{`{"maxLength":1}`, `"\ud83d\ude00"`},
		{`{"format":"email"}`, `"x"`},
		{`{"format":"date-time"}`, `"x"`},
		{`{"format":"regex"}`, `"("`},
		{`{"contentEncoding":"base64"}`, `"!!!"`},
		{`{"contentMediaType":"application/json"}`, `"{"`},
		{`{"contentMediaType":"application/json","contentSchema":false}`, `"{}"`},
		{`{"properties":{"a":false},"patternProperties":{"^a":true}}`, `{"a":1}`},
		{`{"additionalProperties":false,"patternProperties":{"^a":true}}`, `{"ab":1,"b":2}`},
		{`{"additionalProperties":false,"properties":{"a":true}}`, `{"a":1}`},
		{`{"prefixItems":[{"type":"string"}],"items":false}`, `["a",1]`},
		{`{"prefixItems":[{"type":"string"}],"items":false}`, `["a"]`},
		{`{"items":false}`, `[]`},
		{`{"contains":{"type":"string"}}`, `[]`},
		{`{"contains":{"type":"string"},"minContains":0}`, `[]`},
		{`{"contains":{"type":"string"},"maxContains":1}`, `["a","b"]`},
		{`{"minContains":2}`, `[]`},
		{`{"maxContains":0,"contains":true}`, `[1]`},
		{`{"dependentRequired":{"a":["b"]}}`, `{"a":1}`},
		{`{"dependentSchemas":{"a":false}}`, `{"a":1}`},
		{`{"propertyNames":{"pattern":"^a"}}`, `{"b":1}`},
		{`{"propertyNames":false}`, `{}`},
		{`{"propertyNames":{"type":"number"}}`, `{"1":1}`},
		{`{"if":true,"then":false}`, `1`},
		{`{"if":false,"else":false}`, `1`},
		{`{"then":false}`, `1`},
		{`{"else":false}`, `1`},
		{`{"if":{"type":"string"},"then":false,"else":true}`, `1`},
		{`{"not":{}}`, `1`},
		{`{"oneOf":[true,true]}`, `1`},
		{`{"oneOf":[true,{"type":"integer"}]}`, `1.5`},
		{`{"anyOf":[false]}`, `1`},
		{`{"allOf":[true,{"minimum":2}]}`, `1`},
		{`{"minimum":1e-400}`, `0`},
		{`{"exclusiveMaximum":0}`, `-0`},
		{`{"maximum":123456789012345678901234567890}`, `123456789012345678901234567891`},
		{`{"minItems":1}`, `[]`},
		{`{"maxProperties":0}`, `{"a":1}`},
		{`{"required":["a"]}`, `{"b":1}`},
		{`{"required":["a"]}`, `[1]`},
		{`{"definitions":{"x":false}}`, `1`},
		{`{"$defs":{"x":false}}`, `1`},
		{`{"dependencies":{"a":["b"]}}`, `{"a":1}`},
		{`{"additionalItems":false,"items":{}}`, `[1]`},
		{`{"$schema":"https://json-schema.org/draft/2020-12/schema","maximum":1}`, `2`},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","maximum":1}`, `2`},
		{`{"$schema":"http://json-schema.org/draft-04/schema#","exclusiveMaximum":1}`, `2`},
		{`{"type":"integer","$schema":"http://json-schema.org/draft-04/schema#"}`, `1.0`},
		{`{"$comment":"x","title":"y","deprecated":true,"readOnly":true}`, `1`},
		{`{"unknown":{"type":"string"}}`, `1`},
		{`{"x-foo":false}`, `1`},
		{`{"default":false, "examples":[1]}`, `1`},
		{`{"type":"null"}`, `null`},
		{`{"type":"boolean"}`, `0`},
		{`{"enum":[1,"1"]}`, `"1"`},
		{`{"const":"a"}`, `"a"`},
		{`{"const":true}`, `1`},
		{`{"properties":{"":false}}`, `{"":1}`},
		{`{"properties":{"a~1b":false}}`, `{"a/b":1}`},
		{`{"properties":{"a/b":false}}`, `{"a/b":1}`},
		{`{"properties":{"%25":false}}`, `{"%":1}`},
		{`{"properties":{"%":false}}`, `{"%":1}`},
		{`{"properties":{"#":false}}`, `{"#":1}`},
		{`{"patternProperties":{"%":false}}`, `{"%":1}`},
		{`{"properties":{"a b":false}}`, `{"a b":1}`},
		{`{"properties":{"\u0000":false}}`, `{"\u0000":1}`},
		{`{"properties":{"~":false}}`, `{"~":1}`},
		{`{"properties":{"~0":false}}`, `{"~":1}`},
		{`{"properties":{"~0":false}}`, `{"~0":1}`},
	}
	read := 0
	for _, c := range cases {
		s, err := skillcat.ParseJSON([]byte(c[0]))
		if err != nil {
			t.Fatalf("%s: %v", c[0], err)
		}
		in, err := skillcat.ParseJSON([]byte(c[1]))
		if err != nil {
			t.Fatalf("%s: %v", c[1], err)
		}
		if readable, _ := checkQuickAgrees(t, s.Value(), in.Value()); readable {
			read++
		}
	}
	if read < len(cases)*3/4 {
		t.Errorf("the fast check read %d of %d schemas, want most", read, len(cases))
	}
}

// TestExamplesValidIsTheLibrary holds examplesValid to the library's path
// on whole descriptors: the corpus (good, bad and warning cases), the
// synthetic catalogs, and generated descriptors whose examples are valid,
// near misses, or anything.
func TestExamplesValidIsTheLibrary(t *testing.T) {
	var docs [][]byte
	files, _ := filepath.Glob("testdata/descriptor/*/*.json")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatalf("%v", err)
		}
		docs = append(docs, data)
	}
	for i := 0; i < 400; i++ {
		if name, data := synth.Source(i, 7); strings.HasSuffix(name, ".json") {
			docs = append(docs, data)
		}
	}
	fast := 0
	for _, data := range docs {
		if checkExamplesValid(t, data) {
			fast++
		}
	}
	if fast < 150 {
		t.Errorf("examplesValid answered for %d of %d corpus documents, want most of the synthetic ones", fast, len(docs))
	}
	var answered atomic.Int64
	rapid.Check(t, func(rt *rapid.T) {
		c := drawObjectSchema(rt, 2, nil)
		out := drawSchema(rt, 2, nil)
		var examples []any
		for i := rapid.IntRange(0, 3).Draw(rt, "examples"); i > 0; i-- {
			in, o := c.valid(rt), out.valid(rt)
			if rapid.IntRange(0, 3).Draw(rt, "miss?") == 0 {
				in = nearMiss(rt, in)
			}
			if rapid.IntRange(0, 3).Draw(rt, "miss?") == 0 {
				o = nearMiss(rt, o)
			}
			ex := map[string]any{"title": "t", "inputs": in}
			if rapid.Bool().Draw(rt, "output?") {
				ex["output"] = o
			}
			examples = append(examples, ex)
		}
		if checkExamplesValid(rt, mustJSON(rt, map[string]any{"inputs": c.schema, "output": out.schema, "examples": examples})) {
			answered.Add(1)
		}
	})
	if answered.Load() == 0 {
		t.Error("examplesValid never answered for a generated descriptor")
	}
}

// checkExamplesValid fails when examplesValid answers for a document the
// library's path finds a problem in, and reports whether it answered.
func checkExamplesValid(t tb, data []byte) bool {
	t.Helper()
	root, err := skillcat.ParseJSON(data)
	if err != nil || root.Kind != skillcat.Object {
		return false
	}
	val := root.Value()
	if !skillcat.ExamplesValid(root, val) {
		return false
	}
	src := &skillcat.Source{Name: "skill.json", Data: data}
	if vs := skillcat.CheckSkillSchemasLibrary(context.Background(), src, root, val); len(vs) > 0 {
		t.Fatalf("examplesValid finds nothing wrong with %s, the library path finds %v", short(data), vs)
	}
	return true
}

// FuzzExampleCheck holds the fast check to the library on any schema and
// instance the fuzzer makes: where it reads the schema, it must judge the
// instance as the library does.
func FuzzExampleCheck(f *testing.F) {
	f.Add([]byte(`{"type":"object","properties":{"a":{"type":"integer","minimum":1}},"required":["a"]}`), []byte(`{"a":1.0}`))
	f.Add([]byte(`{"type":"array","items":{"type":"string","pattern":"^[a-z]+$"},"maxItems":2,"uniqueItems":true}`), []byte(`["a","b"]`))
	f.Add([]byte(`{"oneOf":[{"type":"number","multipleOf":0.5},{"const":2}],"not":{"enum":[3]}}`), []byte(`2.0`))
	f.Add([]byte(`{"if":{"required":["a"]},"then":{"minProperties":2},"else":{"propertyNames":{"maxLength":1}}}`), []byte(`{"a":null,"bb":1}`))
	f.Add([]byte(`{"prefixItems":[true,false],"items":{"type":"null"},"contains":{"type":"null"},"minContains":0}`), []byte(`[1]`))
	f.Add([]byte(`{"patternProperties":{"^x":{"type":"string"}},"additionalProperties":false,"dependentRequired":{"x1":["y"]}}`), []byte(`{"x1":"s"}`))
	for i := 0; i < 20; i++ {
		if name, data := synth.Source(i, 5); strings.HasSuffix(name, ".json") {
			root, err := skillcat.ParseJSON(data)
			if err != nil {
				continue
			}
			if ex := root.Get("examples"); ex != nil && len(ex.Items) > 0 {
				f.Add(root.Get("inputs").AppendJSON(nil), ex.Items[0].Get("inputs").AppendJSON(nil))
			}
		}
	}
	f.Fuzz(func(t *testing.T, schema, instance []byte) {
		s, err := skillcat.ParseJSON(schema)
		if err != nil {
			return
		}
		in, err := skillcat.ParseJSON(instance)
		if err != nil {
			return
		}
		checkQuickAgrees(t, s.Value(), in.Value())
	})
}

// FuzzExamplesValid holds examplesValid to the library's path on whole
// descriptors the fuzzer makes (several examples, inputs and output,
// boolean output schemas, the budget shared between them): whenever it
// answers "no violation", checkSkillSchemasLibrary must find none.
func FuzzExamplesValid(f *testing.F) {
	f.Add([]byte(`{"inputs":{"type":"object","properties":{"n":{"type":"integer","maximum":3}}},"output":false,"examples":[{"title":"t","inputs":{"n":3}},{"title":"u","inputs":{"n":2.0},"output":1}]}`))
	f.Add([]byte(`{"inputs":{"type":"object","additionalProperties":{"uniqueItems":true}},"output":{"const":[1,{"a":null}]},"examples":[{"title":"t","inputs":{"a":[1,1.0]},"output":[1.0,{"a":null}]}]}`))
	files, _ := filepath.Glob("testdata/descriptor/*/*.json")
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkExamplesValid(t, data)
	})
}

// TestNumberKeywordSmallInts holds numberKeywordAccepts on plain integers
// (compared as int64) to the exact big.Rat comparison the others take.
func TestNumberKeywordSmallInts(t *testing.T) {
	nums := []string{"0", "-0", "1", "-1", "7", "21", "-21", "3", "999999999999999", "-999999999999999", "1000000000000000", "1.5", "2e1", "-3.0"}
	for _, k := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"} {
		for _, limit := range nums {
			for _, v := range nums {
				l, _ := new(big.Rat).SetString(limit)
				n, _ := new(big.Rat).SetString(v)
				var want bool
				switch k {
				case "minimum":
					want = n.Cmp(l) >= 0
				case "maximum":
					want = n.Cmp(l) <= 0
				case "exclusiveMinimum":
					want = n.Cmp(l) > 0
				case "exclusiveMaximum":
					want = n.Cmp(l) < 0
				default:
					if l.Sign() == 0 {
						continue
					}
					want = new(big.Rat).Quo(n, l).IsInt()
				}
				if got := skillcat.NumberKeywordAccepts(k, json.Number(limit), json.Number(v)); got != want {
					t.Errorf("%s %s, instance %s: %v, want %v", k, limit, v, got, want)
				}
			}
		}
	}
}
