package skillcat

import (
	"encoding/json"
	"net/url"
	"strings"
)

// Compiling a skill's schema with jsonschema/v6 first validates it against
// the draft 2020-12 metaschema, an interpreted walk over the metaschema's
// seven vocabularies that costs several times the compilation itself, and
// the library has no option to skip it. metaValid decides the same question
// directly for the schemas real catalogs write: it answers true only when
// the metaschema check is certain to pass, and false for anything it does
// not fully understand (an "$id", an "$anchor", a "$ref" that leaves the
// document, a number it cannot read at a glance), which then takes the
// library's own path, messages and all. TestMetaValidAgrees holds it to
// the library on generated, invalid and hostile schemas.

// draft2020 is the one "$schema" value metaValid accepts: the draft a
// skill's schema has when it names none.
const draft2020 = "https://json-schema.org/draft/2020-12/schema"

// trustedSchemaURL is the base under which a schema that metaValid accepted
// is compiled. jsonschema/v6 does not check a document whose URL lies on
// json-schema.org against the metaschema (it takes it for a metaschema of
// its own, roots.addRoot), so compiling there skips only the check that
// metaValid has already made. It never reaches a message: a schema that
// fails to compile there is compiled again under userSchemaURL.
const trustedSchemaURL = "https://json-schema.org/skill.invalid/descriptor/"

// metaValid reports whether doc, a schema in the form Node.Value gives
// (a draft 2020-12 document at the root of its own resource), is certainly
// valid against the draft 2020-12 metaschema. False means "not known",
// not "invalid".
func metaValid(doc any) bool { return metaSchemaValid(doc, true) }

// metaSchemaValid checks one schema position: an object or a boolean.
func metaSchemaValid(v any, root bool) bool {
	switch v := v.(type) {
	case bool:
		return true
	case map[string]any:
		for k, val := range v {
			if !metaKeywordValid(k, val, root) {
				return false
			}
		}
		return true
	}
	return false
}

// metaKeywordValid checks one member of a schema object against what the
// metaschema (its vocabularies and the top schema's legacy keywords) says
// of that keyword. A name that is no keyword of the metaschema is not
// checked by it, so any value passes.
func metaKeywordValid(k string, v any, root bool) bool {
	switch k {
	case "$schema":
		return root && v == any(draft2020)
	case "$ref":
		s, ok := v.(string)
		return ok && localRef(s)
	case "$id", "$anchor", "$dynamicRef", "$dynamicAnchor", "$vocabulary", "$recursiveAnchor", "$recursiveRef":
		return false // they change how references resolve: the library decides
	case "$comment", "title", "description", "format", "contentEncoding", "contentMediaType":
		_, ok := v.(string)
		return ok
	case "deprecated", "readOnly", "writeOnly", "uniqueItems":
		_, ok := v.(bool)
		return ok
	case "const", "default":
		return true
	case "enum", "examples":
		_, ok := v.([]any)
		return ok
	case "items", "contains", "additionalProperties", "propertyNames", "if", "then", "else", "not",
		"unevaluatedItems", "unevaluatedProperties", "contentSchema":
		return metaSchemaValid(v, false)
	case "prefixItems", "allOf", "anyOf", "oneOf":
		a, ok := v.([]any)
		if !ok || len(a) == 0 {
			return false
		}
		for _, s := range a {
			if !metaSchemaValid(s, false) {
				return false
			}
		}
		return true
	case "properties", "$defs", "definitions", "dependentSchemas", "patternProperties":
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		for name, s := range m {
			if k == "patternProperties" && !validRegexp(name) || !metaSchemaValid(s, false) {
				return false
			}
		}
		return true
	case "dependencies":
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		for _, d := range m {
			if _, isArray := d.([]any); isArray && !uniqueStrings(d) || !isArray && !metaSchemaValid(d, false) {
				return false
			}
		}
		return true
	case "type":
		if s, ok := v.(string); ok {
			return simpleType(s)
		}
		a, ok := v.([]any)
		if !ok || len(a) == 0 || !uniqueStrings(v) {
			return false
		}
		for _, t := range a {
			if !simpleType(t.(string)) {
				return false
			}
		}
		return true
	case "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum":
		_, ok := v.(json.Number)
		return ok
	case "multipleOf":
		n, ok := v.(json.Number)
		return ok && plainPositive(string(n))
	case "maxLength", "minLength", "maxItems", "minItems", "maxContains", "minContains", "maxProperties", "minProperties":
		n, ok := v.(json.Number)
		return ok && digits(string(n))
	case "pattern":
		s, ok := v.(string)
		return ok && validRegexp(s)
	case "required":
		return uniqueStrings(v)
	case "dependentRequired":
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		for _, r := range m {
			if !uniqueStrings(r) {
				return false
			}
		}
		return true
	}
	return true
}

// localRef reports whether a "$ref" is a reference inside the document
// ("#", "#/$defs/x") that the metaschema's uri-reference format accepts,
// judged as the library judges it (no backslash; net/url parses it).
func localRef(s string) bool {
	if !strings.HasPrefix(s, "#") || strings.Contains(s, `\`) {
		return false
	}
	_, err := url.Parse(s)
	return err == nil
}

// validRegexp reports whether s passes the metaschema's "regex" format,
// which jsonschema/v6 checks by compiling it with regexp.
func validRegexp(s string) bool {
	_, err := compiledPattern(s)
	return err == nil
}

func simpleType(s string) bool {
	switch s {
	case "array", "boolean", "integer", "null", "number", "object", "string":
		return true
	}
	return false
}

// uniqueStrings reports whether v is an array of distinct strings.
func uniqueStrings(v any) bool {
	a, ok := v.([]any)
	if !ok {
		return false
	}
	seen := make(map[string]bool, len(a))
	for _, x := range a {
		s, ok := x.(string)
		if !ok || seen[s] {
			return false
		}
		seen[s] = true
	}
	return true
}

// digits reports whether a number literal is a plain non-negative integer
// (so certainly a non-negative integer to the metaschema).
func digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// plainPositive reports whether a number literal is a plain decimal
// (digits, an optional fraction, no sign or exponent) above zero.
func plainPositive(s string) bool {
	whole, frac, dot := strings.Cut(s, ".")
	if !digits(whole) || dot && !digits(frac) {
		return false
	}
	return strings.Trim(whole+frac, "0") != ""
}
