package mcp_test

import (
	"testing"

	"github.com/skillcat/skillcat/internal/importtest"
	"github.com/skillcat/skillcat/mcp"
)

// TestGolden imports whole documents in each form the package reads and
// compares every descriptor and warning with testdata/golden; each
// descriptor must validate, and a second import give the same bytes.
func TestGolden(t *testing.T) {
	importtest.Golden(t, mcp.Import, "current.json", "seed.json", "registry-list.json")
}
