package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/internal/treetest"
)

// sampleContent is the repository's sample catalog, found before any test
// changes the working directory.
var sampleContent, _ = filepath.Abs(filepath.Join("..", "..", "content"))

// runSkillcat runs the command line in-process with the given environment
// and returns the exit code and what was printed.
func runSkillcat(t *testing.T, environ map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runSkillcatContext(t, context.Background(), environ, args...)
}

func runSkillcatContext(t *testing.T, ctx context.Context, environ map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: func(k string) string { return environ[k] }}
	code = run(ctx, e, args)
	return code, out.String(), errOut.String()
}

// writeContent writes files (path → contents) under dir.
func writeContent(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// treeSums records a directory tree: every path with "dir", "link -> …"
// or its bytes' sha256, and, with times, its modification time.
func treeSums(t *testing.T, dir string, times bool) map[string]string {
	t.Helper()
	tree := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		var v string
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			v = "link -> " + target
		case d.IsDir():
			v = "dir"
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(data)
			v = hex.EncodeToString(sum[:])
		}
		v += " " + info.Mode().String()
		if times {
			v += " " + info.ModTime().UTC().Format(time.RFC3339Nano)
		}
		tree[filepath.ToSlash(rel)] = v
		return nil
	})
	if err != nil {
		t.Fatalf("read tree %s: %v", dir, err)
	}
	return tree
}

// assertKept fails when out differs from before or a temporary build
// folder is left beside it.
func assertKept(t *testing.T, out string, before map[string]string) {
	t.Helper()
	if d := treetest.Diff(treeSums(t, out, true), before); d != "" {
		t.Errorf("%s changed:\n%s", out, d)
	}
	entries, _ := os.ReadDir(filepath.Dir(out))
	for _, e := range entries {
		if strings.Contains(e.Name(), ".new-") || strings.Contains(e.Name(), ".old") {
			t.Errorf("temporary %s left beside %s", e.Name(), out)
		}
	}
}

// skillJSON is a valid .json source, one member a line so that messages
// have known positions: protocol on line 2, id 3, name 4, version 5,
// capability_type 6, description 7, provider 8, endpoint 9, inputs 10,
// output 11, auth 12, access 13, then the extra lines. set replaces the
// value of a member in place (raw JSON); extra adds members after access.
func skillJSON(id string, set map[string]string, extra ...string) string {
	members := [][2]string{
		{"protocol", `{"version": "1.0.0"}`},
		{"id", `"` + id + `"`},
		{"name", `"Skill ` + id + `"`},
		{"version", `"1.0.0"`},
		{"capability_type", `"api"`},
		{"description", `"Does ` + id + `."`},
		{"provider", `{"name": "Acme"}`},
		{"endpoint", `{"url": "https://api.example.com/` + id + `"}`},
		{"inputs", `{"type": "object", "properties": {"n": {"type": "integer"}}}`},
		{"output", `{"type": "object"}`},
		{"auth", `{"type": "none"}`},
		{"access", `"public"`},
	}
	var lines []string
	for _, m := range members {
		v := m[1]
		if s, ok := set[m[0]]; ok {
			v = s
		}
		lines = append(lines, fmt.Sprintf("  %q: %s", m[0], v))
	}
	for _, e := range extra {
		lines = append(lines, "  "+e)
	}
	return "{\n" + strings.Join(lines, ",\n") + "\n}\n"
}

// skillMD is a valid .md source: front matter from line 1 to 19, the
// body (the description) from line 21.
func skillMD(id string) string {
	return `---
protocol:
  version: "1.0.0"
id: ` + id + `
name: Skill ` + id + `
version: "1.0.0"
capability_type: knowledge
provider:
  name: Acme
endpoint:
  url: https://api.example.com/` + id + `
inputs:
  type: object
  properties:
    n: {type: integer, maximum: 10}
output: true
auth:
  type: none
access: public
---

Knows about ` + id + `.
`
}

