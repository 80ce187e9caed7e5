package main

import (
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// validateFixture changes into a fresh folder holding content/ with the
// given files.
func validateFixture(t *testing.T, files map[string]string) {
	t.Helper()
	t.Chdir(t.TempDir())
	os.MkdirAll("content", 0o755)
	writeContent(t, "content", files)
}

// invalidFiles has two errors and a warning in two files.
var invalidFiles = map[string]string{
	"a.json": skillJSON("val.a", map[string]string{"access": `"restricted"`}, `"nme": "typo"`),
	"b.md":   strings.Replace(skillMD("val.b"), "capability_type: knowledge", "capability_type: [knowledge", 1),
	"c.json": skillJSON("val.c", map[string]string{"access": `"private"`}),
}

func TestValidateCommand(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		validateFixture(t, map[string]string{"a.json": skillJSON("val.a", nil), "c.json": invalidFiles["c.json"]})
		code, stdout, stderr := runSkillcat(t, nil, "validate", "--content", "content")
		if code != exitOK || stdout != "" {
			t.Errorf("exit %d, stdout %q; want 0 and nothing", code, stdout)
		}
		if !strings.Contains(stderr, "2 sources valid") {
			t.Errorf("stderr = %q, want a summary", stderr)
		}
		if _, err := os.Stat("public"); err == nil {
			t.Errorf("validate wrote public/")
		}
		if code, stdout, stderr := runSkillcat(t, nil, "validate", "--content", "content", "--quiet"); code != 0 || stdout != "" || stderr != "" {
			t.Errorf("--quiet: exit %d, stdout %q, stderr %q; want 0 and nothing", code, stdout, stderr)
		}
	})

	t.Run("Text", func(t *testing.T) {
		validateFixture(t, invalidFiles)
		code, stdout, stderr := runSkillcat(t, nil, "validate", "--content", "content")
		if code != exitInvalid || stdout != "" {
			t.Errorf("exit %d, stdout %q; want %d and nothing", code, stdout, exitInvalid)
		}
		want := []string{
			`content/a.json:13:13: access: must not be "restricted" when auth.type is "none"`,
			`content/a.json:14:3: warning: nme: unknown member "nme"; did you mean "name"?`,
			`content/b.md:7:18: (file): invalid YAML front matter: the "[" opened here is never closed with "]" on this line; close it, or quote a value that holds a comma, bracket or brace`,
			`skillcat: 2 errors, 1 warning in 3 sources`,
		}
		if got := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n"); !slices.Equal(got, want) {
			t.Errorf("stderr:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
		}
		code, _, stderr = runSkillcat(t, nil, "validate", "--content", "content", "--strict")
		if code != exitInvalid || !strings.Contains(stderr, "content/a.json:14:3: nme: unknown member") || !strings.Contains(stderr, "3 errors, 0 warnings") {
			t.Errorf("--strict: exit %d, stderr:\n%s", code, stderr)
		}
	})

	t.Run("JSON", func(t *testing.T) {
		validateFixture(t, invalidFiles)
		code, stdout, stderr := runSkillcat(t, nil, "validate", "--content", "content", "--format", "json")
		if code != exitInvalid || stderr != "" {
			t.Errorf("exit %d, stderr %q; want %d and nothing", code, stderr, exitInvalid)
		}
		var got []map[string]any
		if err := json.Unmarshal([]byte(stdout), &got); err != nil {
			t.Fatalf("stdout is not a JSON array of objects: %v\n%s", err, stdout)
		}
		want := []map[string]any{
			{"file": "content/a.json", "line": 13.0, "column": 13.0, "pointer": "/access", "field": "access",
				"reason": `must not be "restricted" when auth.type is "none"`, "severity": "error"},
			{"file": "content/a.json", "line": 14.0, "column": 3.0, "pointer": "/nme", "field": "nme",
				"reason": `unknown member "nme"; did you mean "name"?`, "severity": "warning"},
			{"file": "content/b.md", "line": 7.0, "column": 18.0, "pointer": "", "field": "(file)",
				"reason": `invalid YAML front matter: the "[" opened here is never closed with "]" on this line; close it, or quote a value that holds a comma, bracket or brace`, "severity": "error"},
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("stdout:\n%s\nwant:\n%v", stdout, want)
		}
	})

	t.Run("JSONValid", func(t *testing.T) {
		validateFixture(t, map[string]string{"a.json": skillJSON("val.a", nil)})
		code, stdout, stderr := runSkillcat(t, nil, "validate", "--content", "content", "--format", "json")
		if code != exitOK || stderr != "" || strings.TrimSpace(stdout) != "[]" {
			t.Errorf("exit %d, stdout %q, stderr %q; want 0, [] and nothing", code, stdout, stderr)
		}
		writeContent(t, "content", map[string]string{"a.json": skillJSON("val.a", nil, `"nme": "typo"`)})
		code, stdout, stderr = runSkillcat(t, nil, "validate", "--content", "content", "--format", "json")
		var got []map[string]any
		if err := json.Unmarshal([]byte(stdout), &got); err != nil || code != exitOK || stderr != "" || len(got) != 1 || got[0]["severity"] != "warning" {
			t.Errorf("with a warning: exit %d, stdout %q, stderr %q; want 0 and one warning", code, stdout, stderr)
		}
	})

	t.Run("GitHub", func(t *testing.T) {
		validateFixture(t, map[string]string{
			"we,ird%na:me.json": "",
			"a.json":            invalidFiles["a.json"],
		})
		code, stdout, stderr := runSkillcat(t, nil, "validate", "--content", "content", "--format", "github")
		if code != exitInvalid || stderr != "" {
			t.Errorf("exit %d, stderr %q; want %d and nothing", code, stderr, exitInvalid)
		}
		want := []string{
			`::error file=content/a.json,line=13,col=13,title=access::access: must not be "restricted" when auth.type is "none"`,
			`::warning file=content/a.json,line=14,col=3,title=nme::nme: unknown member "nme"; did you mean "name"?`,
			`::error file=content/we%2Cird%25na%3Ame.json,line=1,col=1,title=(file)::(file): file is empty: expected a JSON object`,
		}
		if got := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n"); !slices.Equal(got, want) {
			t.Errorf("stdout:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
		}
	})

	t.Run("GitHubEscaping", func(t *testing.T) {
		for _, tc := range []struct{ in, property, data string }{
			{"plain", "plain", "plain"},
			{"50% off", "50%25 off", "50%25 off"},
			{"a\nb\r\nc", "a%0Ab%0D%0Ac", "a%0Ab%0D%0Ac"},
			{"a:b,c", "a%3Ab%2Cc", "a:b,c"},
			{"%0A", "%250A", "%250A"},
		} {
			if got := ghProperty(tc.in); got != tc.property {
				t.Errorf("ghProperty(%q) = %q, want %q", tc.in, got, tc.property)
			}
			if got := ghData(tc.in); got != tc.data {
				t.Errorf("ghData(%q) = %q, want %q", tc.in, got, tc.data)
			}
		}
	})

	t.Run("Usage", func(t *testing.T) {
		validateFixture(t, nil)
		for _, tc := range []struct {
			args []string
			want string
		}{
			{[]string{"validate", "--content", "missing"}, `skillcat: content directory "missing" not found; run skillcat in a catalog's folder, start one with skillcat init, or pass --content DIR`},
			{[]string{"validate", "--content", "content", "--format", "xml"}, `--format must be text, json or github; got "xml"`},
			{[]string{"validate", "--content", "content", "--nope"}, "flag provided but not defined: -nope"},
			{[]string{"validate", "--content", "content", "extra"}, `unexpected argument "extra"`},
		} {
			code, stdout, stderr := runSkillcat(t, nil, tc.args...)
			if code != exitUsage || stdout != "" || !strings.Contains(stderr, tc.want) {
				t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d and %q", tc.args, code, stdout, stderr, exitUsage, tc.want)
			}
		}
		// Missing content with --format json is still a usage error, told
		// on stderr; stdout stays empty for the machine reading it.
		code, stdout, stderr := runSkillcat(t, nil, "validate", "--content", "missing", "--format", "json")
		if code != exitUsage || stdout != "" || stderr == "" {
			t.Errorf("--format json, missing content: exit %d, stdout %q, stderr %q", code, stdout, stderr)
		}
	})

	t.Run("Sample", func(t *testing.T) {
		code, stdout, stderr := runSkillcat(t, nil, "validate", "--content", sampleContent, "--format", "json")
		if code != exitOK || strings.TrimSpace(stdout) != "[]" || stderr != "" {
			t.Errorf("the sample content: exit %d, stdout %q, stderr %q; want 0, [] and nothing", code, stdout, stderr)
		}
	})
}

