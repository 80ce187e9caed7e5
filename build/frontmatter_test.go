package build_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	skillcat "github.com/skillcat/skillcat"
)

// frontMatter is a valid Markdown source; its line numbers are the ones the
// tests expect in messages (the opening "---" is line 1).
const frontMatter = `---
protocol:
  version: "1.0.0"
id: fm.skill
name: Front Matter Skill
version: "1.2.3"
capability_type: task
provider:
  name: Acme
endpoint:
  url: https://api.example.com/fm
inputs:
  type: object
  properties:
    n: {type: integer, maximum: 10}
output: true
auth:
  type: none
access: public
---

Body line one.
`

// editLine returns src with the whole line old replaced by new (which may
// be several lines, or nothing to delete it).
func editLine(t *testing.T, src, old, new string) string {
	t.Helper()
	lines := strings.Split(src, "\n")
	for i, l := range lines {
		if l == old {
			if new == "" {
				return strings.Join(append(lines[:i:i], lines[i+1:]...), "\n")
			}
			lines[i] = new
			return strings.Join(lines, "\n")
		}
	}
	t.Fatalf("no line %q to edit", old)
	return ""
}

func TestFrontMatter(t *testing.T) {
	type edit struct{ old, new string }
	for _, tc := range []struct {
		name  string
		src   string // the source, when not frontMatter with edits
		edits []edit
		want  []string
	}{
		{name: "OK"},
		{name: "OKDescriptionInFrontMatter", src: strings.Replace(frontMatter, "access: public\n---\n\nBody line one.\n", "access: public\ndescription: In the front matter.\n---\n", 1)},
		{name: "OKClosingDots", src: strings.Replace(frontMatter, "access: public\n---\n", "access: public\n...\n", 1)},
		{name: "OKByteOrderMarkAndCRLF", src: "\ufeff" + strings.ReplaceAll(frontMatter, "\n", "\r\n")},
		{name: "OKTrailingSpaceOnFences", src: strings.ReplaceAll(frontMatter, "---\n", "--- \t\n")},
		{name: "OKAnchorAndAlias", edits: []edit{{"inputs:", "inputs: &in"}, {"output: true", "output: *in"}}},
		{
			name: "ErrEmpty", src: "",
			want: []string{"content/s.md:1:1: (file): file is empty: expected YAML front matter between --- lines, then the Markdown description"},
		},
		{
			name: "ErrWhitespaceOnly", src: " \n\t\r\n\n",
			want: []string{"content/s.md:1:1: (file): file is empty: expected YAML front matter between --- lines, then the Markdown description"},
		},
		{
			name: "ErrNotUTF8", src: strings.Replace(frontMatter, "Acme", "Ac\xffme", 1),
			want: []string{"content/s.md:9:11: (file): file is not valid UTF-8 (byte 0xff); save it as UTF-8"},
		},
		{
			name: "ErrNoFrontMatter", src: "# Front Matter Skill\n\nid: fm.skill\n",
			want: []string{`content/s.md:1:1: (file): a Markdown source must start with a "---" line opening its YAML front matter`},
		},
		{
			name: "ErrFenceNotFirst", src: "\n" + frontMatter,
			want: []string{`content/s.md:1:1: (file): a Markdown source must start with a "---" line opening its YAML front matter`},
		},
		{
			name: "ErrUnclosed", src: strings.Replace(frontMatter, "access: public\n---\n", "access: public\n", 1),
			want: []string{`content/s.md:1:1: (file): front matter is never closed: add a "---" line after the YAML members`},
		},
		{
			name: "ErrYAMLUnclosedFlowSequence", edits: []edit{{"capability_type: task", "capability_type: [task"}},
			want: []string{`content/s.md:7:18: (file): invalid YAML front matter: the "[" opened here is never closed with "]" on this line; close it, or quote a value that holds a comma, bracket or brace`},
		},
		{
			name: "ErrYAMLUnclosedFlowMapping", edits: []edit{{"    n: {type: integer, maximum: 10}", "    n: {type: integer, maximum: 10"}},
			want: []string{`content/s.md:15:8: (file): invalid YAML front matter: the "{" opened here is never closed with "}" on this line; close it, or quote a value that holds a comma, bracket or brace`},
		},
		{
			// yaml.v3 parses this without a word and drops the last two
			// members: tags would vanish from the published descriptor.
			name: "ErrYAMLDedentDropsMembers",
			src: "---\n  protocol: {version: \"1.0.0\"}\n  id: ind.one\n  name: N\n  version: 1.0.0\n  capability_type: api\n  provider: {name: P}\n" +
				"  endpoint: {url: \"https://e.example/x\"}\n  inputs: {type: object}\n  output: {}\n  auth: {type: none}\n  access: public\ntags: [t]\nx-note: kept\n---\nBody\n",
			want: []string{`content/s.md:13:1: (file): invalid YAML front matter: this line is indented less than the first member, so YAML ends the front matter before it and would drop it and every line after; start every top-level member in one column`},
		},
		{
			name: "ErrYAMLBadIndentation", edits: []edit{{"  type: none", "  type: none\n in: header"}},
			want: []string{`content/s.md:19:2: (file): invalid YAML front matter: this line is indented differently from the members before it; the members of one mapping must start in the same column`},
		},
		{
			name: "ErrYAMLMappingValue", edits: []edit{{"name: Front Matter Skill", "name: Front: Matter"}},
			want: []string{`content/s.md:5:12: (file): invalid YAML front matter: a colon followed by a space cannot stand in an unquoted value; quote the value: "Front: Matter"`},
		},
		{
			name: "ErrYAMLTab", edits: []edit{{"  name: Acme", "\tname: Acme"}},
			want: []string{`content/s.md:9:1: (file): invalid YAML front matter: a tab indents this line; YAML indents with spaces only`},
		},
		{
			name: "ErrYAMLFirstLine", edits: []edit{{"protocol:", "protocol: @1"}},
			want: []string{`content/s.md:2:11: (file): invalid YAML front matter: a plain YAML value cannot start with "@"; quote it: "@1"`},
		},
		{
			name: "ErrYAMLUnknownAnchor", edits: []edit{{"output: true", "output: *schema"}},
			want: []string{`content/s.md:16:9: (file): invalid YAML front matter: the alias *schema names no anchor; mark the value it repeats with &schema first`},
		},
		{
			name: "ErrYAMLUnclosedQuote", edits: []edit{{"name: Front Matter Skill", `name: "Front Matter Skill`}},
			want: []string{`content/s.md:5:7: (file): invalid YAML front matter: the quoted value that starts here is never closed; end it with " on this line`},
		},
		{
			name: "ErrYAMLIndentedValue", edits: []edit{{"version: \"1.2.3\"", "version: \"1.2.3\"\n  capability_type: task"}, {"capability_type: task", ""}},
			want: []string{`content/s.md:7:3: (file): invalid YAML front matter: this line is indented deeper than line 6, whose member already has a value; align it with line 6, or nest it under a member that has no value of its own`},
		},
		{
			name: "ErrYAMLNotAListItem", edits: []edit{{"access: public", "access: public\ntags:\n  - a\n  b: 1"}},
			want: []string{`content/s.md:22:3: (file): invalid YAML front matter: this line stands among the items of a list, which all start with "- "; make it an item, or indent it under one`},
		},
		{
			name: "ErrYAMLUnknownEscape", edits: []edit{{"name: Front Matter Skill", `name: "Front \q Skill"`}},
			want: []string{`content/s.md:5:14: (file): invalid YAML front matter: "\q" is not an escape a double-quoted YAML string knows; write \\ for a backslash, or use single quotes`},
		},
		{
			name: "ErrYAMLNotMapping", src: "---\n- id: fm.skill\n---\nBody.\n",
			want: []string{`content/s.md:2:1: (file): front matter must be a YAML mapping of descriptor members; got array`},
		},
		{
			name: "ErrYAMLInfinity", edits: []edit{{"    n: {type: integer, maximum: 10}", "    n: {type: integer, maximum: .inf}"}},
			want: []string{`content/s.md:15:33: inputs.properties.n.maximum: YAML number .inf has no JSON equivalent; write a plain decimal number, or quote it to make it a string`},
		},
		{
			name: "ErrYAMLNaNInArray", edits: []edit{{"access: public", "access: public\ntags: [maps, .nan]"}},
			want: []string{`content/s.md:20:14: tags[1]: YAML number .nan has no JSON equivalent; write a plain decimal number, or quote it to make it a string`},
		},
		{
			// Every conversion problem of the file is reported, not the first.
			name: "ErrYAMLEveryNumber", edits: []edit{
				{"    n: {type: integer, maximum: 10}", "    n: {type: integer, maximum: .inf, minimum: -.Inf}"},
				{"access: public", "access: public\nx-a: !!int ten\nx-b: 1e1000001\nx-c: !!bool yes"}},
			want: []string{
				`content/s.md:15:33: inputs.properties.n.maximum: YAML number .inf has no JSON equivalent; write a plain decimal number, or quote it to make it a string`,
				`content/s.md:15:48: inputs.properties.n.minimum: YAML number -.Inf has no JSON equivalent; write a plain decimal number, or quote it to make it a string`,
				`content/s.md:20:6: x-a: "ten" is not a YAML 1.2 number (digits, 0o octal, 0x hex, or a decimal with an exponent); remove the tag to make it a string`,
				`content/s.md:21:6: x-b: number 1e1000001 has an exponent beyond ±1000; no schema keyword needs one that large`,
				`content/s.md:22:6: x-c: "yes" is not a boolean JSON knows; write true or false`,
			},
		},
		{
			name: "ErrYAMLMergeKey", edits: []edit{{"access: public", "access: public\n<<: {x-a: 1}"}},
			want: []string{`content/s.md:20:1: (file): YAML merge keys (<<) are not supported; write the members out`},
		},
		{
			name: "ErrDescriptionTwice", edits: []edit{{"access: public", "access: public\ndescription: Also here."}},
			want: []string{`content/s.md:20:14: description: is given both in the front matter and as the Markdown body; keep one`},
		},
		{
			name: "ErrDuplicateMember", edits: []edit{{"access: public", "access: public\nid: fm.other"}},
			want: []string{`content/s.md:20:1: id: member "id" appears more than once in this object`},
		},
		{
			name: "ErrValuePosition", edits: []edit{{"capability_type: task", "capability_type: tasks"}, {"  type: none", "  type: basic"}},
			want: []string{
				`content/s.md:7:18: capability_type: must be one of "plugin", "api", "knowledge", "task"; got "tasks"; did you mean "task"?`,
				`content/s.md:18:9: auth.type: must be one of "api_key", "oauth2", "custom", "none"; got "basic"`,
			},
		},
		{
			name: "ErrNumberForString", edits: []edit{{`version: "1.2.3"`, "version: 1.0"}, {"name: Front Matter Skill", "name: 2026"}, {"  name: Acme", "  name: true"}},
			want: []string{
				`content/s.md:5:7: name: must be a string; got number 2026; YAML reads an unquoted 2026 as a number: write "2026"`,
				`content/s.md:6:10: version: must be a string; got number 1.0; YAML reads an unquoted 1.0 as a number: write "1.0.0"`,
				`content/s.md:9:9: provider.name: must be a string; got boolean true; YAML reads an unquoted true as a boolean: write "true"`,
			},
		},
		{
			name: "ErrMissingMember", edits: []edit{{"name: Front Matter Skill", ""}},
			want: []string{`content/s.md:1:1: name: required member is missing`},
		},
		{
			name: "ErrNoDescription", src: strings.Replace(frontMatter, "\nBody line one.\n", "\n\n  \n", 1),
			want: []string{`content/s.md:1:1: description: required member is missing`},
		},
		{
			name: "ErrBodyPosition", src: strings.Replace(frontMatter, "Body line one.", strings.Repeat("x", 20001), 1),
			want: []string{`content/s.md:22:1: description: must be at most 20000 characters; got 20001`},
		},
		{
			name: "ErrIncompatibleVersion", edits: []edit{{`  version: "1.0.0"`, `  version: "2.0.0"`}, {"access: public", "access: nope"}},
			want: []string{`content/s.md:3:12: protocol.version: incompatible protocol version 2.0.0 (supported: 1.x)`},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := tc.src
			if src == "" && !strings.HasPrefix(tc.name, "ErrEmpty") {
				src = frontMatter
			}
			for _, e := range tc.edits {
				src = editLine(t, src, e.old, e.new)
			}
			got := validateLines(t, fstest.MapFS{"s.md": {Data: []byte(src)}})
			assertLines(t, got, tc.want)
		})
	}
}

