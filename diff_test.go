package skillcat_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/skillcat/skillcat"
)

func TestDiffJSON(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want string
		shape     bool
		diffs     []string
	}{
		{"Equal", `{"b":[1,2],"a":"x"}`, `{"a":"x","b":[1.0,2e0]}`, false, nil},
		{"BigNumbers", `123456789012345678901234567890`, `123456789012345678901234567890.0`, false, nil},
		{"Number", `{"t":{"c":3.5}}`, `{"t":{"c":3.25}}`, false, []string{"output.t.c: got 3.5, want 3.25"}},
		{"Missing", `{}`, `{"a":1}`, false, []string{"output.a: missing; want 1"}},
		{"Extra", `{"a":1,"b":2}`, `{"a":1}`, false, []string{"output.b: not expected; got 2"}},
		{"Length", `[1]`, `[1,2]`, false, []string{"output: got 1 items, want 2 items"}},
		{"Index", `[{"x":"a"},{"x":"b"}]`, `[{"x":"a"},{"x":"c"}]`, false, []string{`output[1].x: got "b", want "c"`}},
		{"Type", `{"a":"1"}`, `{"a":1}`, false, []string{`output.a: got "1", want 1`}},
		{"MemberNamedZero", `{"0":[1]}`, `{"0":[2]}`, false, []string{`output["0"][0]: got 1, want 2`}},
		{"OddName", `{"a b":1}`, `{}`, false, []string{`output["a b"]: not expected; got 1`}},
		{"LargeExponent", `1e1000`, `10e999`, false, nil},
		{"ShapeOK", `{"a":2,"b":[{"x":9},{"x":8}],"extra":true}`, `{"a":1,"b":[{"x":1}]}`, true, nil},
		{"ShapeType", `{"a":"2"}`, `{"a":1}`, true, []string{`output.a: got "2", want 1`}},
		{"ShapeItems", `{"b":[{"y":1}]}`, `{"b":[{"x":1}]}`, true, []string{"output.b[0].x: missing; want 1"}},
		{"ShapeEmpty", `{"b":[]}`, `{"b":[{"x":1}]}`, true, []string{`output.b: got [], want at least one item like {"x":1}`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			diffs, err := skillcat.DiffJSON("output", json.RawMessage(c.got), json.RawMessage(c.want), c.shape)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range diffs {
				got = append(got, d.String())
			}
			if strings.Join(got, "\n") != strings.Join(c.diffs, "\n") {
				t.Errorf("got %q, want %q", got, c.diffs)
			}
		})
	}
	t.Run("Bounded", func(t *testing.T) {
		got := `[` + strings.Repeat(`1,`, 99) + `1]`
		want := `[` + strings.Repeat(`2,`, 99) + `2]`
		diffs, _ := skillcat.DiffJSON("", json.RawMessage(got), json.RawMessage(want), false)
		if len(diffs) != skillcat.MaxDifferences {
			t.Errorf("got %d differences, want %d", len(diffs), skillcat.MaxDifferences)
		}
	})
	t.Run("ErrNotJSON", func(t *testing.T) {
		if _, err := skillcat.DiffJSON("", json.RawMessage(`{`), json.RawMessage(`{}`), false); err == nil {
			t.Error("got no error")
		}
	})
}
