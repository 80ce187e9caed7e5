package skillcat

import (
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

// metaValid reports whether the schema n (a draft 2020-12 document at the
// root of its own resource) is certainly valid against the draft 2020-12
// metaschema. False means "not known", not "invalid". It reads every
// member of each object, duplicates included, so that true holds for the
// value Node.Value gives too (its last member of a name).
func metaValid(n *Node) bool { return metaSchemaValid(n, true) }

// metaSchemaValid checks one schema position: an object or a boolean.
func metaSchemaValid(n *Node, root bool) bool {
	switch n.Kind {
	case Bool:
		return true
	case Object:
		for _, m := range n.Members {
			if !metaKeywordValid(m.Name, m.Value, root) {
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
func metaKeywordValid(k string, v *Node, root bool) bool {
	switch k {
	case "$schema":
		return root && v.Kind == String && v.Text == draft2020
	case "$ref":
		return v.Kind == String && localRef(v.Text)
	case "$id", "$anchor", "$dynamicRef", "$dynamicAnchor", "$vocabulary", "$recursiveAnchor", "$recursiveRef":
		return false // they change how references resolve: the library decides
	case "$comment", "title", "description", "format", "contentEncoding", "contentMediaType":
		return v.Kind == String
	case "deprecated", "readOnly", "writeOnly", "uniqueItems":
		return v.Kind == Bool
	case "const", "default":
		return true
	case "enum", "examples":
		return v.Kind == Array
	case "items", "contains", "additionalProperties", "propertyNames", "if", "then", "else", "not",
		"unevaluatedItems", "unevaluatedProperties", "contentSchema":
		return metaSchemaValid(v, false)
	case "prefixItems", "allOf", "anyOf", "oneOf":
		if v.Kind != Array || len(v.Items) == 0 {
			return false
		}
		for _, s := range v.Items {
			if !metaSchemaValid(s, false) {
				return false
			}
		}
		return true
	case "properties", "$defs", "definitions", "dependentSchemas", "patternProperties":
		if v.Kind != Object {
			return false
		}
		for _, m := range v.Members {
			if k == "patternProperties" && !validRegexp(m.Name) || !metaSchemaValid(m.Value, false) {
				return false
			}
		}
		return true
	case "dependencies":
		if v.Kind != Object {
			return false
		}
		for _, m := range v.Members {
			if d := m.Value; d.Kind == Array && !uniqueStrings(d) || d.Kind != Array && !metaSchemaValid(d, false) {
				return false
			}
		}
		return true
	case "type":
		if v.Kind == String {
			return simpleType(v.Text)
		}
		if v.Kind != Array || len(v.Items) == 0 || !uniqueStrings(v) {
			return false
		}
		for _, t := range v.Items {
			if !simpleType(t.Text) {
				return false
			}
		}
		return true
	case "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum":
		return v.Kind == Number
	case "multipleOf":
		return v.Kind == Number && plainPositive(v.Text)
	case "maxLength", "minLength", "maxItems", "minItems", "maxContains", "minContains", "maxProperties", "minProperties":
		return v.Kind == Number && digits(v.Text)
	case "pattern":
		return v.Kind == String && validRegexp(v.Text)
	case "required":
		return uniqueStrings(v)
	case "dependentRequired":
		if v.Kind != Object {
			return false
		}
		for _, m := range v.Members {
			if !uniqueStrings(m.Value) {
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

// uniqueStrings reports whether n is an array of distinct strings.
func uniqueStrings(n *Node) bool {
	if n.Kind != Array {
		return false
	}
	for i, x := range n.Items {
		if x.Kind != String {
			return false
		}
		if len(n.Items) <= 16 {
			for _, y := range n.Items[:i] {
				if y.Text == x.Text {
					return false
				}
			}
		}
	}
	if len(n.Items) <= 16 {
		return true
	}
	seen := make(map[string]bool, len(n.Items))
	for _, x := range n.Items {
		if seen[x.Text] {
			return false
		}
		seen[x.Text] = true
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