// buildFixture makes a working folder with a valid content/ and a build of
// it in public/, changes into it, and returns the snapshot of public/.
func buildFixture(t *testing.T) map[string]string {
	t.Helper()
	root := t.TempDir()
	t.Chdir(root)
	writeContent(t, "good", map[string]string{"a.json": skillJSON("prev.a", nil), "b.md": skillMD("prev.b")})
	if code, _, stderr := runSkillcat(t, map[string]string{"SOURCE_DATE_EPOCH": "1767225600"}, "build", "--content", "good", "--out", "public"); code != 0 {
		t.Fatalf("build of the fixture: exit %d\n%s", code, stderr)
	}
	return treeSums(t, "public", true)
}

func TestBuildBadInput(t *testing.T) {
	// Each case builds content/ over an earlier good build in public/ and
	// expects exactly these lines on stderr (the last one the summary),
	// nothing on stdout, exit code 1 and public/ as it was.
	for _, tc := range []struct {
		name  string
		files map[string]string
		links map[string]string // link → target, made with os.Symlink
		args  []string
		want  []string
	}{
		{
			name:  "ErrEmptyFile",
			files: map[string]string{"empty.json": "", "empty.md": ""},
			want: []string{
				"content/empty.json:1:1: (file): file is empty: expected a JSON object",
				"content/empty.md:1:1: (file): file is empty: expected YAML front matter between --- lines, then the Markdown description",
				"skillcat: build failed: 2 errors, 0 warnings in 2 sources; public left unchanged",
			},
		},
		{
			name:  "ErrWhitespaceOnly",
			files: map[string]string{"blank.json": " \n\t\r\n  \n"},
			want: []string{
				"content/blank.json:1:1: (file): file is empty: expected a JSON object",
				"skillcat: build failed: 1 error, 0 warnings in 1 source; public left unchanged",
			},
		},
		{
			name:  "ErrNotUTF8",
			files: map[string]string{"latin1.json": skillJSON("latin", map[string]string{"name": "\"Caf\xe9\""})},
			want: []string{
				"content/latin1.json:4:15: (file): file is not valid UTF-8 (byte 0xe9); save it as UTF-8",
				"skillcat: build failed: 1 error, 0 warnings in 1 source; public left unchanged",
			},
		},
		{
			name:  "ErrNotAnObject",
			files: map[string]string{"array.json": "\n  [" + skillJSON("x", nil) + "]\n", "string.json": `"weather.forecast"`},
			want: []string{
				"content/array.json:2:3: (file): must be a JSON object; got an array",
				`content/string.json:1:1: (file): must be a JSON object; got string "weather.forecast"`,
				"skillcat: build failed: 2 errors, 0 warnings in 2 sources; public left unchanged",
			},
		},
		{
			name:  "ErrSyntax",
			files: map[string]string{"syntax.json": strings.Replace(skillJSON("syntax", nil), `"version": "1.0.0",`, `"version": "1.0.0"`, 1)},
			want: []string{
				`content/syntax.json:6:3: (file): invalid JSON: unexpected '"', expected ',' or '}' after object member`,
				"skillcat: build failed: 1 error, 0 warnings in 1 source; public left unchanged",
			},
		},
		{
			name:  "ErrUnclosedFrontMatter",
			files: map[string]string{"open.md": strings.Replace(skillMD("open"), "access: public\n---\n", "access: public\n", 1)},
			want: []string{
				`content/open.md:1:1: (file): front matter is never closed: add a "---" line after the YAML members`,
				"skillcat: build failed: 1 error, 0 warnings in 1 source; public left unchanged",
			},
		},
		{
			name:  "ErrNoFrontMatter",
			files: map[string]string{"plain.md": "# A skill\n\nJust prose, no front matter.\n"},
			want: []string{
				`content/plain.md:1:1: (file): a Markdown source must start with a "---" line opening its YAML front matter`,
				"skillcat: build failed: 1 error, 0 warnings in 1 source; public left unchanged",
			},
		},
		{
			name: "ErrYAMLSyntax",
			files: map[string]string{
				"flow.md":   strings.Replace(skillMD("flow"), "capability_type: knowledge", "capability_type: [knowledge", 1),
				"indent.md": strings.Replace(skillMD("indent"), "  type: none\n", "  type: none\n in: header\n", 1),
				"quote.md":  strings.Replace(skillMD("quote"), "  name: Acme", "  name: \"Acme", 1),
			},
			want: []string{
				`content/flow.md:7:18: (file): invalid YAML front matter: the "[" opened here is never closed with "]" on this line; close it, or quote a value that holds a comma, bracket or brace`,
				`content/indent.md:19:2: (file): invalid YAML front matter: this line is indented differently from the members before it; the members of one mapping must start in the same column`,
				`content/quote.md:9:9: (file): invalid YAML front matter: the quoted value that starts here is never closed; end it with " on this line`,
				"skillcat: build failed: 3 errors, 0 warnings in 3 sources; public left unchanged",
			},
		},
		{
			name:  "ErrYAMLNumberWithoutJSON",
			files: map[string]string{"inf.md": strings.Replace(skillMD("inf"), "maximum: 10", "maximum: .inf", 1)},
			want: []string{
				`content/inf.md:15:33: inputs.properties.n.maximum: YAML number .inf has no JSON equivalent; write a plain decimal number, or quote it to make it a string`,
				"skillcat: build failed: 1 error, 0 warnings in 1 source; public left unchanged",
			},
		},
		{
			name:  "ErrDescriptionTwice",
			files: map[string]string{"twice.md": strings.Replace(skillMD("twice"), "access: public\n", "access: public\ndescription: In the front matter too.\n", 1)},
			want: []string{
				`content/twice.md:20:14: description: is given both in the front matter and as the Markdown body; keep one`,
				"skillcat: build failed: 1 error, 0 warnings in 1 source; public left unchanged",
			},
		},
		{
			name:  "ErrTooLarge",
			files: map[string]string{"huge.json": skillJSON("huge", nil, `"x-padding": "`+strings.Repeat("x", 1<<20)+`"`)},
			want: []string{
				fmt.Sprintf("content/huge.json:1:1: (file): file is %d bytes, over the 1048576-byte limit for a skill source", len(skillJSON("huge", nil, `"x-padding": "`+strings.Repeat("x", 1<<20)+`"`))),
				"skillcat: build failed: 1 error, 0 warnings in 1 source; public left unchanged",
			},
		},
		{
			name:  "ErrSymlinkOutside",
			files: map[string]string{"_shared/inside.json": skillJSON("shared.inside", nil)},
			links: map[string]string{
				"absolute.json": "/etc/passwd",
				"relative.json": "../good/a.json",
				"folder":        "../good",
				"inside.json":   "_shared/inside.json", // followed
			},
			want: []string{
				`content/absolute.json:1:1: (file): symbolic link leads outside the content directory (it points to "/etc/passwd")`,
				`content/folder:1:1: (file): symbolic link leads outside the content directory (it points to "../good")`,
				`content/relative.json:1:1: (file): symbolic link leads outside the content directory (it points to "../good/a.json")`,
				"skillcat: build failed: 3 errors, 0 warnings in 4 sources; public left unchanged",
			},
		},
		{
			name:  "ErrSymlinkLoop",
			links: map[string]string{"ping.json": "pong.json", "pong.json": "ping.json", "sub/up": ".."},
			want: []string{
				`content/ping.json:1:1: (file): too many levels of symbolic links`,
				`content/pong.json:1:1: (file): too many levels of symbolic links`,
				"skillcat: build failed: 2 errors, 0 warnings in 2 sources; public left unchanged",
			},
		},
		{
			name: "ErrDuplicateID",
			files: map[string]string{
				"a/weather.json":        skillJSON("weather.now", nil),
				"b/weather.md":          skillMD("weather.now"),
				"internal/weather.json": skillJSON("weather.now", map[string]string{"access": `"private"`}),
			},
			want: []string{
				`content/b/weather.md:4:5: id: id "weather.now" is already used by content/a/weather.json; ids must be unique`,
				`content/internal/weather.json:3:9: id: id "weather.now" is already used by content/a/weather.json; ids must be unique`,
				"skillcat: build failed: 2 errors, 0 warnings in 3 sources; public left unchanged",
			},
		},
		{
			name: "ErrIncompatibleVersion",
			files: map[string]string{"v2.json": skillJSON("v2", map[string]string{
				"protocol": `{"version": "2.0.0"}`, "access": `"everyone"`, "name": `""`,
			}, `"capabilty_type": "api"`)},
			want: []string{
				`content/v2.json:2:27: protocol.version: incompatible protocol version 2.0.0 (supported: 1.x)`,
				"skillcat: build failed: 1 error, 0 warnings in 1 source; public left unchanged",
			},
		},
		{
			name:  "ErrRestrictedWithoutAuth",
			files: map[string]string{"open.json": skillJSON("open", map[string]string{"access": `"restricted"`})},
			want: []string{
				`content/open.json:13:13: access: must not be "restricted" when auth.type is "none"`,
				"skillcat: build failed: 1 error, 0 warnings in 1 source; public left unchanged",
			},
		},
		{
			name:  "ErrMissingTokenURL",
			files: map[string]string{"oauth.json": skillJSON("oauth", map[string]string{"auth": `{"type": "oauth2", "scopes": {"read": "Read."}}`})},
			want: []string{
				`content/oauth.json:12:11: auth.token_url: required when auth.type is "oauth2"`,
				"skillcat: build failed: 1 error, 0 warnings in 1 source; public left unchanged",
			},
		},
		{
			name: "ErrExampleInvalid",
			files: map[string]string{"ex.json": skillJSON("ex", nil,
				`"examples": [{"title": "ok", "inputs": {"n": 1}}, {"title": "bad", "inputs": {"n": "three"}, "output": 7}]`)},
			want: []string{
				`content/ex.json:14:86: examples[1].inputs.n: must be an integer; got string "three"`,
				`content/ex.json:14:106: examples[1].output: must be an object; got number 7`,
				"skillcat: build failed: 2 errors, 0 warnings in 1 source; public left unchanged",
			},
		},
		{
			name:  "ErrTypoStrict",
			files: map[string]string{"typo.json": skillJSON("typo", nil, `"capabilty_type": "api"`)},
			args:  []string{"--strict"},
			want: []string{
				`content/typo.json:14:3: capabilty_type: unknown member "capabilty_type"; did you mean "capability_type"?`,
				"skillcat: build failed: 1 error, 0 warnings in 1 source; public left unchanged",
			},
		},
		{
			name: "ErrManyFiles",
			files: map[string]string{
				"a.json": skillJSON("many.a", map[string]string{"capability_type": `"widget"`, "name": `"   "`, "access": `"restricted"`}),
				"b.md":   strings.Replace(skillMD("many.b"), "  name: Acme", "  name: [Acme", 1),
				"c.json": "",
				"d.json": skillJSON("many.d", map[string]string{"endpoint": `{"url": "ftp://files.example.com/"}`}, `"nme": "typo"`),
				"e.json": skillJSON("many.e", nil),
			},
			want: []string{
				`content/a.json:4:11: name: must not be blank; got "   "`,
				`content/a.json:6:22: capability_type: must be one of "plugin", "api", "knowledge", "task"; got "widget"`,
				`content/a.json:13:13: access: must not be "restricted" when auth.type is "none"`,
				`content/b.md:9:9: (file): invalid YAML front matter: the "[" opened here is never closed with "]" on this line; close it, or quote a value that holds a comma, bracket or brace`,
				`content/c.json:1:1: (file): file is empty: expected a JSON object`,
				`content/d.json:9:23: endpoint.url: must be an absolute http or https URL; got "ftp://files.example.com/"`,
				`content/d.json:14:3: warning: nme: unknown member "nme"; did you mean "name"?`,
				"skillcat: build failed: 6 errors, 1 warning in 5 sources; public left unchanged",
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := buildFixture(t)
			writeContent(t, "content", tc.files)
			os.MkdirAll("content", 0o755)
			for link, target := range tc.links {
				os.MkdirAll(filepath.Dir(filepath.Join("content", link)), 0o755)
				if err := os.Symlink(target, filepath.Join("content", link)); err != nil {
					t.Skipf("cannot make symbolic links: %v", err)
				}
			}
			args := append([]string{"build", "--content", "content", "--out", "public"}, tc.args...)
			code, stdout, stderr := runSkillcat(t, map[string]string{"SOURCE_DATE_EPOCH": "1767225600"}, args...)
			if code != exitInvalid {
				t.Errorf("exit code %d, want %d", code, exitInvalid)
			}
			if stdout != "" {
				t.Errorf("stdout = %q, want nothing", stdout)
			}
			if got := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n"); !slices.Equal(got, tc.want) {
				t.Errorf("stderr:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
			assertKept(t, "public", before)
		})
	}
}

func TestBuildCommand(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		buildFixture(t)
		writeContent(t, "content", map[string]string{
			"a.json":           skillJSON("ok.a", nil),
			"b.md":             skillMD("ok.b"),
			"secret.json":      skillJSON("ok.secret", map[string]string{"access": `"private"`}),
			"_drafts/bad.json": "not even JSON",
			".git/bad.json":    "{",
			"_shared/c.json":   skillJSON("ok.c", nil),
		})
		os.Symlink("_shared/c.json", filepath.Join("content", "c.json"))
		code, stdout, stderr := runSkillcat(t, nil, "build", "--content", "content", "--out", "public")
		if code != exitOK || stderr != "" {
			t.Fatalf("exit %d, stderr:\n%s", code, stderr)
		}
		for _, want := range []string{"public", "4 sources", "3 skills published", "1 private skill withheld"} {
			if !strings.Contains(stdout, want) || strings.Count(stdout, "\n") != 1 {
				t.Errorf("stdout = %q, want one line with %q", stdout, want)
			}
		}
		x := readIndex(t, "public/.well-known/skills.json")
		var ids []string
		for _, e := range x.Skills {
			ids = append(ids, e.ID)
		}
		if want := []string{"ok.a", "ok.b", "ok.c"}; !slices.Equal(ids, want) {
			t.Errorf("index lists %q, want %q", ids, want)
		}
		if code, stdout, _ := runSkillcat(t, nil, "build", "--content", "content", "--out", "public", "--quiet"); code != 0 || stdout != "" {
			t.Errorf("--quiet: exit %d, stdout %q; want 0 and nothing", code, stdout)
		}
	})

	t.Run("Warning", func(t *testing.T) {
		buildFixture(t)
		writeContent(t, "content", map[string]string{"typo.json": skillJSON("typo", nil, `"capabilty_type": "api"`)})
		code, stdout, stderr := runSkillcat(t, nil, "build", "--content", "content", "--out", "public")
		if code != exitOK {
			t.Fatalf("exit %d, want 0; stderr:\n%s", code, stderr)
		}
		if want := "content/typo.json:14:3: warning: capabilty_type: unknown member \"capabilty_type\"; did you mean \"capability_type\"?\n"; stderr != want {
			t.Errorf("stderr = %q, want %q", stderr, want)
		}
		if !strings.Contains(stdout, "1 skill published") {
			t.Errorf("stdout = %q, want the summary", stdout)
		}
	})

	t.Run("Usage", func(t *testing.T) {
		before := buildFixture(t)
		if err := os.WriteFile("notes.txt", []byte("not a cache\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			args []string
			env  map[string]string
			want string
		}{
			{[]string{"build", "--content", "missing", "--out", "public"}, nil, `skillcat: content directory "missing" not found; run skillcat in a catalog's folder, start one with skillcat init, or pass --content DIR`},
			{[]string{"build", "--content", "good/a.json", "--out", "public"}, nil, `skillcat: --content "good/a.json" is not a directory`},
			{[]string{"build", "--content", "good", "--out", "public", "--bogus"}, nil, "flag provided but not defined: -bogus"},
			{[]string{"build", "--content", "good", "--out", "public", "extra"}, nil, `skillcat build: unexpected argument "extra"`},
			{[]string{"build", "--content", "good", "--out", "public", "--base-url", "skills.example.com"}, nil, `--base-url "skills.example.com": must be an absolute http or https URL`},
			{[]string{"build", "--content", "good", "--out", "public", "--base-url", "ftp://skills.example.com/"}, nil, `--base-url "ftp://skills.example.com/"`},
			{[]string{"build", "--content", "good", "--out", "public", "--base-url", "/catalog/"}, nil, `--base-url "/catalog/"`},
			{[]string{"build", "--content", "good", "--out", "public"}, map[string]string{"SOURCE_DATE_EPOCH": "yesterday"}, `SOURCE_DATE_EPOCH="yesterday"`},
			{[]string{"build", "--content", "good", "--out", "public"}, map[string]string{"SOURCE_DATE_EPOCH": "253402300800"}, `SOURCE_DATE_EPOCH="253402300800": must be a number of seconds since 1970, from 0 to 253402300799`},
			{[]string{"build", "--content", "good", "--out", "public"}, map[string]string{"SOURCE_DATE_EPOCH": "9223372036854775807"}, `SOURCE_DATE_EPOCH="9223372036854775807"`},
			{[]string{"build", "--content", "good", "--out", "public", "--cache", "notes.txt"}, nil, `--cache "notes.txt" is not a skillcat rebuild cache (it is not an SQLite database), so it was left untouched`},
			{[]string{"build", "--content", "good", "--out", "public", "--cache", "good/a.json"}, nil, `--cache "good/a.json" lies inside the content directory "good" with a source's name, so the next build would read it as a skill source`},
		} {
			code, stdout, stderr := runSkillcat(t, tc.env, tc.args...)
			if code != exitUsage {
				t.Errorf("%q: exit %d, want %d", tc.args, code, exitUsage)
			}
			if stdout != "" || !strings.Contains(stderr, tc.want) {
				t.Errorf("%q: stdout %q, stderr %q; want %q on stderr", tc.args, stdout, stderr, tc.want)
			}
		}
		assertKept(t, "public", before)
	})

	t.Run("OutOverContent", func(t *testing.T) {
		// An output folder that is the content folder or holds it would be
		// swapped away with the sources in it.
		buildFixture(t)
		os.MkdirAll("site/content", 0o755)
		writeContent(t, "site/content", map[string]string{"a.json": skillJSON("site.a", nil)})
		before := treeSums(t, ".", true)
		for _, tc := range [][]string{
			{"--content", "site/content", "--out", "site/content"},
			{"--content", "site/content", "--out", "site"},
			{"--content", "site/content", "--out", "."},
			{"--content", "site/content/", "--out", "./site/../site/content/."},
		} {
			code, _, stderr := runSkillcat(t, nil, append([]string{"build"}, tc...)...)
			if code != exitUsage || !strings.Contains(stderr, "would replace the content directory") {
				t.Errorf("%q: exit %d, stderr %q; want %d and a refusal", tc, code, stderr, exitUsage)
			}
		}
		if d := treetest.Diff(treeSums(t, ".", true), before); d != "" {
			t.Errorf("refused builds changed the folder:\n%s", d)
		}
	})

	t.Run("OutInsideContent", func(t *testing.T) {
		// An output folder inside the content folder is not read as sources
		// on the next build.
		buildFixture(t)
		writeContent(t, "content", map[string]string{"a.json": skillJSON("inside.a", nil), "b.md": skillMD("inside.b")})
		for i := 0; i < 2; i++ {
			code, _, stderr := runSkillcat(t, nil, "build", "--content", "content", "--out", "content/public")
			if code != exitOK || stderr != "" {
				t.Fatalf("build %d: exit %d, stderr:\n%s", i+1, code, stderr)
			}
		}
		t.Chdir("content")
		if code, stdout, stderr := runSkillcat(t, nil, "build", "--content", ".", "--out", "public"); code != exitOK || !strings.Contains(stdout, "2 sources") {
			t.Fatalf("build of . into public: exit %d, stdout %q, stderr:\n%s", code, stdout, stderr)
		}
	})

	t.Run("BaseURL", func(t *testing.T) {
		buildFixture(t)
		if code, _, stderr := runSkillcat(t, nil, "build", "--content", "good", "--out", "abs", "--base-url", "https://x.example/cat"); code != 0 {
			t.Fatalf("exit %d:\n%s", code, stderr)
		}
		for _, e := range readIndex(t, "abs/.well-known/skills.json").Skills {
			if want := "https://x.example/cat/skills/" + e.ID + ".json"; e.DescriptorURL != want {
				t.Errorf("descriptor_url = %q, want %q", e.DescriptorURL, want)
			}
		}
		for _, name := range []string{"sitemap.xml", "robots.txt"} {
			data, err := os.ReadFile(filepath.Join("abs", name))
			if err != nil || !strings.Contains(string(data), "https://x.example/cat/") {
				t.Errorf("%s: %v, %q; want it naming https://x.example/cat/", name, err, data)
			}
		}
		for _, e := range readIndex(t, "public/.well-known/skills.json").Skills {
			if want := "../skills/" + e.ID + ".json"; e.DescriptorURL != want {
				t.Errorf("without --base-url: descriptor_url = %q, want %q", e.DescriptorURL, want)
			}
		}
		for _, name := range []string{"sitemap.xml", "robots.txt"} {
			if _, err := os.Stat(filepath.Join("public", name)); err == nil {
				t.Errorf("without --base-url the build wrote %s", name)
			}
		}
	})

	t.Run("Cancelled", func(t *testing.T) {
		before := buildFixture(t)
		writeContent(t, "content", map[string]string{"a.json": skillJSON("changed.a", nil)})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		code, _, stderr := runSkillcatContext(t, ctx, nil, "build", "--content", "content", "--out", "public")
		if code == exitOK {
			t.Fatalf("a cancelled build exited 0")
		}
		if !strings.Contains(stderr, "build interrupted") || !strings.Contains(stderr, "public left unchanged") {
			t.Errorf("stderr = %q", stderr)
		}
		assertKept(t, "public", before)
	})

	t.Run("InvalidAfterValid", func(t *testing.T) {
		// The sample catalog builds; one broken source fails the next build
		// and leaves the first one's output byte for byte.
		t.Chdir(t.TempDir())
		copyContent(t, sampleContent, "content")
		if code, _, stderr := runSkillcat(t, nil, "build", "--content", "content", "--out", "public"); code != 0 {
			t.Fatalf("sample build: exit %d\n%s", code, stderr)
		}
		before := treeSums(t, "public", true)
		victim := filepath.Join("content", "geocode.json")
		data, err := os.ReadFile(victim)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(victim, bytes.Replace(data, []byte(`"capability_type": "api"`), []byte(`"capability_type": "apis"`), 1), 0o644)
		code, _, stderr := runSkillcat(t, nil, "build", "--content", "content", "--out", "public")
		if code != exitInvalid || !strings.Contains(stderr, `content/geocode.json:`) || !strings.Contains(stderr, `got "apis"`) {
			t.Errorf("exit %d, stderr:\n%s", code, stderr)
		}
		assertKept(t, "public", before)
	})
}

