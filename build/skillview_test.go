package build

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/synth"
)

// TestSchemaTableBounded checks that a schema whose oneOf branches refer
// back to it, a few kilobytes that would take hours to name naively, is
// rendered at once.
func TestSchemaTableBounded(t *testing.T) {
	branches := strings.TrimSuffix(strings.Repeat(`{"$ref": "#/$defs/a"},`, 120), ",")
	raw := json.RawMessage(`{"$defs": {"a": {"oneOf": [` + branches + `]}}, "$ref": "#/$defs/a",
		"type": "object", "properties": {"x": {"$ref": "#/$defs/a"}, "y": {"oneOf": [` + branches + `]}}}`)
	done := make(chan struct{})
	go func() {
		schemaViewOf(raw, nil, "")
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("rendering the schema table did not finish in 30 s")
	}
}

// TestSchemaViewOfTree checks that a schema's view made from the tree
// its descriptor was decoded into (UnmarshalDescriptor) is the one made by
// parsing the schema again, for synthetic descriptors, the golden
// catalog's and hand-made ones with references, odd numbers and escapes.
func TestSchemaViewOfTree(t *testing.T) {
	var published [][]byte
	for i := 0; i < 200; i++ {
		name, data := synth.Source(i, 1)
		row := parseSource(context.Background(), SourceFile{Path: name, Data: data}, name).row
		if row == nil {
			t.Fatalf("%s: no row", name)
		}
		published = append(published, row.Descriptor)
	}
	for _, schema := range []string{
		`{"$defs":{"a":{"type":"string","description":"\u00e9 \"q\" <b>"}},"type":"object","properties":{"x":{"$ref":"#/$defs/a"},"n":{"type":"number","minimum":1.50e+3,"maximum":-0.0}},"required":["x"],"additionalProperties":false}`,
		`true`, `false`, `{}`, `null`, `[]`, `"s"`,
	} {
		published = append(published, []byte(`{"inputs":`+schema+`,"output":{"oneOf":[`+schema+`,{"type":"null"}]}}`))
	}
	for _, data := range published {
		d, tree, err := skillcat.UnmarshalDescriptor(data)
		if err != nil {
			t.Fatal(err)
		}
		for _, part := range []struct {
			raw  json.RawMessage
			name string
		}{{d.Inputs, "inputs"}, {d.Output, "output"}} {
			if got, want := schemaViewOf(part.raw, tree.Get(part.name), ""), schemaViewOf(part.raw, nil, ""); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s %s: from the tree %+v, parsed again %+v", data, part.name, got, want)
			}
		}
	}
}

// TestSchemaViewsRemember checks that a remembered schema view is the one
// schemaViewOf makes, and that the memory stays bounded.
func TestSchemaViewsRemember(t *testing.T) {
	var c schemaViews
	for i := 0; i < 3*maxSchemaViews; i++ {
		raw := json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{"p%d":{"type":"string","maxLength":%d}},"required":["p%d"]}`, i%(maxSchemaViews+7), i, i%(maxSchemaViews+7)))
		for range 2 {
			if got, want := c.of(raw, nil), schemaViewOf(raw, nil, ""); !reflect.DeepEqual(got, want) {
				t.Fatalf("schema %d: got %+v, want %+v", i, got, want)
			}
		}
		if len(c.m) > maxSchemaViews {
			t.Fatalf("%d views remembered, want at most %d", len(c.m), maxSchemaViews)
		}
	}
	big := json.RawMessage(`{"description":"` + strings.Repeat("x", maxViewedSchema) + `"}`)
	if got, want := c.of(big, nil), schemaViewOf(big, nil, ""); !reflect.DeepEqual(got, want) {
		t.Fatalf("a large schema: got %+v, want %+v", got, want)
	}
	if _, ok := c.m[string(big)]; ok {
		t.Error("a schema larger than maxViewedSchema is remembered")
	}
}

// TestSchemaRowsRequired checks the Required flag of rows, with short and
// long "required" lists.
func TestSchemaRowsRequired(t *testing.T) {
	for _, n := range []int{0, 3, 16, 17, 40} {
		var props, req []string
		for i := 0; i < 40; i++ {
			props = append(props, fmt.Sprintf(`"p%d": {"type": "string"}`, i))
		}
		for i := 0; i < n; i++ {
			req = append(req, fmt.Sprintf(`"p%d"`, 2*i%41))
		}
		raw := json.RawMessage(`{"type": "object", "properties": {` + strings.Join(props, ",") + `}, "required": [` + strings.Join(req, ",") + `]}`)
		v := schemaViewOf(raw, nil, "")
		for i, r := range v.Rows {
			want := false
			for j := 0; j < n; j++ {
				want = want || 2*j%41 == i
			}
			if r.Required != want {
				t.Errorf("%d required: row %s: Required %v, want %v", n, r.Name, r.Required, want)
			}
		}
	}
}
