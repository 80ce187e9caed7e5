package skillcat_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/skillcat/skillcat"
)

// exponentialInputs is an inputs schema whose "n" is a "oneOf" of two
// recursive array branches that both apply: checking a value nested d deep
// costs 2^d subschema applications.
const exponentialInputs = `{"type": "object", "properties": {"x": {"$ref": "#/$defs/n"}}, "$defs": {"n": {"oneOf": [{"type": "array", "items": {"$ref": "#/$defs/n"}}, {"type": "array", "items": {"$ref": "#/$defs/n"}, "maxItems": 1}]}}}`

func nested(depth int) string { return strings.Repeat("[", depth) + strings.Repeat("]", depth) }

// TestValidationBudget checks that a document whose examples would take
// exponential time is reported, quickly, at the example.
func TestValidationBudget(t *testing.T) {
	src := build(baseDescriptor, with("inputs", exponentialInputs),
		with("examples", `[{"title": "deep", "inputs": {"x": `+nested(40)+`}}]`))
	start := time.Now()
	_, vs := skillcat.ParseDescriptor("d.json", src)
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("checking took %v", took)
	}
	checkViolations(t, "d.json", src, vs, []want{bad(16, `{"x"`, "/examples/0/inputs", "examples[0].inputs",
		`is too costly to check against its schema: the document's checks would apply subschemas more than 1000000 times (a recursive schema whose "oneOf" or "anyOf" branches all apply doubles the work with each level of nesting); simplify the schema or the value`)})

	// The same schema with a shallow example is checked as usual.
	src = build(baseDescriptor, with("inputs", exponentialInputs),
		with("examples", `[{"title": "shallow", "inputs": {"x": `+nested(3)+`}}]`))
	_, vs = skillcat.ParseDescriptor("d.json", src)
	if len(vs) != 1 || !strings.Contains(vs[0].Reason, "oneOf") || strings.Contains(vs[0].Reason, "costly") {
		t.Errorf("a shallow example: got %v, want the oneOf violation", vs)
	}
}

// TestValidationCancelled checks that a cancelled context stops the checks
// of a costly document at once.
func TestValidationCancelled(t *testing.T) {
	src := build(baseDescriptor, with("inputs", exponentialInputs),
		with("examples", `[{"title": "deep", "inputs": {"x": `+nested(40)+`}}]`))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	_, vs := skillcat.ParseDescriptorContext(ctx, "d.json", src)
	if took := time.Since(start); took > time.Second {
		t.Errorf("a cancelled check took %v", took)
	}
	if len(vs) != 1 || vs[0].Reason != "was not checked: checking was interrupted" {
		t.Errorf("got %v, want the example reported as not checked", vs)
	}
}

// TestRefCycle checks that a schema that refers to itself without looking
// into the value is refused at the schema, in plain words, whether or not
// an example reaches it.
func TestRefCycle(t *testing.T) {
	const reason = `is not a valid JSON Schema: it refers to itself without looking into the value (#/$defs/a → #/$defs/b → #/$defs/b/allOf/0 → #/$defs/a), so no value could ever be checked against it`
	for _, tc := range []struct {
		name, output string
		examples     string
	}{
		{"NoExample", `{"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"allOf": [{"$ref": "#/$defs/a"}]}}, "properties": {"p": {"$ref": "#/$defs/a"}}}`, `[]`},
		{"ExampleReachesIt", `{"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"allOf": [{"$ref": "#/$defs/a"}]}}, "properties": {"p": {"$ref": "#/$defs/a"}}}`, `[{"title": "t", "inputs": {"city": "x"}, "output": {"p": 1}}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := build(baseDescriptor, with("output", tc.output), with("examples", tc.examples))
			_, vs := skillcat.ParseDescriptor("d.json", src)
			checkViolations(t, "d.json", src, vs, []want{bad(12, `{"$ref": "#/$defs/b"}`, "/output/$defs/a", "output.$defs.a", reason)})
		})
	}
	t.Run("SelfAtRoot", func(t *testing.T) {
		src := build(baseDescriptor, with("output", `{"anyOf": [{"type": "string"}, {"$ref": "#"}]}`))
		_, vs := skillcat.ParseDescriptor("d.json", src)
		checkViolations(t, "d.json", src, vs, []want{bad(12, `{"anyOf"`, "/output", "output",
			`is not a valid JSON Schema: it refers to itself without looking into the value (# → #/anyOf/1 → #), so no value could ever be checked against it`)})
	})
	t.Run("RecursionThroughItemsIsFine", func(t *testing.T) {
		src := build(baseDescriptor, with("output", `{"$defs": {"tree": {"type": "array", "items": {"$ref": "#/$defs/tree"}}}, "$ref": "#/$defs/tree"}`),
			with("examples", `[{"title": "t", "inputs": {"city": "x"}, "output": [[[]], []]}]`))
		if _, vs := skillcat.ParseDescriptor("d.json", src); len(vs) != 0 {
			t.Errorf("a recursive tree schema: got %v", vs)
		}
	})
}
