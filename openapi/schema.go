package openapi

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"net/url"

	"github.com/getkin/kin-openapi/openapi3"
	skillcat "github.com/skillcat/skillcat"
)

// maxSchemaDepth bounds how deeply a converted schema nests; deeper parts
// become the empty schema, with a warning.
const maxSchemaDepth = 64

// componentPrefix is where the $refs that become $defs point.
const componentPrefix = "#/components/schemas/"

// schemaSet converts the schemas of one skill's inputs or output into JSON
// Schema 2020-12, collecting every component schema they refer to,
// directly or through each other, as $defs of the one root schema.
type schemaSet struct {
	doc    *document
	defs   map[string]any // component name → converted schema (nil while converting)
	order  []string
	stack  map[string]bool                       // $refs other than components being inlined now
	member string                                // the skill's member the schema is: inputs or output
	warn   func(at skillcat.Path, reason string) // at is the place in the skill
}

func newSchemaSet(doc *document, member string, warn func(at skillcat.Path, reason string)) *schemaSet {
	return &schemaSet{doc: doc, defs: map[string]any{}, stack: map[string]bool{}, member: member, warn: warn}
}

// ref converts a schema of the library's model. A nil schema is the empty
// schema, which allows anything.
func (s *schemaSet) ref(sr *openapi3.SchemaRef, at skillcat.Path) any {
	if sr == nil {
		return map[string]any{}
	}
	v, err := plain(sr)
	if err != nil {
		s.warn(at, "schema dropped: "+err.Error())
		return map[string]any{}
	}
	return s.convert(v, at, 0)
}

// root returns schema with the collected $defs added, for use as a whole
// inputs or output schema. The defs of a schema set are added once.
func (s *schemaSet) root(schema map[string]any) map[string]any {
	if len(s.defs) == 0 {
		return schema
	}
	defs := make(map[string]any, len(s.defs))
	for name, d := range s.defs {
		defs[name] = d
	}
	schema["$defs"] = defs
	return schema
}

// keywords are the JSON Schema 2020-12 keywords a converted schema keeps,
// and how each holds subschemas.
var keywords = map[string]int{
	"type": kwPlain, "enum": kwPlain, "const": kwPlain, "format": kwPlain,
	"title": kwPlain, "description": kwPlain, "default": kwPlain, "examples": kwPlain,
	"deprecated": kwPlain, "readOnly": kwPlain, "writeOnly": kwPlain,
	"multipleOf": kwPlain, "maximum": kwPlain, "minimum": kwPlain,
	"exclusiveMaximum": kwPlain, "exclusiveMinimum": kwPlain,
	"maxLength": kwPlain, "minLength": kwPlain, "pattern": kwPlain,
	"maxItems": kwPlain, "minItems": kwPlain, "uniqueItems": kwPlain,
	"maxContains": kwPlain, "minContains": kwPlain,
	"maxProperties": kwPlain, "minProperties": kwPlain, "required": kwPlain,
	"dependentRequired": kwPlain, "contentEncoding": kwPlain, "contentMediaType": kwPlain,
	"$comment": kwPlain, "$ref": kwPlain,
	"items": kwSchema, "additionalProperties": kwSchema, "not": kwSchema,
	"if": kwSchema, "then": kwSchema, "else": kwSchema, "contains": kwSchema,
	"propertyNames": kwSchema, "unevaluatedItems": kwSchema, "unevaluatedProperties": kwSchema,
	"contentSchema": kwSchema,
	"allOf":         kwList, "anyOf": kwList, "oneOf": kwList, "prefixItems": kwList,
	"properties": kwMap, "patternProperties": kwMap, "dependentSchemas": kwMap,
}

const (
	kwPlain = iota
	kwSchema
	kwList
	kwMap
)

// convert turns one OpenAPI schema, as plain JSON values, into JSON Schema
// 2020-12: 3.0's nullable, boolean exclusive bounds and example become
// their 2020-12 forms, OpenAPI-only keywords (discriminator, xml,
// externalDocs, x-…) are dropped, and $refs to component schemas point to
// $defs. at is the place of the schema in the skill, for warnings.
func (s *schemaSet) convert(v any, at skillcat.Path, depth int) any {
	switch v := v.(type) {
	case bool:
		return v
	case map[string]any:
		if depth > maxSchemaDepth {
			s.warn(at, fmt.Sprintf("schema nests deeper than %d levels; the deeper part allows anything", maxSchemaDepth))
			return map[string]any{}
		}
		return s.object(v, at, depth)
	}
	s.warn(at, fmt.Sprintf("schema is %s, not an object; it allows anything", kind(v)))
	return map[string]any{}
}

