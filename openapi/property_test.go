package openapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/internal/importtest"
	"github.com/skillcat/skillcat/openapi"
	"pgregory.net/rapid"
)

// genSchema draws an OpenAPI 3.0 schema: scalars with constraints and
// examples that may not fit them, objects, arrays, nullable values, and
// $refs to the document's components (which may refer to each other, so
// cycles happen).
func genSchema(t *rapid.T, depth int, components []string) map[string]any {
	kinds := []string{"string", "integer", "number", "boolean", "object", "array", "ref", "oneOf"}
	if depth > 2 {
		kinds = kinds[:4]
	}
	if len(components) == 0 && depth <= 2 {
		kinds = kinds[:6]
	}
	k := rapid.SampledFrom(kinds).Draw(t, "kind")
	s := map[string]any{}
	switch k {
	case "ref":
		return map[string]any{"$ref": "#/components/schemas/" + rapid.SampledFrom(components).Draw(t, "ref")}
	case "oneOf":
		s["oneOf"] = []any{genSchema(t, depth+1, components), genSchema(t, depth+1, components)}
	case "string":
		s["type"] = "string"
		if rapid.Bool().Draw(t, "enum") {
			s["enum"] = []any{"a", "b"}
		}
		if rapid.Bool().Draw(t, "pattern") {
			s["pattern"] = rapid.SampledFrom([]string{"^[a-z]+$", "(?<=x)y", "[", "\\d{3}"}).Draw(t, "re")
		}
		if rapid.Bool().Draw(t, "format") {
			s["format"] = rapid.SampledFrom([]string{"date-time", "email", "uuid", "int64", "binary", "made-up"}).Draw(t, "fmt")
		}
	case "integer", "number":
		s["type"] = k
		if rapid.Bool().Draw(t, "min") {
			s["minimum"] = rapid.IntRange(-5, 5).Draw(t, "minv")
			s["exclusiveMinimum"] = rapid.Bool().Draw(t, "exmin")
		}
	case "boolean":
		s["type"] = "boolean"
	case "object":
		s["type"] = "object"
		props := map[string]any{}
		var req []any
		for i, n := 0, rapid.IntRange(0, 3).Draw(t, "props"); i < n; i++ {
			name := rapid.SampledFrom([]string{"id", "name", "x-y", "$odd", "über", "a b"}).Draw(t, "prop")
			props[name] = genSchema(t, depth+1, components)
			if rapid.Bool().Draw(t, "req") {
				req = append(req, name)
			}
		}
		s["properties"] = props
		if len(req) > 0 {
			s["required"] = req
		}
	case "array":
		s["type"] = "array"
		s["items"] = genSchema(t, depth+1, components)
	}
	if rapid.Bool().Draw(t, "nullable") {
		s["nullable"] = true
	}
	if rapid.Bool().Draw(t, "example") {
		s["example"] = rapid.SampledFrom([]any{"text", 3, true, nil, map[string]any{"id": 1}, []any{1}}).Draw(t, "ex")
	}
	if rapid.Bool().Draw(t, "ext") {
		s["x-extra"] = map[string]any{"any": "thing"}
	}
	return s
}