// TestBuildDeterministic builds the sample catalog twice into two folders,
// with SOURCE_DATE_EPOCH and without: each pair is identical byte for byte,
// catalog.sqlite included, and with SOURCE_DATE_EPOCH every modification
// time is that date.
func TestBuildDeterministic(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, epoch := range []string{"", "1767225600"} {
		environ := map[string]string{"SOURCE_DATE_EPOCH": epoch}
		var trees []map[string]string
		for _, out := range []string{"one" + epoch, "two" + epoch} {
			if code, _, stderr := runSkillcat(t, environ, "build", "--content", sampleContent, "--out", out, "--base-url", "https://skills.example.com/"); code != 0 {
				t.Fatalf("build: exit %d\n%s", code, stderr)
			}
			trees = append(trees, treeSums(t, out, epoch != ""))
		}
		if d := treetest.Diff(trees[1], trees[0]); d != "" {
			t.Errorf("SOURCE_DATE_EPOCH=%q: two builds differ:\n%s", epoch, d)
		}
		if _, ok := trees[0]["catalog.sqlite"]; !ok {
			t.Errorf("no catalog.sqlite in the build")
		}
		if epoch == "" {
			continue
		}
		want := time.Unix(1767225600, 0).UTC().Format(time.RFC3339Nano)
		for name, v := range trees[0] {
			if !strings.HasSuffix(v, " "+want) {
				t.Errorf("%s: %s, want modified %s", name, v, want)
			}
		}
	}
}

