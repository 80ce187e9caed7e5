package skillcat_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/skillcat/skillcat"
	"pgregory.net/rapid"
)

// The descriptor schema's check, the metaschema's and the examples' read
// the Node tree, where an object may repeat a member name; Node.Value,
// which the library's paths read, keeps the last. TestNodeChecksWithDuplicates
// holds the three to the library on generated descriptors with duplicate
// members added anywhere: descriptorValid and metaValid may say "not
// known" of such a tree, never "valid" where the library disagrees, and
// DecodeDescriptor finds exactly the violations the library's paths find.

// addDuplicates repeats names of random objects in n, before or after the
// member they repeat, with values drawn from the tree or made to fail.
func addDuplicates(t *rapid.T, root *skillcat.Node) {
	var objects, values []*skillcat.Node
	var walk func(n *skillcat.Node)
	walk = func(n *skillcat.Node) {
		values = append(values, n)
		if n.Kind == skillcat.Object && len(n.Members) > 0 {
			objects = append(objects, n)
		}
		for _, m := range n.Members {
			walk(m.Value)
		}
		for _, it := range n.Items {
			walk(it)
		}
	}
	walk(root)
	if len(objects) == 0 {
		return
	}
	odd := []*skillcat.Node{
		{Kind: skillcat.Null}, {Kind: skillcat.Bool, Text: "false"}, {Kind: skillcat.Number, Text: "-1.5"},
		{Kind: skillcat.String, Text: ""}, {Kind: skillcat.String, Text: "object"}, {Kind: skillcat.Array},
		{Kind: skillcat.Object},
	}
	for i := rapid.IntRange(1, 4).Draw(t, "duplicates"); i > 0; i-- {
		o := objects[rapid.IntRange(0, len(objects)-1).Draw(t, "object")]
		at := rapid.IntRange(0, len(o.Members)-1).Draw(t, "member")
		m := o.Members[at]
		var v *skillcat.Node
		if rapid.Bool().Draw(t, "from the tree?") {
			// A copy: the value may be an ancestor of o.
			c, err := skillcat.ParseJSON(values[rapid.IntRange(0, len(values)-1).Draw(t, "value")].AppendJSON(nil))
			if err != nil {
				t.Fatal(err)
			}
			v = c
		} else {
			v = odd[rapid.IntRange(0, len(odd)-1).Draw(t, "odd")]
		}
		dup := skillcat.Member{Name: m.Name, Key: &skillcat.Node{Kind: skillcat.String, Text: m.Name}, Value: v}
		if rapid.Bool().Draw(t, "before?") {
			o.Members = append(o.Members[:at], append([]skillcat.Member{dup}, o.Members[at:]...)...)
		} else {
			o.Members = append(o.Members, dup)
		}
	}
}

func TestNodeChecksWithDuplicates(t *testing.T) {
	meta := metaschema20(t)
	rapid.Check(t, func(rt *rapid.T) {
		doc := drawDescriptorDoc(rt).doc
		for i := rapid.IntRange(0, 2).Draw(rt, "mutations"); i > 0; i-- {
			mutate(rt, doc, rapid.SampledFrom(descriptorPaths).Draw(rt, "path"))
		}
		data, err := json.Marshal(doc)
		if err != nil {
			rt.Fatal(err)
		}
		root, err := skillcat.ParseJSON(data)
		if err != nil {
			rt.Fatal(err)
		}
		if rapid.IntRange(0, 3).Draw(rt, "duplicates?") > 0 {
			addDuplicates(rt, root)
		}
		text := root.AppendJSON(nil)
		v := root.Value()
		if skillcat.DescriptorValidNode(root) && !skillcat.DescriptorSchemaValid(v) {
			rt.Fatalf("descriptorValid accepts a tree the descriptor schema refuses: %s", short(text))
		}
		for _, name := range []string{"inputs", "output"} {
			if n := root.Get(name); n != nil && skillcat.MetaValidNode(n) {
				if err := meta.Validate(n.Value()); err != nil {
					rt.Fatalf("metaValid accepts %s, which the metaschema refuses: %s\n%v", name, short(n.AppendJSON(nil)), err)
				}
			}
		}
		src := &skillcat.Source{Name: "skill.json", Data: text}
		got := skillcat.CheckSkillSchemas(context.Background(), src, root)
		want := skillcat.CheckSkillSchemasLibrary(context.Background(), src, root, nil)
		got.Sort()
		want.Sort()
		if len(got) != len(want) {
			rt.Fatalf("%s: the examples' check found %v, the library's path %v", short(text), got, want)
		}
	})
}

// TestExamplesCheckDuplicateMembers: an example object that repeats a
// name has one member to the library ("minProperties": 2 fails), two to
// a count of its members; the fast path must leave it to the library.
func TestExamplesCheckDuplicateMembers(t *testing.T) {
	data := []byte(`{"inputs":{"type":"object","minProperties":2},"output":{"const":{"a":1,"b":2}},"examples":[{"title":"t","inputs":{"a":1,"a":2},"output":{"a":1,"a":1}}]}`)
	root, err := skillcat.ParseJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	src := &skillcat.Source{Name: "skill.json", Data: data}
	got := skillcat.CheckSkillSchemas(context.Background(), src, root)
	if len(got) != 2 {
		t.Errorf("got %v, want the library's two violations (minProperties, const)", got)
	}
}
