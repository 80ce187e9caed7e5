package skillcat_test

import (
	"strings"
	"testing"

	"github.com/skillcat/skillcat"
)

// TestNumberBounds puts a number beyond the bounds in every place a number
// can stand in each kind of document: each is refused at the number's
// position, in a message of bounded length, and nothing panics.
func TestNumberBounds(t *testing.T) {
	const huge = "1e1000001"
	long := "1" + strings.Repeat("0", 1000001) // a million digits, no exponent
	exponentReason := "number " + huge + " has an exponent beyond ±1000; no schema keyword needs one that large"
	for _, tc := range []struct {
		name  string
		edits []edit
		line  int
	}{
		{"Minimum", []edit{with("inputs", `{"type": "object", "properties": {"days": {"type": "integer", "minimum": NUM}}}`)}, 11},
		{"MultipleOf", []edit{with("inputs", `{"type": "number", "multipleOf": NUM}`)}, 11},
		{"Const", []edit{with("output", `{"const": NUM}`)}, 12},
		{"Enum", []edit{with("output", `{"enum": [1, NUM]}`)}, 12},
		{"ExampleInput", []edit{with("examples", `[{"title": "Berlin", "inputs": {"city": "Berlin", "days": NUM}}]`)}, 16},
		{"ExampleOutput", []edit{with("examples", `[{"title": "Berlin", "inputs": {"city": "Berlin"}, "output": {"hourly": [NUM]}}]`)}, 16},
		{"WrongType", []edit{with("name", `NUM`)}, 5},
		{"Extension", []edit{with("x-limit", `NUM`)}, 18},
		{"NegativeExponent", []edit{with("x-limit", `-1E-1000001`)}, 18},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, num := range []string{huge, long} {
				src := build(baseDescriptor, tc.edits...)
				src = []byte(strings.Replace(string(src), "NUM", num, 1))
				_, vs := skillcat.ParseDescriptor("d.json", src)
				lit := num
				if tc.name == "NegativeExponent" {
					lit = "-1E-1000001"
				}
				reason := strings.Replace(exponentReason, huge, lit, 1)
				if lit == long {
					reason = "number 100000000000…00000000 is 1000002 characters long; numbers may have at most 1000"
				}
				lines := strings.Split(string(src), "\n")
				col := strings.Index(lines[tc.line-1], lit) + 1
				checkViolations(t, "d.json", src, vs, []want{fileErr(tc.line, col, reason)})
				if tc.name == "NegativeExponent" {
					break
				}
			}
		})
	}

	t.Run("WithinBoundsComparesExactly", func(t *testing.T) {
		src := build(baseDescriptor,
			with("inputs", `{"type": "object", "properties": {"days": {"type": "number", "minimum": 1e1000}}}`),
			with("examples", `[{"title": "Berlin", "inputs": {"days": 9.99e999}}]`))
		_, vs := skillcat.ParseDescriptor("d.json", src)
		if len(vs) != 1 || vs[0].Reason != "must be at least 1e+1000; got 9.99e999" {
			t.Fatalf("9.99e999 against minimum 1e1000: got %.300v, want one short minimum violation", vs)
		}
	})

	t.Run("Index", func(t *testing.T) {
		src := []byte(`{"protocol": {"version": "1.0.0"}, "x-n": ` + huge + `, "skills": []}`)
		_, vs := skillcat.ParseIndex("skills.json", src)
		if len(vs) != 1 || vs[0].Column != strings.Index(string(src), huge)+1 || vs[0].Reason != exponentReason {
			t.Fatalf("got %v, want the exponent refused at column %d", vs, strings.Index(string(src), huge)+1)
		}
	})

	t.Run("Request", func(t *testing.T) {
		src := []byte(`{"protocol": {"version": "1.0.0"}, "skill_id": "a.b", "inputs": {"n": ` + huge + `}}`)
		_, vs := skillcat.ParseRequest("req.json", src)
		if len(vs) != 1 || vs[0].Reason != exponentReason {
			t.Fatalf("got %v, want the exponent refused", vs)
		}
	})

	t.Run("Response", func(t *testing.T) {
		src := []byte(`{"protocol": {"version": "1.0.0"}, "skill_id": "a.b", "status": "ok", "output": [` + huge + `]}`)
		_, vs := skillcat.ParseResponse("resp.json", src)
		if len(vs) != 1 || vs[0].Reason != exponentReason {
			t.Fatalf("got %v, want the exponent refused", vs)
		}
	})
}
