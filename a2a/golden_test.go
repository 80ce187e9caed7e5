package a2a_test

import (
	"testing"

	"github.com/skillcat/skillcat/a2a"
	"github.com/skillcat/skillcat/internal/importtest"
)

// TestGolden imports whole documents in each form the package reads and
// compares every descriptor and warning with testdata/golden; each
// descriptor must validate, and a second import give the same bytes.
func TestGolden(t *testing.T) {
	importtest.Golden(t, a2a.Import, "current.json", "legacy.json")
}
