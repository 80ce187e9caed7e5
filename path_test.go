package skillcat_test

import (
	"strings"
	"testing"

	skillcat "github.com/skillcat/skillcat"
)

// TestDecodeErrorIndexes checks that decoding errors write array indexes
// as violations do, examples[0], not as member names.
func TestDecodeErrorIndexes(t *testing.T) {
	var d skillcat.SkillDescriptor
	err := d.UnmarshalJSON([]byte(`{"id": "a", "examples": [{"title": 5}]}`))
	if err == nil || !strings.Contains(err.Error(), "examples[0].title: must be a string") {
		t.Errorf("got %v; want an error at examples[0].title", err)
	}
}

// TestPathField checks that a path prints an array index as [0] and a
// member named "0" as ["0"], and that a JSON Pointer read against its
// document (Node.PathOf) tells the two apart.
func TestPathField(t *testing.T) {
	p := skillcat.Members("examples").Item(0).Member("inputs").Member("a b").Item(1)
	if got, want := p.Field(), `examples[0].inputs["a b"][1]`; got != want {
		t.Errorf("Field = %s; want %s", got, want)
	}
	if got, want := p.Pointer(), "/examples/0/inputs/a b/1"; got != want {
		t.Errorf("Pointer = %s; want %s", got, want)
	}
	if got := skillcat.Members("0").Field(); got != `["0"]` {
		t.Errorf(`a member named "0" = %s; want ["0"]`, got)
	}
	root, err := skillcat.ParseJSON([]byte(`{"examples": [{"inputs": {"a b": [1, 2]}}], "inputs": {"0": {"1": true}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ pointer, field string }{
		{"/examples/0/inputs/a b/1", `examples[0].inputs["a b"][1]`},
		{"/inputs/0/1", `inputs["0"]["1"]`},
		{"/examples/0/missing/0", `examples[0].missing["0"]`},
		{"/examples/01", `examples["01"]`},
	} {
		got := root.PathOf(skillcat.ParsePointer(c.pointer))
		if got.Field() != c.field || got.Pointer() != c.pointer {
			t.Errorf("PathOf(%s) = %s (%s); want %s", c.pointer, got.Field(), got.Pointer(), c.field)
		}
	}
	if n := root.At(skillcat.Members("examples").Item(0).Member("inputs")); n == nil || n.Kind != skillcat.Object {
		t.Errorf("At(examples[0].inputs) = %v; want the inputs object", n)
	}
	if n := root.At(skillcat.Members("examples", "0")); n != nil {
		t.Errorf(`At(examples["0"]) = %v; want nil: examples is an array, not an object`, n)
	}
	if n := root.At(skillcat.Members("inputs").Item(0)); n != nil {
		t.Errorf(`At(inputs[0]) = %v; want nil: inputs is an object, not an array`, n)
	}
}
