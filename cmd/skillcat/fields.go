package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	skillcat "github.com/skillcat/skillcat"
)

// fieldRow is one field of a skill's inputs or output schema, as show
// prints it.
type fieldRow struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Required    bool   `json:"required"`
	Description string `json:"description,omitempty"`
	Constraints string `json:"constraints,omitempty"`
}

// maxFieldDepth bounds how deep nested objects are listed.
const maxFieldDepth = 6

// schemaFields lists the fields a JSON Schema describes: the properties of
// an object, nested ones as "parent.child" and those of array items as
// "parent[].child". A schema that is not an object with properties is one
// row named "(value)".
func schemaFields(raw json.RawMessage) []fieldRow {
	n, err := skillcat.ParseJSON(raw)
	if err != nil {
		return nil
	}
	var rows []fieldRow
	if props(n) == nil {
		return []fieldRow{fieldOf("(value)", n, true)}
	}
	addFields(&rows, "", n, 0)
	return rows
}

func props(n *skillcat.Node) *skillcat.Node {
	if p := n.Get("properties"); p != nil && p.Kind == skillcat.Object && len(p.Members) > 0 {
		return p
	}
	return nil
}

func addFields(rows *[]fieldRow, prefix string, n *skillcat.Node, depth int) {
	required := map[string]bool{}
	if req := n.Get("required"); req != nil {
		for _, it := range req.Items {
			required[it.Text] = true
		}
	}
	for _, m := range props(n).Members {
		name := prefix + m.Name
		*rows = append(*rows, fieldOf(name, m.Value, required[m.Name]))
		if depth >= maxFieldDepth || m.Value.Kind != skillcat.Object {
			continue
		}
		if props(m.Value) != nil {
			addFields(rows, name+".", m.Value, depth+1)
		} else if it := m.Value.Get("items"); it != nil && it.Kind == skillcat.Object && props(it) != nil {
			addFields(rows, name+"[].", it, depth+1)
		}
	}
}

func fieldOf(name string, n *skillcat.Node, required bool) fieldRow {
	r := fieldRow{Name: name, Type: typeOf(n), Required: required}
	if n.Kind == skillcat.Object {
		if d := n.Get("description"); d != nil && d.Kind == skillcat.String {
			r.Description = strings.Join(strings.Fields(d.Text), " ")
		}
		r.Constraints = constraints(n)
	}
	return r
}

// typeOf names a schema's type: "string", "integer|null", "array of
// number", "object", "any".
func typeOf(n *skillcat.Node) string {
	if n.Kind == skillcat.Bool {
		if n.Text == "true" {
			return "any"
		}
		return "nothing"
	}
	if n.Kind != skillcat.Object {
		return "any"
	}
	t := n.Get("type")
	var name string
	switch {
	case t != nil && t.Kind == skillcat.String:
		name = t.Text
	case t != nil && t.Kind == skillcat.Array:
		var parts []string
		for _, it := range t.Items {
			parts = append(parts, it.Text)
		}
		name = strings.Join(parts, "|")
	case n.Get("enum") != nil:
		name = "enum"
	case n.Get("const") != nil:
		name = "const"
	case n.Get("$ref") != nil:
		name = "see " + n.Get("$ref").Text
	case n.Get("oneOf") != nil || n.Get("anyOf") != nil:
		name = "one of several"
	default:
		name = "any"
	}
	if name == "array" {
		if it := n.Get("items"); it != nil {
			name = "array of " + typeOf(it)
		}
	}
	return name
}

// constraints lists a schema's validation keywords in words.
func constraints(n *skillcat.Node) string {
	var parts []string
	for _, k := range []struct{ key, label string }{
		{"enum", "one of"}, {"const", "exactly"}, {"format", "format"}, {"pattern", "pattern"},
		{"minimum", "≥"}, {"exclusiveMinimum", ">"}, {"maximum", "≤"}, {"exclusiveMaximum", "<"},
		{"multipleOf", "multiple of"}, {"minLength", "min length"}, {"maxLength", "max length"},
		{"minItems", "min items"}, {"maxItems", "max items"}, {"uniqueItems", "unique items"},
		{"default", "default"},
	} {
		v := n.Get(k.key)
		if v == nil {
			continue
		}
		switch {
		case k.key == "enum" && v.Kind == skillcat.Array:
			var vals []string
			for _, it := range v.Items {
				vals = append(vals, string(it.AppendJSON(nil)))
			}
			parts = append(parts, "one of "+strings.Join(vals, ", "))
		case k.key == "uniqueItems":
			if v.Text == "true" {
				parts = append(parts, "unique items")
			}
		case v.Kind == skillcat.String && k.key != "const" && k.key != "default":
			parts = append(parts, k.label+" "+v.Text)
		default:
			parts = append(parts, k.label+" "+string(v.AppendJSON(nil)))
		}
	}
	return strings.Join(parts, "; ")
}

// writeFields prints field rows as an indented table.
func writeFields(w io.Writer, rows []fieldRow) error {
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, "  (none)")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "  NAME\tTYPE\tREQUIRED\tDESCRIPTION")
	for _, r := range rows {
		req := "no"
		if r.Required {
			req = "yes"
		}
		desc := r.Description
		if r.Constraints != "" {
			if desc != "" {
				desc += " "
			}
			desc += "(" + r.Constraints + ")"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", printable(r.Name), printable(r.Type), req, printable(desc))
	}
	return tw.Flush()
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
