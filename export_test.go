package skillcat

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
)

// Hooks for the external tests of the metaschema fast path (metaschema.go).

// MetaValid is metaValid of the schema doc (a value as Node.Value gives it).
func MetaValid(doc any) bool { return metaValid(nodeOfValue(doc)) }

// MetaKeywordValid is metaKeywordValid of the value v (a value of no JSON
// type is a node of no kind).
func MetaKeywordValid(k string, v any, root bool) bool {
	return metaKeywordValid(k, nodeOfValue(v), root)
}

// nodeOfValue returns the Node tree of a value as Node.Value or
// encoding/json gives it (an object's members in name order), and a node
// of no JSON kind for a value of no JSON type.
func nodeOfValue(v any) *Node {
	switch v := v.(type) {
	case nil:
		return &Node{Kind: Null}
	case bool:
		return &Node{Kind: Bool, Text: strconv.FormatBool(v)}
	case string:
		return &Node{Kind: String, Text: v}
	case json.Number:
		return &Node{Kind: Number, Text: string(v)}
	case float64, int, int64:
		data, _ := json.Marshal(v)
		return &Node{Kind: Number, Text: string(data)}
	case []any:
		n := &Node{Kind: Array}
		for _, it := range v {
			n.Items = append(n.Items, nodeOfValue(it))
		}
		return n
	case map[string]any:
		n := &Node{Kind: Object}
		for _, name := range slices.Sorted(maps.Keys(v)) {
			n.Members = append(n.Members, Member{Name: name, Key: &Node{Kind: String, Text: name}, Value: nodeOfValue(v[name])})
		}
		return n
	}
	return &Node{Kind: NodeKind(255)}
}

// uniqueMembers reports whether no object in n repeats a member name.
func uniqueMembers(n *Node) bool {
	for i, m := range n.Members {
		if n.lastIndex(m.Name) != i || !uniqueMembers(m.Value) {
			return false
		}
	}
	for _, it := range n.Items {
		if !uniqueMembers(it) {
			return false
		}
	}
	return true
}

// CompileSkillSchemaNode compiles the schema at path of root as a build
// does (the fast path first), without the cache.
func CompileSkillSchemaNode(src *Source, root *Node, path Path, member string) (*SkillSchema, Violations) {
	return compileNode(src, root, root.At(path), path, member, root.At(path).Value())
}

// CompileSkillSchemaChecked compiles the schema at path of root the
// library's way only, its metaschema check included.
func CompileSkillSchemaChecked(src *Source, root *Node, path Path, member string) (*SkillSchema, Violations) {
	return compileChecked(src, root, root.At(path), path, member)
}

// DescriptorValid is descriptorValid (descriptorschema.go) of the
// descriptor v (a value as Node.Value gives it).
func DescriptorValid(v any) bool { return descriptorValid(nodeOfValue(v)) }

// DescriptorValidNode is descriptorValid.
var DescriptorValidNode = descriptorValid

// MetaValidNode is metaValid.
var MetaValidNode = metaValid

// CheckSkillSchemas is checkSkillSchemas as DecodeDescriptor calls it,
// with what duplicateMembers would find.
func CheckSkillSchemas(ctx context.Context, src *Source, root *Node) Violations {
	return checkSkillSchemas(ctx, src, root, uniqueMembers(root))
}

// DescriptorSchemaValid reports whether the library finds v valid against
// the descriptor schema.
func DescriptorSchemaValid(v any) bool { return descriptorSchema().Validate(v) == nil }

// SemverPattern and EmailPattern are the patterns descriptorValid matches
// with regexp.
var SemverPattern, EmailPattern = semverRE.String(), emailRE.String()

// ExamplesValid is checkSkillSchemas' fast path (examplecheck.go) as a
// build takes it: examplesValid when no object of root repeats a member
// name, else false. val, root's Value(), is not read.
var ExamplesValid = func(root *Node, val any) bool { return uniqueMembers(root) && examplesValid(root) }

// CheckSkillSchemasLibrary is checkSkillSchemasLibrary: the library's path
// that examplesValid stands in for. val, root's Value(), is not read.
func CheckSkillSchemasLibrary(ctx context.Context, src *Source, root *Node, val any) Violations {
	return checkSkillSchemasLibrary(ctx, src, root)
}

// QuickSchemaAccepts reports whether examplesValid reads the schema doc
// (the form Node.Value gives) and, if so, whether it accepts v.
func QuickSchemaAccepts(doc, v any) (readable, accepts bool) {
	s := nodeOfValue(doc)
	nodes := 0
	if !metaValid(s) || !quickReadable(s, &nodes) {
		return false, false
	}
	return true, schemaAccepts(s, nodeOfValue(v))
}

// ParseValues is parseValues.
var ParseValues = parseValues

// NumberKeywordAccepts is numberKeywordAccepts (examplecheck.go) of two
// number literals.
func NumberKeywordAccepts(k string, limit, v json.Number) bool {
	return numberKeywordAccepts(k, &Node{Kind: Number, Text: string(limit)}, &Node{Kind: Number, Text: string(v)})
}
