package skillcat

import (
	"encoding/json"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// A descriptor's examples are checked against its own inputs and output
// schemas. Compiling those schemas with jsonschema/v6 (a walk over the
// document for its resources, then a compiled schema object per
// subschema) costs far more than the check itself, and every example of a
// valid catalog passes. examplesValid answers the question directly for
// the schemas real catalogs write: true only when the library's path
// (compile, then validate every example within the budget) is certain to
// report nothing, and false for anything else, a failing example included,
// which then takes that path, messages and all. So a fast answer can only
// ever be "no violations", and only where the library would say the same.
//
// It reads a schema only when metaValid vouches for it and every keyword
// in it is one whose meaning it knows: no "$ref" anywhere, "$defs"
// included (so no recursion and no reference to resolve), no
// "unevaluated…" keywords, no legacy "dependencies". TestExampleCheckAgrees holds it to the library on
// generated schemas and instances, and FuzzExampleCheck on any.

// examplesValid reports whether checkSkillSchemas is certain to find no
// violation in the descriptor root, whose Value() is val.
func examplesValid(root *Node, val any) bool {
	m, ok := val.(map[string]any)
	if !ok {
		return false
	}
	var inputs, output *quickSchema
	if n := root.Get("inputs"); n != nil && n.Kind == Object && objectTyped(n) {
		if inputs = newQuickSchema(n, m["inputs"]); inputs == nil {
			return false
		}
	}
	if n := root.Get("output"); n != nil && (n.Kind == Object || n.Kind == Bool) {
		if output = newQuickSchema(n, m["output"]); output == nil {
			return false
		}
	}
	steps := 0
	return eachExample(root, m, func(_ int, part string, _ *Node, val any) bool {
		s := inputs
		if part == "output" {
			s = output
		}
		return s == nil || s.check(val, &steps)
	})
}

// quickSchema is a skill schema examplesValid can read: doc in the form
// Node.Value gives, and the number of its schema positions.
type quickSchema struct {
	doc   any
	nodes int
}

// newQuickSchema returns the schema n (whose Value() is doc) when the
// library compiles it cleanly for certain and every keyword in it is one
// schemaAccepts reads, and nil otherwise.
func newQuickSchema(n *Node, doc any) *quickSchema {
	if countValues(n, MaxSchemaValues) > MaxSchemaValues || !metaValid(doc) {
		return nil
	}
	nodes := 0
	if !quickReadable(doc, &nodes) {
		return nil
	}
	return &quickSchema{doc: doc, nodes: nodes}
}

// check reports whether the schema certainly accepts v, adding to *steps
// a bound from above of the library's budget steps for it (budget.charge
// applies each subschema of a schema without "$ref" at most once to each
// value and member name of the instance); false past MaxValidationSteps.
func (q *quickSchema) check(v any, steps *int) bool {
	*steps += q.nodes * instanceSize(v)
	return *steps <= MaxValidationSteps && schemaAccepts(q.doc, v)
}

// instanceSize counts the values of v and its member names.
func instanceSize(v any) int {
	switch v := v.(type) {
	case map[string]any:
		n := 1
		for _, m := range v {
			n += 1 + instanceSize(m)
		}
		return n
	case []any:
		n := 1
		for _, it := range v {
			n += instanceSize(it)
		}
		return n
	}
	return 1
}

// quickReadable reports whether the schema position s holds only keywords
// schemaAccepts reads (or that the library ignores in a draft 2020-12
// schema), with values it reads as the library does; it counts the schema
// positions into *nodes. metaValid has already checked the keywords'
// shapes.
func quickReadable(s any, nodes *int) bool {
	*nodes++
	m, ok := s.(map[string]any)
	if !ok {
		_, ok := s.(bool)
		return ok
	}
	for k, v := range m {
		switch k {
		case "$ref", "$dynamicRef", "$recursiveRef", "$id", "$anchor", "$dynamicAnchor", "$recursiveAnchor",
			"$vocabulary", "unevaluatedItems", "unevaluatedProperties", "dependencies":
			return false
		case "maxLength", "minLength", "maxItems", "minItems", "maxContains", "minContains", "maxProperties", "minProperties":
			// The library reads these through int64; keep to numbers no
			// conversion can change.
			if n, ok := v.(json.Number); !ok || len(n) > 15 {
				return false
			}
		case "pattern":
			if !quickPattern(v.(string)) {
				return false
			}
		case "items", "contains", "additionalProperties", "propertyNames", "if", "then", "else", "not", "contentSchema":
			if !quickReadable(v, nodes) {
				return false
			}
		case "prefixItems", "allOf", "anyOf", "oneOf":
			for _, sub := range v.([]any) {
				if !quickReadable(sub, nodes) {
					return false
				}
			}
		case "properties", "dependentSchemas", "patternProperties", "$defs", "definitions":
			for name, sub := range v.(map[string]any) {
				if k == "patternProperties" && !quickPattern(name) {
					return false
				}
				if !quickReadable(sub, nodes) {
					return false
				}
			}
		}
	}
	return true
}

// quickPattern reports whether a pattern compiles and is short enough for
// patterns to keep, so that checking many values against it compiles it
// once.
func quickPattern(s string) bool {
	_, err := compiledPattern(s)
	return err == nil && len(s) <= maxCachedPattern
}

// schemaAccepts reports whether the schema position s, which
// quickReadable accepted, accepts the instance v as jsonschema/v6 judges
// it (formats and contents not asserted, as the library compiles a skill's
// schema).
func schemaAccepts(s any, v any) bool {
	m, ok := s.(map[string]any)
	if !ok {
		return s == true
	}
	for k, kv := range m {
		if !keywordAccepts(m, k, kv, v) {
			return false
		}
	}
	return true
}

// keywordAccepts applies the keyword k of schema m, with value kv, to v.
// Keywords that only annotate, or that the library does not know, accept
// everything.
func keywordAccepts(m map[string]any, k string, kv, v any) bool {
	switch k {
	case "type":
		return typeAccepts(kv, v)
	case "const":
		return jsonEqual(v, kv)
	case "enum":
		for _, e := range kv.([]any) {
			if jsonEqual(v, e) {
				return true
			}
		}
		return false
	case "allOf":
		for _, sub := range kv.([]any) {
			if !schemaAccepts(sub, v) {
				return false
			}
		}
		return true
	case "anyOf":
		for _, sub := range kv.([]any) {
			if schemaAccepts(sub, v) {
				return true
			}
		}
		return false
	case "oneOf":
		matched := 0
		for _, sub := range kv.([]any) {
			if schemaAccepts(sub, v) {
				matched++
			}
		}
		return matched == 1
	case "not":
		return !schemaAccepts(kv, v)
	case "if":
		if schemaAccepts(kv, v) {
			then, ok := m["then"]
			return !ok || schemaAccepts(then, v)
		}
		els, ok := m["else"]
		return !ok || schemaAccepts(els, v)
	}
	switch v := v.(type) {
	case string:
		return stringKeywordAccepts(k, kv, v)
	case json.Number:
		return numberKeywordAccepts(k, kv, v)
	case []any:
		return arrayKeywordAccepts(m, k, kv, v)
	case map[string]any:
		return objectKeywordAccepts(m, k, kv, v)
	}
	return true
}

func stringKeywordAccepts(k string, kv any, v string) bool {
	switch k {
	case "minLength":
		return utf8.RuneCountInString(v) >= intOf(kv)
	case "maxLength":
		return utf8.RuneCountInString(v) <= intOf(kv)
	case "pattern":
		re, err := compiledPattern(kv.(string))
		return err == nil && re.MatchString(v)
	}
	return true
}

func numberKeywordAccepts(k string, kv any, v json.Number) bool {
	switch k {
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf":
	default:
		return true
	}
	if limit, ok := smallInt(kv); ok && (limit != 0 || k != "multipleOf") {
		if n, ok := smallInt(v); ok {
			switch k {
			case "minimum":
				return n >= limit
			case "maximum":
				return n <= limit
			case "exclusiveMinimum":
				return n > limit
			case "exclusiveMaximum":
				return n < limit
			}
			return n%limit == 0
		}
	}
	// A bound the library cannot read it ignores; here it is "not known".
	limit, ok1 := numberRat(kv)
	n, ok2 := numberRat(v)
	if !ok1 || !ok2 {
		return false
	}
	switch k {
	case "minimum":
		return n.Cmp(limit) >= 0
	case "maximum":
		return n.Cmp(limit) <= 0
	case "exclusiveMinimum":
		return n.Cmp(limit) > 0
	case "exclusiveMaximum":
		return n.Cmp(limit) < 0
	}
	return new(big.Rat).Quo(n, limit).IsInt()
}

func arrayKeywordAccepts(m map[string]any, k string, kv any, v []any) bool {
	switch k {
	case "minItems":
		return len(v) >= intOf(kv)
	case "maxItems":
		return len(v) <= intOf(kv)
	case "uniqueItems":
		if kv != true {
			return true
		}
		if len(v) > 64 {
			return false // not worth it here: the library decides
		}
		for i := 1; i < len(v); i++ {
			for j := 0; j < i; j++ {
				if jsonEqual(v[i], v[j]) {
					return false
				}
			}
		}
		return true
	case "prefixItems":
		for i, sub := range kv.([]any) {
			if i < len(v) && !schemaAccepts(sub, v[i]) {
				return false
			}
		}
		return true
	case "items":
		prefix, _ := m["prefixItems"].([]any)
		for i := len(prefix); i < len(v); i++ {
			if !schemaAccepts(kv, v[i]) {
				return false
			}
		}
		return true
	case "contains":
		matched := 0
		for _, it := range v {
			if schemaAccepts(kv, it) {
				matched++
			}
		}
		if lo, ok := m["minContains"]; ok {
			if matched < intOf(lo) {
				return false
			}
		} else if matched == 0 {
			return false
		}
		hi, ok := m["maxContains"]
		return !ok || matched <= intOf(hi)
	}
	return true
}

func objectKeywordAccepts(m map[string]any, k string, kv any, v map[string]any) bool {
	switch k {
	case "minProperties":
		return len(v) >= intOf(kv)
	case "maxProperties":
		return len(v) <= intOf(kv)
	case "required":
		for _, name := range kv.([]any) {
			if _, ok := v[name.(string)]; !ok {
				return false
			}
		}
		return true
	case "dependentRequired":
		for name, reqd := range kv.(map[string]any) {
			if _, ok := v[name]; !ok {
				continue
			}
			for _, r := range reqd.([]any) {
				if _, ok := v[r.(string)]; !ok {
					return false
				}
			}
		}
		return true
	case "dependentSchemas":
		for name, sub := range kv.(map[string]any) {
			if _, ok := v[name]; ok && !schemaAccepts(sub, v) {
				return false
			}
		}
		return true
	case "propertyNames":
		for name := range v {
			if !schemaAccepts(kv, name) {
				return false
			}
		}
		return true
	case "properties":
		props := kv.(map[string]any)
		for name, val := range v {
			if sub, ok := props[name]; ok && !schemaAccepts(sub, val) {
				return false
			}
		}
		return true
	case "patternProperties":
		for pattern, sub := range kv.(map[string]any) {
			re, err := compiledPattern(pattern)
			if err != nil {
				return false
			}
			for name, val := range v {
				if re.MatchString(name) && !schemaAccepts(sub, val) {
					return false
				}
			}
		}
		return true
	case "additionalProperties":
		props, _ := m["properties"].(map[string]any)
		patterns, _ := m["patternProperties"].(map[string]any)
	members:
		for name, val := range v {
			if _, ok := props[name]; ok {
				continue
			}
			for pattern := range patterns {
				re, err := compiledPattern(pattern)
				if err != nil {
					return false
				}
				if re.MatchString(name) {
					continue members
				}
			}
			if !schemaAccepts(kv, val) {
				return false
			}
		}
		return true
	}
	return true
}

// typeAccepts applies "type" (a name or a list of names): an integer is a
// number whose value is whole, whatever its spelling ("1.0", "1e2").
func typeAccepts(t, v any) bool {
	names, ok := t.([]any)
	if !ok {
		names = []any{t}
	}
	for _, name := range names {
		switch name {
		case "null":
			if v == nil {
				return true
			}
		case "boolean":
			if _, ok := v.(bool); ok {
				return true
			}
		case "string":
			if _, ok := v.(string); ok {
				return true
			}
		case "array":
			if _, ok := v.([]any); ok {
				return true
			}
		case "object":
			if _, ok := v.(map[string]any); ok {
				return true
			}
		case "number":
			if _, ok := v.(json.Number); ok {
				return true
			}
		case "integer":
			if r, ok := numberRat(v); ok && r.IsInt() {
				return true
			}
		}
	}
	return false
}

// jsonEqual reports whether two JSON values are equal as the library's
// "const", "enum" and "uniqueItems" compare them: numbers by value.
func jsonEqual(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, va := range a {
			vb, ok := b[k]
			if !ok || !jsonEqual(va, vb) {
				return false
			}
		}
		return true
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !jsonEqual(a[i], b[i]) {
				return false
			}
		}
		return true
	case json.Number:
		b, ok := b.(json.Number)
		if !ok {
			return false
		}
		if a == b {
			return true
		}
		ra, ok1 := numberRat(a)
		rb, ok2 := numberRat(b)
		return ok1 && ok2 && ra.Cmp(rb) == 0
	}
	return a == b // nil, bool, string
}

