package build

import (
	"encoding/json"
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