func (s *schemaSet) object(in map[string]any, at skillcat.Path, depth int) any {
	if ref, ok := in["$ref"].(string); ok {
		out := s.refTo(ref, at, depth)
		if !s.doc.v31 {
			return out // OpenAPI 3.0 ignores the members beside a $ref
		}
		rest := copyWithout(in, "$ref")
		if len(rest) == 0 {
			return out
		}
		conv, _ := s.object(rest, at, depth).(map[string]any)
		if m, ok := out.(map[string]any); ok {
			if r, ok := m["$ref"]; ok && conv != nil {
				conv["$ref"] = r
				return conv
			}
		}
		return map[string]any{"allOf": []any{out, conv}}
	}
	out := map[string]any{}
	for _, k := range sortedKeys(in) {
		val := in[k]
		kw, known := keywords[k]
		switch {
		case k == "example":
			if _, ok := in["examples"]; !ok {
				out["examples"] = []any{val}
			}
			continue
		case k == "nullable" || k == "exclusiveMinimum" || k == "exclusiveMaximum" || k == "minimum" || k == "maximum":
			continue // below
		case !known:
			continue // discriminator, xml, externalDocs, x-…, $id, $schema and the like
		}
		p := at.Member(k)
		switch kw {
		case kwPlain:
			if clean, ok := s.plainKeyword(k, val, p); ok {
				out[k] = clean
			}
		case kwSchema:
			out[k] = s.convert(val, p, depth+1)
		case kwList:
			list, ok := val.([]any)
			if !ok || len(list) == 0 {
				s.warn(p, k+" dropped: it must be a non-empty list of schemas")
				continue
			}
			conv := make([]any, len(list))
			for i, it := range list {
				conv[i] = s.convert(it, p.Item(i), depth+1)
			}
			out[k] = conv
		case kwMap:
			m, ok := val.(map[string]any)
			if !ok {
				s.warn(p, k+" dropped: it must be an object of schemas")
				continue
			}
			conv := make(map[string]any, len(m))
			for _, name := range sortedKeys(m) {
				conv[name] = s.convert(m[name], p.Member(name), depth+1)
			}
			out[k] = conv
		}
	}
	s.bounds(in, out)
	if t, ok := out["type"].(string); ok && t == "file" {
		out["type"] = "string"
		out["format"] = "binary"
	}
	if n, _ := in["nullable"].(bool); n && !s.doc.v31 {
		return nullable(out)
	}
	return out
}

// bounds writes minimum, maximum and the exclusive bounds in 2020-12 form:
// 3.0's exclusiveMinimum: true with minimum: 5 is exclusiveMinimum: 5.
func (s *schemaSet) bounds(in, out map[string]any) {
	for _, b := range [][2]string{{"minimum", "exclusiveMinimum"}, {"maximum", "exclusiveMaximum"}} {
		limit, hasLimit := in[b[0]].(json.Number)
		switch ex := in[b[1]].(type) {
		case bool:
			if ex && hasLimit {
				out[b[1]] = limit
				continue
			}
		case json.Number:
			out[b[1]] = ex
		}
		if hasLimit {
			out[b[0]] = limit
		}
	}
}

// plainKeyword checks the value of a keyword without subschemas, dropping
// one whose type JSON Schema does not allow.
func (s *schemaSet) plainKeyword(k string, v any, at skillcat.Path) (any, bool) {
	bad := func(want string) (any, bool) {
		s.warn(at, fmt.Sprintf("%s dropped: want %s, got %s", k, want, kind(v)))
		return nil, false
	}
	switch k {
	case "required":
		list, ok := v.([]any)
		if !ok {
			return bad("a list of names")
		}
		seen := map[string]bool{}
		var names []any
		for _, it := range list {
			if name, ok := it.(string); ok && !seen[name] {
				seen[name] = true
				names = append(names, name)
			}
		}
		if len(names) == 0 {
			return nil, false
		}
		return names, true
	case "enum", "examples":
		list, ok := v.([]any)
		if !ok {
			return bad("a list")
		}
		if len(list) == 0 {
			return nil, false
		}
		return list, true
	case "type":
		switch t := v.(type) {
		case string:
			if !jsonType(t) && t != "file" {
				return bad("a JSON type such as \"string\"")
			}
			return t, true
		case []any:
			var types []any
			seen := map[string]bool{}
			for _, it := range t {
				if name, ok := it.(string); ok && jsonType(name) && !seen[name] {
					seen[name] = true
					types = append(types, name)
				}
			}
			if len(types) == 0 {
				return bad("JSON types")
			}
			return types, true
		}
		return bad("a JSON type")
	case "multipleOf", "maxLength", "minLength", "maxItems", "minItems", "maxProperties", "minProperties", "maxContains", "minContains":
		n, ok := v.(json.Number)
		if !ok {
			return bad("a number")
		}
		if f, err := n.Float64(); err != nil || f < 0 || (k == "multipleOf" && f == 0) {
			return bad("a positive number")
		}
		return n, true
	case "format", "title", "description", "pattern", "contentEncoding", "contentMediaType", "$comment", "$ref":
		if _, ok := v.(string); !ok {
			return bad("a string")
		}
	case "deprecated", "readOnly", "writeOnly", "uniqueItems":
		if _, ok := v.(bool); !ok {
			return bad("true or false")
		}
	case "dependentRequired":
		if _, ok := v.(map[string]any); !ok {
			return bad("an object")
		}
	}
	return v, true
}