// readIndex reads and validates a SkillIndex file.
func readIndex(t *testing.T, file string) *skillcat.SkillIndex {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	x, vs := skillcat.ParseIndex(file, data)
	if vs.HasErrors() {
		t.Fatalf("%s:\n%v", file, vs)
	}
	return x
}

// copyContent copies the regular files and folders of src to dst.
func copyContent(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestGCPercent(t *testing.T) {
	for _, c := range []struct {
		name    string
		env     map[string]string
		percent int
		ok      bool
	}{
		{"Ours", nil, -1, true}, // the limit alone paces the collector
		{"TheirLimit", map[string]string{"GOMEMLIMIT": "8GiB"}, 200, true},
		{"TheirGOGC", map[string]string{"GOGC": "100"}, 0, false},
		{"TheirBoth", map[string]string{"GOGC": "50", "GOMEMLIMIT": "1GiB"}, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := &env{getenv: func(k string) string { return c.env[k] }}
			if percent, ok := gcPercent(e); percent != c.percent || ok != c.ok {
				t.Errorf("gcPercent = %d, %v; want %d, %v", percent, ok, c.percent, c.ok)
			}
		})
	}
}

func TestGCLimit(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		name              string
		live, floor, want int64
	}{
		{"SmallCatalog", 20 * mib, gcFloor, gcFloor},                 // three times the live heap is below the floor
		{"BeforeTheCount", 2 * mib, gcBase, gcBase},                  // the sources not counted yet
		{"ThreeTimesSmall", 40 * mib, gcFloor, 120 * mib},            // as GOGC=200 would let it grow
		{"ThreeTimesLive", 100 * mib, gcFloor, 300 * mib},            // as GOGC=200 would let it grow
		{"Budget", 250 * mib, gcFloor, gcBudget},                     // in proportion, capped by the budget
		{"LiveNearBudget", 460 * mib, gcFloor, 460*mib + gcHeadroom}, // the headroom above a live heap near the budget
		{"HugeLive", 2000 * mib, gcFloor, 2000*mib + gcHeadroom},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := gcLimit(c.live, c.floor); got != c.want {
				t.Errorf("gcLimit(%d MiB, %d MiB) = %d MiB, want %d MiB", c.live/mib, c.floor/mib, got/mib, c.want/mib)
			}
		})
	}
}

func TestGCFloorFor(t *testing.T) {
	const mib = 1 << 20
	for sources, want := range map[int]int64{0: gcBase, 1024: 40 * mib, 4096: 64 * mib, 8192: gcFloor, 10000: gcFloor, 100000: gcFloor} {
		if got := gcFloorFor(sources); got != want {
			t.Errorf("gcFloorFor(%d) = %d MiB, want %d MiB", sources, got/mib, want/mib)
		}
	}
}