// TestFrontMatterPublished checks what a Markdown source publishes: the
// same bytes as the JSON source of the same descriptor, numbers exactly as
// written, dates and other YAML scalars as strings.
func TestFrontMatterPublished(t *testing.T) {
	publish := func(t *testing.T, name, src string) map[string]any {
		t.Helper()
		out := filepath.Join(t.TempDir(), "public")
		mustBuild(t, config(fstest.MapFS{name: {Data: []byte(src)}}, out))
		data := readFile(t, out, "skills/fm.skill.json")
		d, vs := skillcat.ParseDescriptor("fm.skill.json", data)
		if d == nil {
			t.Fatalf("published descriptor is invalid:\n%v", vs)
		}
		var m map[string]any
		dec := json.NewDecoder(strings.NewReader(string(data)))
		dec.UseNumber()
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		m["_bytes"] = string(data)
		return m
	}

	t.Run("SameAsJSON", func(t *testing.T) {
		md := publish(t, "s.md", frontMatter)
		js := publish(t, "s.json", `{"protocol": {"version": "1.0.0"}, "id": "fm.skill", "name": "Front Matter Skill",
			"version": "1.2.3", "capability_type": "task", "provider": {"name": "Acme"},
			"endpoint": {"url": "https://api.example.com/fm"},
			"inputs": {"type": "object", "properties": {"n": {"type": "integer", "maximum": 10}}},
			"output": true, "auth": {"type": "none"}, "access": "public", "description": "Body line one."}`)
		if md["_bytes"] != js["_bytes"] {
			t.Errorf("the .md source publishes\n%s\nthe .json source\n%s", md["_bytes"], js["_bytes"])
		}
	})

	t.Run("Scalars", func(t *testing.T) {
		src := editLine(t, frontMatter, "access: public", `access: public
x-big: 123456789012345678901234567890
x-small: 1e-7
x-hex: 0x1F
x-date: 2001-12-14
x-null: ~
x-bool: true
x-quoted: "10"
x-block: |
  two
  lines
x-octal-looking: 010
x-negative-zeros: -007
x-huge: 1e400
x-leading-dot: .5
x-trailing-dot: 5.
x-dot-exponent: 1.e3
x-plus: +12.5e-3
x-hex-big: 0x8000000000000000
x-hex-bigger: 0x10000000000000000
x-octal: 0o17
x-binary-is-text: 0b101
x-underscore-is-text: 1_000
x-yes-is-text: yes
x-tagged-str: !!str 10
x-tagged-float: !!float 3`)
		m := publish(t, "s.md", src)
		for name, want := range map[string]string{
			"x-big":    "123456789012345678901234567890",
			"x-small":  "1e-7",
			"x-hex":    "31",
			"x-date":   `"2001-12-14"`,
			"x-null":   "null",
			"x-bool":   "true",
			"x-quoted": `"10"`,
			"x-block":  `"two\nlines\n"`,
			// YAML 1.2 core numbers (docs/protocol.md).
			"x-octal-looking":      "10",
			"x-negative-zeros":     "-7",
			"x-huge":               "1e400",
			"x-leading-dot":        "0.5",
			"x-trailing-dot":       "5.0",
			"x-dot-exponent":       "1.0e3",
			"x-plus":               "12.5e-3",
			"x-hex-big":            "9223372036854775808",
			"x-hex-bigger":         "18446744073709551616",
			"x-octal":              "15",
			"x-binary-is-text":     `"0b101"`,
			"x-underscore-is-text": `"1_000"`,
			"x-yes-is-text":        `"yes"`,
			"x-tagged-str":         `"10"`,
			"x-tagged-float":       "3",
		} {
			got, _ := json.Marshal(m[name])
			if n, ok := m[name].(json.Number); ok {
				got = []byte(n.String())
			}
			if string(got) != want {
				t.Errorf("%s published as %s, want %s", name, got, want)
			}
			if !strings.Contains(m["_bytes"].(string), `"`+name+`": `+want) {
				t.Errorf("%s is not written as %s:\n%s", name, want, m["_bytes"])
			}
		}
	})
}