func jsonType(t string) bool {
	switch t {
	case "string", "number", "integer", "boolean", "object", "array", "null":
		return true
	}
	return false
}

// nullable adds null to what a converted 3.0 schema allows.
func nullable(out map[string]any) any {
	switch t := out["type"].(type) {
	case string:
		out["type"] = []any{t, "null"}
	case []any:
		out["type"] = append(t, "null")
	default:
		if _, ok := out["$ref"]; ok {
			return map[string]any{"anyOf": []any{out, map[string]any{"type": "null"}}}
		}
		return out // without a type, null is allowed already
	}
	if enum, ok := out["enum"].([]any); ok {
		out["enum"] = append(enum, nil)
	}
	return out
}

// refTo converts a $ref. A ref to a component schema becomes a ref to the
// $defs member of that name, converted once however often it is used (so
// cycles end); any other ref inside the document is followed and inlined,
// and one that loops, or that points nowhere, allows anything.
func (s *schemaSet) refTo(ref string, at skillcat.Path, depth int) any {
	if name, ok := strings.CutPrefix(ref, componentPrefix); ok && !strings.Contains(name, "/") {
		name = unescape(name)
		if _, seen := s.defs[name]; !seen {
			target, ok := s.component(name)
			if !ok {
				s.warn(at, fmt.Sprintf("$ref %q points to no schema; it allows anything", ref))
				return map[string]any{}
			}
			s.defs[name] = nil
			s.order = append(s.order, name)
			s.defs[name] = s.convert(target, skillcat.Members(s.member, "$defs", name), 0)
		}
		return map[string]any{"$ref": "#/$defs/" + escape(name)}
	}
	if !strings.HasPrefix(ref, "#") {
		s.warn(at, fmt.Sprintf("$ref %q points outside the document; it allows anything", ref))
		return map[string]any{}
	}
	if s.stack[ref] {
		s.warn(at, fmt.Sprintf("$ref %q refers to itself; the inner use allows anything", ref))
		return map[string]any{}
	}
	target, ok := lookup(s.doc.raw, ref)
	if !ok {
		s.warn(at, fmt.Sprintf("$ref %q points to nothing in the document; it allows anything", ref))
		return map[string]any{}
	}
	s.stack[ref] = true
	defer delete(s.stack, ref)
	return s.convert(target, at, depth+1)
}

// component returns the named component schema as plain JSON values.
func (s *schemaSet) component(name string) (any, bool) {
	if c := s.doc.t.Components; c != nil {
		if sr, ok := c.Schemas[name]; ok && sr != nil {
			if sr.Ref != "" && sr.Ref != componentPrefix+escape(name) {
				return map[string]any{"$ref": sr.Ref}, true
			}
			if sr.Value != nil {
				v, err := plain(sr.Value)
				return v, err == nil
			}
		}
	}
	return lookup(s.doc.raw, componentPrefix+escape(name))
}

// lookup resolves a "#/…" JSON Pointer reference in a plain JSON value.
func lookup(doc any, ref string) (any, bool) {
	ptr := strings.TrimPrefix(ref, "#")
	if ptr == "" {
		return doc, true
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, false
	}
	cur := doc
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = unescape(tok)
		switch c := cur.(type) {
		case map[string]any:
			next, ok := c[tok]
			if !ok {
				return nil, false
			}
			cur = next
		case []any:
			var i int
			if _, err := fmt.Sscanf(tok, "%d", &i); err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// escape and unescape a JSON Pointer token; unescape also undoes the
// percent-encoding a URI fragment may use.
func escape(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

func unescape(tok string) string {
	if strings.Contains(tok, "%") {
		if u, err := urlUnescape(tok); err == nil {
			tok = u
		}
	}
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
}

func copyWithout(m map[string]any, key string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if k != key {
			out[k] = v
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// kind names the JSON type of a plain value.
func kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number, float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func urlUnescape(s string) (string, error) { return url.PathUnescape(s) }