// TestValidateIndexOrMember checks, through validate's output, that every
// kind of message tells an array index (list[0]) from a member named "0"
// (["0"]): schema violations in a JSON source, conversion problems of YAML
// front matter, and lint warnings (unknown keywords and members).
func TestValidateIndexOrMember(t *testing.T) {
	schema := `{"type": "object", "properties": {"0": {"type": "string", "nullable": true}, "list": {"type": "array", "prefixItems": [{"type": "string", "nullable": true}]}}}`
	md := `---
protocol:
  version: "1.0.0"
id: val.md
name: Skill val.md
version: "1.0.0"
capability_type: knowledge
provider:
  name: Acme
endpoint:
  url: https://api.example.com/val.md
inputs:
  type: object
  properties:
    "0": {type: string}
    list: {type: array, items: {type: boolean}}
output: true
auth:
  type: none
access: public
examples:
  - title: Both
    inputs:
      "0": !!bool maybe
      list: [!!bool perhaps]
    output: {}
---

Knows about val.md.
`
	validateFixture(t, map[string]string{
		"a.json": skillJSON("val.json", map[string]string{"inputs": schema},
			`"examples": [{"title": "Both", "inputs": {"0": 5, "list": [6]}, "output": {}, "access": "public"}]`),
		"b.md": md,
	})
	code, stdout, stderr := runSkillcat(t, nil, "validate", "--content", "content")
	if code != exitInvalid || stdout != "" {
		t.Errorf("exit %d, stdout %q; want %d and nothing", code, stdout, exitInvalid)
	}
	want := []string{
		`content/a.json:10:71: warning: inputs.properties["0"].nullable: "nullable" is an OpenAPI keyword that JSON Schema 2020-12 ignores; allow null in "type" instead: "type": ["string", "null"]`,
		`content/a.json:10:151: warning: inputs.properties.list.prefixItems[0].nullable: "nullable" is an OpenAPI keyword that JSON Schema 2020-12 ignores; allow null in "type" instead: "type": ["string", "null"]`,
		`content/a.json:14:50: examples[0].inputs["0"]: must be a string; got number 5`,
		`content/a.json:14:62: examples[0].inputs.list[0]: must be a string; got number 6`,
		`content/a.json:14:81: warning: examples[0].access: "access" is not a member of examples[]; did you mean the top-level "access"?`,
		`content/b.md:24:12: examples[0].inputs["0"]: "maybe" is not a boolean JSON knows; write true or false`,
		`content/b.md:25:14: examples[0].inputs.list[0]: "perhaps" is not a boolean JSON knows; write true or false`,
		`skillcat: 4 errors, 3 warnings in 2 sources`,
	}
	if got := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n"); !slices.Equal(got, want) {
		t.Errorf("stderr:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}
