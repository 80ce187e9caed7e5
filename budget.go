package skillcat

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// MaxValidationSteps is the budget of one document's checks against its own
// skill schemas (a descriptor's examples against inputs and output, or a
// request's inputs): the number of times a subschema may be applied to a
// value. Real schemas and examples need a few hundred; a hostile recursive
// schema whose alternatives all apply (a "oneOf" of two recursive branches)
// would otherwise double its cost with each level of nesting and never end.
// Checking stays well under a second at this budget.
const MaxValidationSteps = 1_000_000

// errBudgetSpent is returned when a check would exceed its budget.
var errBudgetSpent = errors.New("budget spent")

// budget counts the steps of checking values against skill schemas and
// watches for cancellation. It estimates from above: before a value is
// handed to the validator, every subschema that could apply to each part
// of it is counted, as if no check ever stopped early, so the validator
// itself can never do more work than was counted.
type budget struct {
	ctx   context.Context
	left  int
	ticks int
}

func newBudget(ctx context.Context) *budget {
	return &budget{ctx: ctx, left: MaxValidationSteps}
}

// charge counts the steps of applying s to v, and returns errBudgetSpent
// past the budget or the context's error once it is done.
func (b *budget) charge(s *jsonschema.Schema, v any) error {
	if s == nil {
		return nil
	}
	b.left--
	if b.left < 0 {
		return errBudgetSpent
	}
	if b.ticks++; b.ticks%1024 == 0 {
		if err := b.ctx.Err(); err != nil {
			return err
		}
	}
	if s.Bool != nil || !typeMatches(s.Types, v) {
		return nil // the validator stops at a false schema or a wrong type
	}
	for _, in := range inPlace(s) {
		if err := b.charge(in, v); err != nil {
			return err
		}
	}
	switch v := v.(type) {
	case map[string]any:
		for name, val := range v {
			matched := false
			if p := s.Properties[name]; p != nil {
				matched = true
				if err := b.charge(p, val); err != nil {
					return err
				}
			}
			for re, p := range s.PatternProperties {
				if re.MatchString(name) {
					matched = true
					if err := b.charge(p, val); err != nil {
						return err
					}
				}
			}
			if ap, ok := s.AdditionalProperties.(*jsonschema.Schema); ok && !matched {
				if err := b.charge(ap, val); err != nil {
					return err
				}
			}
			if err := b.charge(s.UnevaluatedProperties, val); err != nil {
				return err
			}
			if err := b.charge(s.PropertyNames, name); err != nil {
				return err
			}
		}
	case []any:
		for i, it := range v {
			for _, p := range itemSchemas(s, i) {
				if err := b.charge(p, it); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// inPlace lists the subschemas that apply to the same value as s.
func inPlace(s *jsonschema.Schema) []*jsonschema.Schema {
	out := []*jsonschema.Schema{s.Ref, s.RecursiveRef, s.Not, s.If, s.Then, s.Else}
	if s.DynamicRef != nil {
		out = append(out, s.DynamicRef.Ref)
	}
	out = append(out, s.AllOf...)
	out = append(out, s.AnyOf...)
	out = append(out, s.OneOf...)
	for _, k := range sortedKeys(s.DependentSchemas) {
		out = append(out, s.DependentSchemas[k])
	}
	for _, k := range sortedKeys(s.Dependencies) {
		if d, ok := s.Dependencies[k].(*jsonschema.Schema); ok {
			out = append(out, d)
		}
	}
	return slices.DeleteFunc(out, func(s *jsonschema.Schema) bool { return s == nil })
}

// itemSchemas lists the subschemas that apply to item i of an array.
func itemSchemas(s *jsonschema.Schema, i int) []*jsonschema.Schema {
	var out []*jsonschema.Schema
	switch {
	case i < len(s.PrefixItems):
		out = append(out, s.PrefixItems[i])
	case s.Items2020 != nil:
		out = append(out, s.Items2020)
	}
	switch items := s.Items.(type) {
	case *jsonschema.Schema:
		out = append(out, items)
	case []*jsonschema.Schema:
		if i < len(items) {
			out = append(out, items[i])
		} else if ai, ok := s.AdditionalItems.(*jsonschema.Schema); ok {
			out = append(out, ai)
		}
	}
	return append(out, s.Contains, s.UnevaluatedItems)
}

// typeMatches reports whether v may be of a type in t; any number may be
// an integer (numbers have no parts, so this only counts one step more).
func typeMatches(t *jsonschema.Types, v any) bool {
	if t == nil || t.IsEmpty() {
		return true
	}
	names := t.ToStrings()
	switch v.(type) {
	case nil:
		return slices.Contains(names, "null")
	case bool:
		return slices.Contains(names, "boolean")
	case string:
		return slices.Contains(names, "string")
	case []any:
		return slices.Contains(names, "array")
	case map[string]any:
		return slices.Contains(names, "object")
	}
	return slices.Contains(names, "number") || slices.Contains(names, "integer")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// refCycle returns the locations of a cycle of subschemas that apply one
// another to the same value without descending into it (a "$ref" to
// itself, two "$defs" referring to each other through "allOf"), first
// location repeated last, or nil. No value can be checked against such a
// schema: the validator would go round for ever.
func refCycle(root *jsonschema.Schema) []string {
	const (
		white = iota
		grey
		black
	)
	color := map[*jsonschema.Schema]int{}
	var stack []*jsonschema.Schema
	var cycle []string
	var dfs func(s *jsonschema.Schema) bool
	dfs = func(s *jsonschema.Schema) bool {
		color[s] = grey
		stack = append(stack, s)
		for _, n := range inPlace(s) {
			if color[n] == grey {
				for _, c := range append(stack[slices.Index(stack, n):], n) {
					cycle = append(cycle, c.Location)
				}
				return true
			}
			if color[n] == white && dfs(n) {
				return true
			}
		}
		stack = stack[:len(stack)-1]
		color[s] = black
		return false
	}
	for _, s := range reachable(root) {
		if color[s] == white && dfs(s) {
			return cycle
		}
	}
	return nil
}

// reachable lists root and every subschema reachable from it, in a fixed
// order.
func reachable(root *jsonschema.Schema) []*jsonschema.Schema {
	seen := map[*jsonschema.Schema]bool{root: true}
	out := []*jsonschema.Schema{root}
	for i := 0; i < len(out); i++ {
		for _, n := range append(inPlace(out[i]), descents(out[i])...) {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	return out
}

// descents lists the subschemas of s that apply to parts of the value.
func descents(s *jsonschema.Schema) []*jsonschema.Schema {
	var out []*jsonschema.Schema
	for _, k := range sortedKeys(s.Properties) {
		out = append(out, s.Properties[k])
	}
	var patterns []*jsonschema.Schema
	for _, p := range s.PatternProperties {
		patterns = append(patterns, p)
	}
	slices.SortFunc(patterns, func(a, b *jsonschema.Schema) int { return strings.Compare(a.Location, b.Location) })
	out = append(out, patterns...)
	if ap, ok := s.AdditionalProperties.(*jsonschema.Schema); ok {
		out = append(out, ap)
	}
	out = append(out, s.UnevaluatedProperties, s.PropertyNames, s.Items2020, s.Contains, s.UnevaluatedItems, s.ContentSchema)
	out = append(out, s.PrefixItems...)
	switch items := s.Items.(type) {
	case *jsonschema.Schema:
		out = append(out, items)
	case []*jsonschema.Schema:
		out = append(out, items...)
	}
	if ai, ok := s.AdditionalItems.(*jsonschema.Schema); ok {
		out = append(out, ai)
	}
	return slices.DeleteFunc(out, func(s *jsonschema.Schema) bool { return s == nil })
}
