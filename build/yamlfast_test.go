package build

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/synth"
	"go.yaml.in/yaml/v3"
	"pgregory.net/rapid"
)

// sameNode reports the first difference between two Node trees: kind,
// text, position, members (names and their keys' positions) and items.
func sameNode(a, b *skillcat.Node, at string) error {
	if a.Kind != b.Kind || a.Text != b.Text || a.Line != b.Line || a.Column != b.Column || a.Offset != b.Offset ||
		len(a.Members) != len(b.Members) || len(a.Items) != len(b.Items) || (a.Members == nil) != (b.Members == nil) || (a.Items == nil) != (b.Items == nil) {
		return fmt.Errorf("%s: got %s %q at %d:%d with %d members, %d items, want %s %q at %d:%d with %d members, %d items",
			at, a.Kind, a.Text, a.Line, a.Column, len(a.Members), len(a.Items), b.Kind, b.Text, b.Line, b.Column, len(b.Members), len(b.Items))
	}
	for i, m := range a.Members {
		w := b.Members[i]
		if m.Name != w.Name {
			return fmt.Errorf("%s: member %d is %q, want %q", at, i, m.Name, w.Name)
		}
		if err := sameNode(m.Key, w.Key, at+"/"+m.Name+" (key)"); err != nil {
			return err
		}
		if err := sameNode(m.Value, w.Value, at+"/"+m.Name); err != nil {
			return err
		}
	}
	for i := range a.Items {
		if err := sameNode(a.Items[i], b.Items[i], fmt.Sprintf("%s/%d", at, i)); err != nil {
			return err
		}
	}
	return nil
}

