package skillcat

import (
	"strings"
	"testing"
)

// TestPropertyNamesAtTheName checks that a member name failing
// "propertyNames" is reported at that member, in the metaschema check of a
// skill's schema (a patternProperties key that is no regex) and in an
// example checked against the schema, although jsonschema/v6 hands such
// errors a location that later siblings overwrite.
func TestPropertyNamesAtTheName(t *testing.T) {
	doc := func(inputs, examples string) string {
		return `{
  "protocol": {"version": "1.0.0"},
  "id": "a.b",
  "name": "A",
  "version": "1.0.0",
  "capability_type": "api",
  "description": "A.",
  "provider": {"name": "P"},
  "endpoint": {"url": "https://api.example.org/x"},
  "inputs": ` + inputs + `,
  "output": {"type": "object"},
  "auth": {"type": "none"},
  "access": "public",
  "examples": ` + examples + `
}`
	}
	for _, c := range []struct {
		name, inputs, examples string
		want                   string // field: reason
	}{
		{"PatternPropertiesKey", `{"type": "object", "maxProperties": 3, "patternProperties": {"(": true}, "minProperties": 0}`, `[]`,
			`inputs.patternProperties["("]: is not a valid JSON Schema: its name must be a valid regex; got "("`},
		{"NestedKey", `{"type": "object", "properties": {"a": {"type": "object", "patternProperties": {"[": true}, "maxProperties": 2}, "b": {"type": "string"}}}`, `[]`,
			`inputs.properties.a.patternProperties["["]: is not a valid JSON Schema: its name must be a valid regex; got "["`},
		{"ExampleKey", `{"type": "object", "properties": {"tags": {"type": "object", "propertyNames": {"maxLength": 3}}, "z": {"type": "string"}}}`,
			`[{"title": "t", "inputs": {"tags": {"ok": 1, "toolong": 2}, "z": "x"}}]`,
			`examples[0].inputs.tags.toolong: its name must be at most 3 characters; got "toolong"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := doc(c.inputs, c.examples)
			_, vs := ParseDescriptor("a.json", []byte(data))
			var got []string
			for _, v := range vs {
				if v.Severity == SeverityError {
					got = append(got, v.Field+": "+v.Reason)
				}
			}
			if len(got) != 1 || got[0] != c.want {
				t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), c.want)
			}
			v := vs[0]
			line := strings.Split(data, "\n")[v.Line-1]
			if name := c.want[strings.LastIndex(c.want, `got "`)+5 : len(c.want)-1]; !strings.HasPrefix(line[v.Column-1:], `"`+name+`"`) {
				t.Errorf("reported at %d:%d, which is not the member name %q: %s", v.Line, v.Column, name, line)
			}
		})
	}
}
