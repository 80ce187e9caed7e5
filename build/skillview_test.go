package build

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
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
		schemaViewOf(raw)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("rendering the schema table did not finish in 30 s")
	}
}

// TestSchemaViewsRemember checks that a remembered schema view is the one
// schemaViewOf makes, and that the memory stays bounded.
func TestSchemaViewsRemember(t *testing.T) {
	var c schemaViews
	for i := 0; i < 3*maxSchemaViews; i++ {
		raw := json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{"p%d":{"type":"string","maxLength":%d}},"required":["p%d"]}`, i%(maxSchemaViews+7), i, i%(maxSchemaViews+7)))
		for range 2 {
			if got, want := c.of(raw), schemaViewOf(raw); !reflect.DeepEqual(got, want) {
				t.Fatalf("schema %d: got %+v, want %+v", i, got, want)
			}
		}
		if len(c.m) > maxSchemaViews {
			t.Fatalf("%d views remembered, want at most %d", len(c.m), maxSchemaViews)
		}
	}
	big := json.RawMessage(`{"description":"` + strings.Repeat("x", maxViewedSchema) + `"}`)
	if got, want := c.of(big), schemaViewOf(big); !reflect.DeepEqual(got, want) {
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
		v := schemaViewOf(raw)
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
