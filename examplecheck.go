package skillcat

import (
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
// violation in the descriptor root, in which no object repeats a member
// name (duplicateMembers found none): it reads an object's members as the
// members of its value.
func examplesValid(root *Node) bool {
	var inputs, output *quickSchema
	if n := root.Get("inputs"); n != nil && n.Kind == Object && objectTyped(n) {
		if inputs = newQuickSchema(n); inputs == nil {
			return false
		}
	}
	if n := root.Get("output"); n != nil && (n.Kind == Object || n.Kind == Bool) {
		if output = newQuickSchema(n); output == nil {
			return false
		}
	}
	steps := 0
	return eachExample(root, func(_ int, part string, n *Node) bool {
		s := inputs
		if part == "output" {
			s = output
		}
		return s == nil || s.check(n, &steps)
	})
}

// quickSchema is a skill schema examplesValid can read, and the number of
// its schema positions.
type quickSchema struct {
	doc   *Node
	nodes int
}

// newQuickSchema returns the schema n when the library compiles it cleanly
// for certain and every keyword in it is one schemaAccepts reads, and nil
// otherwise.
func newQuickSchema(n *Node) *quickSchema {
	if countValues(n, MaxSchemaValues) > MaxSchemaValues || !metaValid(n) {
		return nil
	}
	nodes := 0
	if !quickReadable(n, &nodes) {
		return nil
	}
	return &quickSchema{doc: n, nodes: nodes}
}

// check reports whether the schema certainly accepts v, adding to *steps
// a bound from above of the library's budget steps for it (budget.charge
// applies each subschema of a schema without "$ref" at most once to each
// value and member name of the instance); false past MaxValidationSteps.
func (q *quickSchema) check(v *Node, steps *int) bool {
	*steps += q.nodes * instanceSize(v)
	return *steps <= MaxValidationSteps && schemaAccepts(q.doc, v)
}

// instanceSize counts the values of v and its member names.
func instanceSize(v *Node) int {
	n := 1
	for _, m := range v.Members {
		n += 1 + instanceSize(m.Value)
	}
	for _, it := range v.Items {
		n += instanceSize(it)
	}
	return n
}

// quickReadable reports whether the schema position s holds only keywords
// schemaAccepts reads (or that the library ignores in a draft 2020-12
// schema), with values it reads as the library does; it counts the schema
// positions into *nodes. metaValid has already checked the keywords'
// shapes.
func quickReadable(s *Node, nodes *int) bool {
	*nodes++
	if s.Kind != Object {
		return s.Kind == Bool
	}
	for _, m := range s.Members {
		v := m.Value
		switch m.Name {
		case "$ref", "$dynamicRef", "$recursiveRef", "$id", "$anchor", "$dynamicAnchor", "$recursiveAnchor",
			"$vocabulary", "unevaluatedItems", "unevaluatedProperties", "dependencies":
			return false
		case "maxLength", "minLength", "maxItems", "minItems", "maxContains", "minContains", "maxProperties", "minProperties":
			// The library reads these through int64; keep to numbers no
			// conversion can change.
			if v.Kind != Number || len(v.Text) > 15 {
				return false
			}
		case "pattern":
			if !quickPattern(v.Text) {
				return false
			}
		case "items", "contains", "additionalProperties", "propertyNames", "if", "then", "else", "not", "contentSchema":
			if !quickReadable(v, nodes) {
				return false
			}
		case "prefixItems", "allOf", "anyOf", "oneOf":
			for _, sub := range v.Items {
				if !quickReadable(sub, nodes) {
					return false
				}
			}
		case "properties", "dependentSchemas", "patternProperties", "$defs", "definitions":
			for _, sub := range v.Members {
				if m.Name == "patternProperties" && !quickPattern(sub.Name) {
					return false
				}
				if !quickReadable(sub.Value, nodes) {
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
func schemaAccepts(s, v *Node) bool {
	if s.Kind != Object {
		return s.Kind == Bool && s.Text == "true"
	}
	for _, m := range s.Members {
		if !keywordAccepts(s, m.Name, m.Value, v) {
			return false
		}
	}
	return true
}

// keywordAccepts applies the keyword k of schema s, with value kv, to v.
// Keywords that only annotate, or that the library does not know, accept
// everything.
func keywordAccepts(s *Node, k string, kv, v *Node) bool {
	switch k {
	case "type":
		if kv.Kind != Array {
			return typeAccepts(kv.Text, v)
		}
		for _, name := range kv.Items {
			if typeAccepts(name.Text, v) {
				return true
			}
		}
		return false
	case "const":
		return jsonEqual(v, kv)
	case "enum":
		for _, e := range kv.Items {
			if jsonEqual(v, e) {
				return true
			}
		}
		return false
	case "allOf":
		for _, sub := range kv.Items {
			if !schemaAccepts(sub, v) {
				return false
			}
		}
		return true
	case "anyOf":
		for _, sub := range kv.Items {
			if schemaAccepts(sub, v) {
				return true
			}
		}
		return false
	case "oneOf":
		matched := 0
		for _, sub := range kv.Items {
			if schemaAccepts(sub, v) {
				matched++
			}
		}
		return matched == 1
	case "not":
		return !schemaAccepts(kv, v)
	case "if":
		if schemaAccepts(kv, v) {
			then := s.Get("then")
			return then == nil || schemaAccepts(then, v)
		}
		els := s.Get("else")
		return els == nil || schemaAccepts(els, v)
	}
	switch v.Kind {
	case String:
		return stringKeywordAccepts(k, kv, v.Text)
	case Number:
		return numberKeywordAccepts(k, kv, v)
	case Array:
		return arrayKeywordAccepts(s, k, kv, v.Items)
	case Object:
		return objectKeywordAccepts(s, k, kv, v)
	}
	return true
}

func stringKeywordAccepts(k string, kv *Node, v string) bool {
	switch k {
	case "minLength":
		return utf8.RuneCountInString(v) >= intOf(kv)
	case "maxLength":
		return utf8.RuneCountInString(v) <= intOf(kv)
	case "pattern":
		re, err := compiledPattern(kv.Text)
		return err == nil && re.MatchString(v)
	}
	return true
}

func numberKeywordAccepts(k string, kv, v *Node) bool {
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

func arrayKeywordAccepts(s *Node, k string, kv *Node, v []*Node) bool {
	switch k {
	case "minItems":
		return len(v) >= intOf(kv)
	case "maxItems":
		return len(v) <= intOf(kv)
	case "uniqueItems":
		if kv.Kind != Bool || kv.Text != "true" {
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
		for i, sub := range kv.Items {
			if i < len(v) && !schemaAccepts(sub, v[i]) {
				return false
			}
		}
		return true
	case "items":
		prefix := 0
		if p := s.Get("prefixItems"); p != nil {
			prefix = len(p.Items)
		}
		for i := prefix; i < len(v); i++ {
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
		if lo := s.Get("minContains"); lo != nil {
			if matched < intOf(lo) {
				return false
			}
		} else if matched == 0 {
			return false
		}
		hi := s.Get("maxContains")
		return hi == nil || matched <= intOf(hi)
	}
	return true
}

func objectKeywordAccepts(s *Node, k string, kv, v *Node) bool {
	switch k {
	case "minProperties":
		return len(v.Members) >= intOf(kv)
	case "maxProperties":
		return len(v.Members) <= intOf(kv)
	case "required":
		for _, name := range kv.Items {
			if v.Get(name.Text) == nil {
				return false
			}
		}
		return true
	case "dependentRequired":
		for _, dep := range kv.Members {
			if v.Get(dep.Name) == nil {
				continue
			}
			for _, r := range dep.Value.Items {
				if v.Get(r.Text) == nil {
					return false
				}
			}
		}
		return true
	case "dependentSchemas":
		for _, dep := range kv.Members {
			if v.Get(dep.Name) != nil && !schemaAccepts(dep.Value, v) {
				return false
			}
		}
		return true
	case "propertyNames":
		for _, m := range v.Members {
			if !schemaAccepts(kv, nameNode(m)) {
				return false
			}
		}
		return true
	case "properties":
		for _, m := range v.Members {
			if sub := kv.Get(m.Name); sub != nil && !schemaAccepts(sub, m.Value) {
				return false
			}
		}
		return true
	case "patternProperties":
		for _, p := range kv.Members {
			re, err := compiledPattern(p.Name)
			if err != nil {
				return false
			}
			for _, m := range v.Members {
				if re.MatchString(m.Name) && !schemaAccepts(p.Value, m.Value) {
					return false
				}
			}
		}
		return true
	case "additionalProperties":
		props, patterns := s.Get("properties"), s.Get("patternProperties")
	members:
		for _, m := range v.Members {
			if props.Get(m.Name) != nil {
				continue
			}
			if patterns != nil {
				for _, p := range patterns.Members {
					re, err := compiledPattern(p.Name)
					if err != nil {
						return false
					}
					if re.MatchString(m.Name) {
						continue members
					}
				}
			}
			if !schemaAccepts(kv, m.Value) {
				return false
			}
		}
		return true
	}
	return true
}

// nameNode returns a member's name as a String node: its Key, or a new
// node where the parse kept none.
func nameNode(m Member) *Node {
	if m.Key != nil && m.Key.Kind == String && m.Key.Text == m.Name {
		return m.Key
	}
	return &Node{Kind: String, Text: m.Name}
}

// typeAccepts applies one name of "type": an integer is a number whose
// value is whole, whatever its spelling ("1.0", "1e2").
func typeAccepts(name string, v *Node) bool {
	switch name {
	case "null":
		return v.Kind == Null
	case "boolean":
		return v.Kind == Bool
	case "string":
		return v.Kind == String
	case "array":
		return v.Kind == Array
	case "object":
		return v.Kind == Object
	case "number":
		return v.Kind == Number
	case "integer":
		if v.Kind != Number {
			return false
		}
		if plainInteger(v.Text) {
			return true
		}
		r, ok := numberRat(v)
		return ok && r.IsInt()
	}
	return false
}

// jsonEqual reports whether two JSON values are equal as the library's
// "const", "enum" and "uniqueItems" compare them: numbers by value.
func jsonEqual(a, b *Node) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case Object:
		if len(a.Members) != len(b.Members) {
			return false
		}
		for _, m := range a.Members {
			vb := b.Get(m.Name)
			if vb == nil || !jsonEqual(m.Value, vb) {
				return false
			}
		}
		return true
	case Array:
		if len(a.Items) != len(b.Items) {
			return false
		}
		for i := range a.Items {
			if !jsonEqual(a.Items[i], b.Items[i]) {
				return false
			}
		}
		return true
	case Number:
		if a.Text == b.Text {
			return true
		}
		ra, ok1 := numberRat(a)
		rb, ok2 := numberRat(b)
		return ok1 && ok2 && ra.Cmp(rb) == 0
	case Bool:
		return (a.Text == "true") == (b.Text == "true")
	case String:
		return a.Text == b.Text
	}
	return true // null
}

// plainInteger reports whether a number literal is an optional minus sign
// and digits, so an integer whatever its size.
func plainInteger(s string) bool {
	s = strings.TrimPrefix(s, "-")
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

// smallInt returns the value of the number v when it is a plain integer
// literal of at most 15 digits, which compares as its big.Rat does without
// making one (most bounds and examples are such integers).
func smallInt(v *Node) (int64, bool) {
	if v.Kind != Number || len(strings.TrimPrefix(v.Text, "-")) > 15 || !plainInteger(v.Text) {
		return 0, false
	}
	i, err := strconv.ParseInt(v.Text, 10, 64)
	return i, err == nil
}

// numberRat returns a number's exact value, as the library reads it.
func numberRat(v *Node) (*big.Rat, bool) {
	if v.Kind != Number {
		return nil, false
	}
	return new(big.Rat).SetString(v.Text)
}

// intOf returns a length keyword's value, a plain integer literal
// (metaValid) that quickReadable kept to 15 digits.
func intOf(v *Node) int {
	n, _ := strconv.Atoi(v.Text)
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
