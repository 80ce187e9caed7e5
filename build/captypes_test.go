package build

import (
	"testing"

	skillcat "github.com/skillcat/skillcat"
)

// TestCapabilityTypesPages ties the pages' words for each capability type
// to skillcat.CapabilityTypes: every type has a heading word and a note,
// and there are no words for a type that does not exist.
func TestCapabilityTypesPages(t *testing.T) {
	for _, c := range skillcat.CapabilityTypes {
		if w, ok := typeWords[c]; !ok || w.title == "" || w.note == "" {
			t.Errorf("capability type %q has no heading word or note for the pages", c)
		}
	}
	if len(typeWords) != len(skillcat.CapabilityTypes) {
		t.Errorf("the pages have words for %d capability types; skillcat.CapabilityTypes has %d", len(typeWords), len(skillcat.CapabilityTypes))
	}
}
