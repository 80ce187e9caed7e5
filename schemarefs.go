package skillcat

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// The schema compiler stops at the first broken reference or duplicate
// anchor it meets, and it meets them in the order of Go's maps, which
// changes from run to run: a schema with two such problems got one
// message or the other. refProblems finds all of them in document order
// instead, so a build reports the same violations every time.

// refProblem is one reason why a schema's references do not resolve, at
// the member that has it: a "$ref", or the second "$anchor" of a name.
type refProblem struct {
	at     string // JSON Pointer of the member within the schema
	reason string
}

// refProblems returns the reasons, in document order, why the references
// within schema n do not resolve: an anchor declared by two subschemas,
// a "$ref" to a JSON Pointer that leads nowhere, or to an anchor no
// subschema declares; each at the member that has it. It returns nil when
// it finds none, and when it cannot judge (a subschema with "$id" of its
// own, or a draft before 2019-09, whose anchors live in "$id"): the
// compiler's message stands.
func refProblems(n *Node, member string) []refProblem {
	if d := dialectOf(n); d != "" && !strings.Contains(d, "2020-12") && !strings.Contains(d, "2019-09") {
		return nil
	}
	w := &refWalk{anchors: map[string]string{}, member: member}
	w.schema(n, "")
	if w.embedded {
		return nil
	}
	for _, r := range w.refs {
		frag, err := url.PathUnescape(r.ref)
		switch {
		case err != nil || frag == "":
		case strings.HasPrefix(frag, "/"):
			if n.Lookup(ParsePointer(frag)) == nil {
				w.problems = append(w.problems, refProblem{r.at, fmt.Sprintf(`a "$ref" points to %q, which does not exist in the schema`, "#"+r.ref)})
			}
		case w.anchors[frag] == "":
			w.problems = append(w.problems, refProblem{r.at, fmt.Sprintf(`a "$ref" points to %q, an anchor that no subschema declares`, "#"+r.ref)})
		}
	}
	return w.problems
}

// refWalk gathers the anchors and local references of a schema.
type refWalk struct {
	member   string
	anchors  map[string]string // anchor → pointer of the subschema declaring it first
	refs     []schemaRef       // each "$ref" to "#…"
	problems []refProblem
	embedded bool // a subschema has an "$id": another resource, another scope
}

// schemaRef is a "$ref" to "#…": ref as written after the "#", at the
// JSON Pointer of the "$ref" member within the schema.
type schemaRef struct{ ref, at string }

// Keywords whose value is a subschema, an object of subschemas, or an
// array of them (draft 2020-12 and 2019-09).
var (
	oneSchema = []string{"not", "if", "then", "else", "contains", "propertyNames", "additionalProperties",
		"unevaluatedProperties", "unevaluatedItems", "additionalItems", "contentSchema", "items"}
	schemaObject = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"}
	schemaArray  = []string{"allOf", "anyOf", "oneOf", "prefixItems", "items"}
)

func (w *refWalk) schema(n *Node, ptr string) {
	if n == nil || n.Kind != Object {
		return
	}
	if ptr != "" && n.Get("$id") != nil {
		w.embedded = true
		return
	}
	for _, kw := range []string{"$anchor", "$dynamicAnchor"} {
		a := n.Get(kw)
		if a == nil || a.Kind != String {
			continue
		}
		switch first, ok := w.anchors[a.Text]; {
		case !ok:
			w.anchors[a.Text] = ptr
		case first != ptr:
			w.problems = append(w.problems, refProblem{ptr + "/" + kw, fmt.Sprintf("duplicate anchor %q in %q at %q and %q", a.Text, w.member, first, ptr)})
		}
	}
	if r := n.Get("$ref"); r != nil && r.Kind == String && strings.HasPrefix(r.Text, "#") {
		w.refs = append(w.refs, schemaRef{r.Text[1:], ptr + "/$ref"})
	}
	for _, m := range n.Members {
		at := ptr + "/" + pointerEscaper.Replace(m.Name)
		switch v := m.Value; {
		case v.Kind == Object && slices.Contains(oneSchema, m.Name):
			w.schema(v, at)
		case v.Kind == Object && slices.Contains(schemaObject, m.Name):
			for _, s := range v.Members {
				w.schema(s.Value, at+"/"+pointerEscaper.Replace(s.Name))
			}
		case v.Kind == Array && slices.Contains(schemaArray, m.Name):
			for i, s := range v.Items {
				w.schema(s, fmt.Sprintf("%s/%d", at, i))
			}
		}
	}
}

// refTo returns the JSON Pointer, within schema n whose URL is base, of
// the first "$ref" in document order whose target, resolved against the
// "$id"s around it, is target: the compiler names the reference it could
// not follow by that URL alone. A target without a fragment matches a
// reference whatever its fragment. It returns "" when none matches.
func refTo(n *Node, base, target string) string {
	b, err := url.Parse(base)
	if err != nil {
		return ""
	}
	return findRef(n, b, "", target, strings.Contains(target, "#"))
}

func findRef(n *Node, base *url.URL, ptr, target string, withFragment bool) string {
	switch n.Kind {
	case Array:
		for i, item := range n.Items {
			if at := findRef(item, base, fmt.Sprintf("%s/%d", ptr, i), target, withFragment); at != "" {
				return at
			}
		}
	case Object:
		if id := n.Get("$id"); id != nil && id.Kind == String {
			if u, err := base.Parse(id.Text); err == nil {
				base = u
			}
		}
		for _, m := range n.Members {
			at := ptr + "/" + pointerEscaper.Replace(m.Name)
			if m.Name == "$ref" && m.Value.Kind == String {
				if u, err := base.Parse(m.Value.Text); err == nil {
					if !withFragment {
						u.Fragment, u.RawFragment = "", ""
					}
					if u.String() == target {
						return at
					}
				}
				continue
			}
			if found := findRef(m.Value, base, at, target, withFragment); found != "" {
				return found
			}
		}
	}
	return ""
}
