package openapi_test

import (
	"testing"

	"github.com/skillcat/skillcat/internal/importtest"
	"github.com/skillcat/skillcat/openapi"
)

// TestGolden imports whole documents: a Petstore-like 3.0 spec, a 3.1
// spec with $ref cycles and oneOf, a spec with every security scheme, and
// the same Petstore as Swagger 2.0 and as JSON. Each descriptor must
// validate, and a second import give the same bytes.
func TestGolden(t *testing.T) {
	importtest.Golden(t, openapi.Import, "petstore.yaml", "cycles31.yaml", "security.yaml", "swagger2.json")
}