// smallInt returns the value of v when it is a plain integer literal of
// at most 15 digits, which compares as its big.Rat does without making
// one (most bounds and examples are such integers).
func smallInt(v any) (int64, bool) {
	n, ok := v.(json.Number)
	digits := strings.TrimPrefix(string(n), "-")
	if !ok || digits == "" || len(digits) > 15 {
		return 0, false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, false
		}
	}
	i, err := strconv.ParseInt(string(n), 10, 64)
	return i, err == nil
}

// numberRat returns a number's exact value, as the library reads it.
func numberRat(v any) (*big.Rat, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return nil, false
	}
	return new(big.Rat).SetString(string(n))
}

// intOf returns a length keyword's value, a plain integer literal
// (metaValid) that quickReadable kept to 15 digits.
func intOf(v any) int {
	n, _ := strconv.Atoi(string(v.(json.Number)))
	return n
}

// patterns holds compiled regular expressions by source, for metaValid's
// check of every "pattern" and the examples' checks against them; a
// catalog repeats a handful of patterns across its skills. It starts over
// when full.
var patterns = struct {
	sync.Mutex
	m map[string]patternResult
}{m: map[string]patternResult{}}

type patternResult struct {
	re  *regexp.Regexp
	err error
}

// maxCachedPatterns and maxCachedPattern bound patterns: the number of
// patterns it holds, and the length of one (a longer one is compiled each
// time, so that hostile schemas cannot fill memory with large programs).
const (
	maxCachedPatterns = 512
	maxCachedPattern  = 256
)

// compiledPattern returns regexp.Compile(s), remembered.
func compiledPattern(s string) (*regexp.Regexp, error) {
	if len(s) > maxCachedPattern {
		return regexp.Compile(s)
	}
	patterns.Lock()
	r, ok := patterns.m[s]
	patterns.Unlock()
	if ok {
		return r.re, r.err
	}
	re, err := regexp.Compile(s)
	patterns.Lock()
	if len(patterns.m) >= maxCachedPatterns {
		clear(patterns.m)
	}
	patterns.m[s] = patternResult{re, err}
	patterns.Unlock()
	return re, err
}