// checkQuickYAML fails when quickNode reads yml into another tree than
// yaml.v3 and the converter make of it, or reads what yaml.v3 refuses or
// the converter reports on. Lines are shifted by one, as a front matter's
// are.
func checkQuickYAML(t interface{ Fatalf(string, ...any) }, yml []byte) bool {
	got, ok := quickNode(yml, 1)
	if !ok {
		return false
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(yml, &doc); err != nil {
		t.Fatalf("quickNode reads what yaml.v3 refuses (%v):\n%s", err, yml)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		t.Fatalf("quickNode reads what yaml.v3 finds empty:\n%s", yml)
	}
	c := converter{lineOffset: 1, src: &skillcat.Source{Name: "front matter"}}
	want, err := c.node(doc.Content[0], 0)
	if err != nil || c.problems != nil {
		t.Fatalf("quickNode reads what the converter reports (%v, %v):\n%s", err, c.problems, yml)
	}
	if err := sameNode(got, want, ""); err != nil {
		t.Fatalf("%v\n%s", err, yml)
	}
	return true
}

// TestQuickYAMLIsYAML holds quickNode to yaml.v3 and the converter: on the synthetic
// catalog's front matter (which it must nearly all read) with the whole
// parse compared, and on generated documents built from the pieces YAML
// treats specially (indicators, quotes, colons, odd indentation, blank and
// continuation lines), where whatever it reads must be yaml.v3's tree.
func TestQuickYAMLIsYAML(t *testing.T) {
	read := 0
	for i := 0; i < 400; i++ {
		name, data := synth.Source(i, 3)
		if !strings.HasSuffix(name, ".md") {
			continue
		}
		yml, _, _, _, err := splitFrontMatter(data)
		if err != nil {
			t.Fatal(err)
		}
		if checkQuickYAML(t, yml) {
			read++
		}
		src := &skillcat.Source{Name: name, Data: data}
		root, body, line, vs := parseFrontMatter(src)
		quickYAMLOn = false
		root2, body2, line2, vs2 := parseFrontMatter(src)
		quickYAMLOn = true
		if !reflect.DeepEqual(root, root2) || body != body2 || line != line2 || !reflect.DeepEqual(vs, vs2) {
			t.Fatalf("%s: parseFrontMatter differs with quickNode", name)
		}
	}
	if read < 190 {
		t.Errorf("quickNode read %d of 200 synthetic front matters, want nearly all", read)
	}

	keys := []string{"a", "b", "id", "$schema", "x-y", "a.b", "1", "true", "null", "-a", "a b", "<<", "ключ", "?", "k:", "'q'", "\"d\"", "a\tb"}
	values := []string{"1", "-1", "0.5", ".inf", "-", "- a", "-x", "?x", ":x", "a: b", "a:b", "a:", "http://x/y", "'q'", "\"d\"",
		"\"a'b\"", "'a\"b'", "\"a\"b\"", "a, b", "[a]", "{a: 1}", "a]", "~", "null", "é", "a #b", "#c", "*a", "&a b", "!t x",
		"!!str 1", "|", ">", "%x", "@x", "`x", "...", "---", "\"open", "'x''y'", "a\\b", "\"a\\nb\"", "x\u2028y", "x\u0085y",
		"\ufeffx", "a\"b", "it's", "2001-12-14", "0o17", "0x1F", "+1", "1e3", "yes", "on", "= x", "a  b", "$x", "x y z"}
	safeKeys := []string{"a", "b", "id", "$schema", "x-y", "a.b", "1", "true", "\"q:r\"", "\"a b\"", "\"日本語\"", "\"é\"", "\"😀\""}
	safeValues := []string{"1", "-1", "0.5", "http://x/y", "\"d\"", "'q'", "a", "b c", "é", "[]", "{}", "~", "null",
		"2001-12-14", "0x1F", "\"a, b: c\"", "a, b", "?x", ":x", "-x", "'it''s'", "\"\"", "''", "😀 x", "x\u00a0y", "\"𝄞\""}
	var accepted, declined int
	rapid.Check(t, func(rt *rapid.T) {
		tricky := rapid.SampledFrom([]int{0, 0, 20, 5}).Draw(rt, "tricky") // one piece in N is a tricky one
		pick := func(safe, all []string, label string) string {
			if tricky > 0 && rapid.IntRange(0, tricky-1).Draw(rt, label+" tricky?") == 0 {
				return rapid.SampledFrom(all).Draw(rt, label)
			}
			return rapid.SampledFrom(safe).Draw(rt, label)
		}
		var b strings.Builder
		var block func(indent, depth int, seq bool)
		block = func(indent, depth int, seq bool) {
			for n := rapid.IntRange(1, 3).Draw(rt, "entries"); n > 0; n-- {
				pad := strings.Repeat(" ", indent)
				if tricky > 0 && rapid.IntRange(0, tricky).Draw(rt, "odd indent?") == 0 {
					pad = strings.Repeat(" ", rapid.IntRange(0, indent+2).Draw(rt, "odd"))
				}
				b.WriteString(pad)
				if seq {
					b.WriteString("- ")
				}
				if seq && rapid.IntRange(0, 2).Draw(rt, "scalar item?") == 0 {
					b.WriteString(pick(safeValues, values, "item"))
					b.WriteString("\n")
					continue
				}
				b.WriteString(pick(safeKeys, keys, "key"))
				b.WriteString(pick([]string{":"}, []string{":", ": ", ":  ", " :"}, "colon"))
				inner := indent + rapid.IntRange(1, 4).Draw(rt, "step")
				if seq {
					inner += 2
				}
				switch k := rapid.IntRange(0, 5).Draw(rt, "value kind"); {
				case depth > 0 && k == 0:
					b.WriteString("\n")
					block(inner, depth-1, false)
				case depth > 0 && k == 1:
					b.WriteString("\n")
					block(inner, depth-1, true)
				default:
					if !strings.HasSuffix(b.String(), " ") {
						b.WriteString(" ")
					}
					b.WriteString(pick(safeValues, values, "value"))
					b.WriteString(pick([]string{"\n"}, []string{"\n", " \n", "\n\n", "\n   more\n"}, "end"))
				}
			}
		}
		block(0, 3, false)
		if checkQuickYAML(rt, []byte(b.String())) {
			accepted++
		} else {
			declined++
		}
	})
	t.Logf("generated documents: %d read by quickNode, %d left to yaml.v3", accepted, declined)
	if accepted < declined/4 {
		t.Errorf("quickNode read %d generated documents of %d: the generator must reach it", accepted, accepted+declined)
	}
}

// FuzzQuickYAML holds quickNode to yaml.v3 and the converter on any
// input: whatever it reads must be their tree (go test -fuzz FuzzQuickYAML ./build/).
func FuzzQuickYAML(f *testing.F) {
	for i := 0; i < 20; i++ {
		name, data := synth.Source(i, 3)
		if !strings.HasSuffix(name, ".md") {
			continue
		}
		if yml, _, _, _, err := splitFrontMatter(data); err == nil {
			f.Add(yml)
		}
	}
	f.Add([]byte("a: 1\nb:\n  - x\n  - \"y\"\n'k': [ ]\n"))
	f.Fuzz(func(t *testing.T, yml []byte) {
		checkQuickYAML(t, yml)
	})
}