// genDocument draws an OpenAPI 3.0 document with a few operations.
func genDocument(t *rapid.T) map[string]any {
	components := []string{}
	schemas := map[string]any{}
	for i, n := 0, rapid.IntRange(0, 3).Draw(t, "components"); i < n; i++ {
		components = append(components, fmt.Sprintf("C%d", i))
	}
	for _, c := range components {
		schemas[c] = genSchema(t, 1, components)
	}
	schemes := map[string]any{
		"key":    map[string]any{"type": "apiKey", "in": rapid.SampledFrom([]string{"header", "query", "cookie"}).Draw(t, "in"), "name": "K"},
		"bearer": map[string]any{"type": "http", "scheme": rapid.SampledFrom([]string{"bearer", "basic", "digest"}).Draw(t, "scheme")},
		"oauth":  map[string]any{"type": "oauth2", "flows": map[string]any{"clientCredentials": map[string]any{"tokenUrl": rapid.SampledFrom([]string{"https://id.example.org/token", "/token", ""}).Draw(t, "token"), "scopes": map[string]any{"r": "Read"}}}},
		"oidc":   map[string]any{"type": "openIdConnect", "openIdConnectUrl": "https://id.example.org/.well-known/openid-configuration"},
	}
	paths := map[string]any{}
	for i, n := 0, rapid.IntRange(1, 4).Draw(t, "paths"); i < n; i++ {
		path := rapid.SampledFrom([]string{"/items", "/items/{id}", "/a/{b}/c/{d}", "/ünï/{x}", "/q"}).Draw(t, "path")
		item, _ := paths[path].(map[string]any)
		if item == nil {
			item = map[string]any{}
			paths[path] = item
		}
		method := rapid.SampledFrom([]string{"get", "post", "put", "patch", "delete", "head"}).Draw(t, "method")
		op := map[string]any{}
		if rapid.Bool().Draw(t, "opid") {
			op["operationId"] = rapid.SampledFrom([]string{"listItems", "get_item", "Do Thing!", "x"}).Draw(t, "id")
		}
		if rapid.Bool().Draw(t, "summary") {
			op["summary"] = rapid.SampledFrom([]string{"Get things", "  ", "<b>bold</b> & more", "Ünïcode ✓"}).Draw(t, "sum")
		}
		var params []any
		for _, seg := range []string{"id", "b", "d", "x"} {
			if bytes.Contains([]byte(path), []byte("{"+seg+"}")) {
				p := map[string]any{"name": seg, "in": "path", "required": true, "schema": genSchema(t, 2, components)}
				if rapid.Bool().Draw(t, "pex") {
					p["example"] = rapid.SampledFrom([]any{"abc", 7, false}).Draw(t, "pexv")
				}
				params = append(params, p)
			}
		}
		for j, m := 0, rapid.IntRange(0, 2).Draw(t, "params"); j < m; j++ {
			params = append(params, map[string]any{
				"name":     rapid.SampledFrom([]string{"limit", "q", "X-Trace", "body", "sid"}).Draw(t, "pname"),
				"in":       rapid.SampledFrom([]string{"query", "header", "cookie"}).Draw(t, "pin"),
				"required": rapid.Bool().Draw(t, "preq"),
				"schema":   genSchema(t, 2, components),
			})
		}
		op["parameters"] = params
		if method != "get" && rapid.Bool().Draw(t, "body") {
			media := map[string]any{"schema": genSchema(t, 1, components)}
			if rapid.Bool().Draw(t, "bex") {
				media["examples"] = map[string]any{"one": map[string]any{"summary": "One", "value": rapid.SampledFrom([]any{map[string]any{"id": 1}, "s", 2}).Draw(t, "bexv")}}
			}
			op["requestBody"] = map[string]any{"required": rapid.Bool().Draw(t, "breq"), "content": map[string]any{
				rapid.SampledFrom([]string{"application/json", "application/merge-patch+json", "multipart/form-data", "text/plain"}).Draw(t, "bmt"): media}}
		}
		code := rapid.SampledFrom([]string{"200", "201", "204", "2XX", "default", "404"}).Draw(t, "code")
		resp := map[string]any{"description": "r"}
		if code != "204" && rapid.Bool().Draw(t, "rcontent") {
			resp["content"] = map[string]any{"application/json": map[string]any{"schema": genSchema(t, 1, components)}}
		}
		op["responses"] = map[string]any{code: resp}
		switch rapid.IntRange(0, 3).Draw(t, "security") {
		case 1:
			op["security"] = []any{map[string]any{rapid.SampledFrom([]string{"key", "bearer", "oauth", "oidc", "undefined"}).Draw(t, "sch"): []any{}}}
		case 2:
			op["security"] = []any{map[string]any{}, map[string]any{"key": []any{}, "oauth": []any{"r"}}}
		case 3:
			op["security"] = []any{}
		}
		if rapid.Bool().Draw(t, "tags") {
			op["tags"] = []any{"Pets", "pets", "Ünicode Tag", "!!"}
		}
		item[method] = op
	}
	doc := map[string]any{
		"openapi":    "3.0.3",
		"info":       map[string]any{"title": rapid.SampledFrom([]string{"Pet API", "", "Ünïcode Service"}).Draw(t, "title"), "version": rapid.SampledFrom([]string{"1.0.0", "2", "v3.1-beta", "2021-01-01", ""}).Draw(t, "version")},
		"paths":      paths,
		"components": map[string]any{"schemas": schemas, "securitySchemes": schemes},
	}
	if rapid.Bool().Draw(t, "servers") {
		doc["servers"] = []any{map[string]any{"url": rapid.SampledFrom([]string{"https://api.pets.io/v1", "/relative", "https://{region}.pets.io", "http://localhost:8080/"}).Draw(t, "url")}}
	}
	return doc
}

// TestPropertyImport: any generated OpenAPI operation imports into a
// source that validates (the protocol's own ParseDescriptor), and
// importing twice gives identical bytes.
func TestPropertyImport(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		doc := genDocument(t)
		data, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		first := encodeAll(t, data)
		if second := encodeAll(t, data); !bytes.Equal(first, second) {
			t.Fatalf("a second import gave other bytes")
		}
	})
}

// encodeAll imports data and renders what it made (importtest.Render),
// or returns nil for a document with nothing to import.
func encodeAll(t *rapid.T, data []byte) []byte {
	im, err := openapi.Import("gen.json", data, skillcat.ImportOptions{})
	if err != nil {
		// A document with only HEAD operations has nothing to import.
		if vs, ok := skillcat.AsViolations(err); ok && len(vs) == 1 && bytes.Contains([]byte(vs[0].Reason), []byte("no operation a skill can describe")) {
			return nil
		}
		t.Fatalf("import: %v\n%s", err, data)
	}
	return importtest.Render(t, im)
}
