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

// TestPathFieldOf checks Path.FieldOf, the formatting of a path whose
// document is not at hand, against Path.Field on the document.
func TestPathFieldOf(t *testing.T) {
	p := skillcat.Path{"examples", "0", "inputs", "a b", "1"}
	if got, want := p.FieldOf([]bool{false, true, false, false, true}), `examples[0].inputs["a b"][1]`; got != want {
		t.Errorf("FieldOf = %s; want %s", got, want)
	}
	root, err := skillcat.ParseJSON([]byte(`{"examples": [{"inputs": {"a b": [1, 2]}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.Field(root), `examples[0].inputs["a b"][1]`; got != want {
		t.Errorf("Field = %s; want %s", got, want)
	}
	if got := (skillcat.Path{"0"}).FieldOf(nil); got != `["0"]` {
		t.Errorf(`a member named "0" = %s; want ["0"]`, got)
	}
}
