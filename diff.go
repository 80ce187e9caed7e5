package skillcat

import (
	"encoding/json"
	"math/big"
	"strconv"
	"strings"
)

// MaxDifferences is how many differences DiffJSON reports at most.
const MaxDifferences = 20

// Difference is one place where two JSON values differ. Field is where,
// as Path.Field writes it ("output.results[0].confidence");
// Got and Want are the values there as compact JSON, "" where there is
// none.
type Difference struct {
	Field string
	Got   string
	Want  string
}

// String reads "field: got X, want Y", or says which side lacks the value.
func (d Difference) String() string {
	switch {
	case d.Got == "":
		return d.Field + ": missing; want " + d.Want
	case d.Want == "":
		return d.Field + ": not expected; got " + d.Got
	}
	return d.Field + ": got " + d.Got + ", want " + d.Want
}

// DiffJSON compares the JSON value got with want and returns where they
// differ, at most MaxDifferences places, with fields under field. Values
// are compared as JSON: members in any order, numbers by value (1.0 equals
// 1 and 1e2 equals 100), arrays item by item. With shape set only the
// structure is compared: every member want shows must be present in got
// with a value of the same JSON type, recursively, and every item of a
// non-empty array must have the shape of want's first item; values and
// extra members do not matter. A value that is not JSON is an error.
func DiffJSON(field string, got, want json.RawMessage, shape bool) ([]Difference, error) {
	g, err := ParseJSON(got)
	if err != nil {
		return nil, err
	}
	w, err := ParseJSON(want)
	if err != nil {
		return nil, err
	}
	var out []Difference
	var at Path
	if field != "" {
		at = Members(field)
	}
	diffNode(&out, at, g, w, shape)
	return out, nil
}

func diffNode(out *[]Difference, at Path, g, w *Node, shape bool) {
	field := ""
	if len(at) > 0 {
		field = at.Field()
	}
	if len(*out) >= MaxDifferences {
		return
	}
	differ := func() {
		*out = append(*out, Difference{Field: field, Got: compact(g), Want: compact(w)})
	}
	if g.Kind != w.Kind {
		differ()
		return
	}
	switch g.Kind {
	case Object:
		gm, wm := members(g), members(w)
		for _, m := range wm.order {
			sub := at.Member(m.Name)
			gv := gm.value[m.Name]
			if gv == nil {
				*out = append(*out, Difference{Field: sub.Field(), Want: compact(m.Value)})
				continue
			}
			diffNode(out, sub, gv, m.Value, shape)
		}
		if shape {
			return
		}
		for _, m := range gm.order {
			if wm.value[m.Name] == nil && len(*out) < MaxDifferences {
				*out = append(*out, Difference{Field: at.Member(m.Name).Field(), Got: compact(m.Value)})
			}
		}
	case Array:
		if shape {
			if len(w.Items) == 0 {
				return
			}
			if len(g.Items) == 0 {
				*out = append(*out, Difference{Field: field, Got: "[]", Want: "at least one item like " + compact(w.Items[0])})
				return
			}
			for i, it := range g.Items {
				diffNode(out, at.Item(i), it, w.Items[0], shape)
			}
			return
		}
		if len(g.Items) != len(w.Items) {
			*out = append(*out, Difference{Field: field, Got: strconv.Itoa(len(g.Items)) + " items", Want: strconv.Itoa(len(w.Items)) + " items"})
			return
		}
		for i := range g.Items {
			diffNode(out, at.Item(i), g.Items[i], w.Items[i], shape)
		}
	case Number:
		if !shape && !numbersEqual(g.Text, w.Text) {
			differ()
		}
	default:
		if !shape && g.Text != w.Text {
			differ()
		}
	}
}

// memberSet is an object's members by name, the last of duplicates
// winning, in the order of their first appearance.
type memberSet struct {
	value map[string]*Node
	order []Member
}

func members(n *Node) memberSet {
	ms := memberSet{value: make(map[string]*Node, len(n.Members))}
	for _, m := range n.Members {
		if _, seen := ms.value[m.Name]; !seen {
			ms.order = append(ms.order, m)
		}
		ms.value[m.Name] = m.Value
	}
	for i, m := range ms.order {
		ms.order[i].Value = ms.value[m.Name]
	}
	return ms
}

func compact(n *Node) string {
	s := string(n.AppendJSON(nil))
	if len(s) > 200 {
		s = s[:197] + "…"
	}
	return s
}

// numbersEqual compares two JSON number literals by value. Exponents
// beyond ±1000 are compared as written, so that a hostile literal cannot
// make an enormous number.
func numbersEqual(a, b string) bool {
	if a == b {
		return true
	}
	ra, oka := ratOf(a)
	rb, okb := ratOf(b)
	return oka && okb && ra.Cmp(rb) == 0
}

func ratOf(s string) (*big.Rat, bool) {
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		exp, err := strconv.Atoi(strings.TrimPrefix(s[i+1:], "+"))
		if err != nil || exp > 1000 || exp < -1000 {
			return nil, false
		}
	}
	return new(big.Rat).SetString(s)
}