// TestSiteFile checks that the site file is read like a Markdown source and
// its problems are reported with positions.
func TestSiteFile(t *testing.T) {
	skill := &fstest.MapFile{Data: jsonSource(descriptor("site.skill"))}
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"OK", "---\ntitle: My Skills\ndescription: Tools.\n---\nHello **you**.\n", nil},
		{"OKNoBody", "---\ntitle: My Skills\n---\n", nil},
		{"ErrTitle", "---\ntitle: 42\nlogo: \"\"\n---\n", []string{
			"content/_index.md:2:8: title: must be a non-empty string",
			"content/_index.md:3:7: logo: must be a non-empty string",
		}},
		{"ErrYAML", "---\ntitle: My Skills\ndescription: [Tools\n---\n", []string{
			`content/_index.md:3:14: (file): invalid YAML front matter: the "[" opened here is never closed with "]" on this line; close it, or quote a value that holds a comma, bracket or brace`,
		}},
		{"ErrYAMLFirstLine", "---\ntitle: [My Skills\ndescription: Tools.\n---\n", []string{
			`content/_index.md:2:8: (file): invalid YAML front matter: the "[" opened here is never closed with "]" on this line; close it, or quote a value that holds a comma, bracket or brace`,
		}},
		{"ErrYAMLOnlyLine", "---\ntitle: {My Skills\n---\nIntro.\n", []string{
			`content/_index.md:2:8: (file): invalid YAML front matter: the "{" opened here is never closed with "}" on this line; close it, or quote a value that holds a comma, bracket or brace`,
		}},
		{"ErrYAMLDedent", "---\n  title: My Skills\n\n  # intro below\ndescription: Tools.\n---\n", []string{
			`content/_index.md:5:1: (file): invalid YAML front matter: this line is indented less than the first member, so YAML ends the front matter before it and would drop it and every line after; start every top-level member in one column`,
		}},
		{"OKIndented", "---\n  title: My Skills\n  description: Tools.\n---\n", nil},
		{"ErrUnclosed", "---\ntitle: My Skills\n", []string{
			`content/_index.md:1:1: (file): front matter is never closed: add a "---" line after the YAML members`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := fstest.MapFS{"_index.md": {Data: []byte(tc.src)}, "skill.json": skill}
			assertLines(t, validateLines(t, fsys), tc.want)
		})
	}
}
