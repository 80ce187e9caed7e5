package synth_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"

	"github.com/skillcat/skillcat/synth"
)

var (
	idPattern     = regexp.MustCompile(`^[a-z0-9]+([._-][a-z0-9]+)*$`)
	tagPattern    = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,31}$`)
	semverPattern = regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-((0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*)(\.(0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*))*))?(\+([0-9a-zA-Z-]+(\.[0-9a-zA-Z-]+)*))?$`)
)

// readTree returns every file under dir, keyed by slash-separated path.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = b
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func TestWriteDeterministic(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	for _, dir := range []string{a, b} {
		if err := synth.Write(dir, 300, 7); err != nil {
			t.Fatal(err)
		}
	}
	fa, fb := readTree(t, a), readTree(t, b)
	if len(fa) != 300 || len(fb) != 300 {
		t.Fatalf("got %d and %d files, want 300", len(fa), len(fb))
	}
	for name, data := range fa {
		if !bytes.Equal(data, fb[name]) {
			t.Fatalf("%s differs between two runs with one seed", name)
		}
		if _, src := synth.Source(mustIndex(t, name), 7); !bytes.Equal(data, src) {
			t.Fatalf("%s differs from Source", name)
		}
	}

	t.Run("OtherSeed", func(t *testing.T) {
		_, x := synth.Source(5, 7)
		_, y := synth.Source(5, 8)
		if bytes.Equal(x, y) {
			t.Fatal("seeds 7 and 8 gave the same source 5")
		}
	})
}

func mustIndex(t *testing.T, name string) int {
	t.Helper()
	var g, i int
	var ext string
	if _, err := fmt.Sscanf(strings.ReplaceAll(name, ".", " "), "g%d/skill-%d %s", &g, &i, &ext); err != nil {
		t.Fatalf("unexpected file name %q: %v", name, err)
	}
	if synth.Name(i) != name {
		t.Fatalf("got name %q for source %d, want %q", name, i, synth.Name(i))
	}
	return i
}

func TestWriteLayout(t *testing.T) {
	dir := t.TempDir()
	const n = 1001
	if err := synth.Write(dir, n, 1); err != nil {
		t.Fatal(err)
	}
	files := readTree(t, dir)
	counts := map[string]int{}
	perDir := map[string]int{}
	for name := range files {
		counts[filepath.Ext(name)]++
		perDir[filepath.Dir(name)]++
	}
	if counts[".json"] != 501 || counts[".md"] != 500 || len(files) != n {
		t.Fatalf("got %d .json and %d .md of %d files, want 501 and 500", counts[".json"], counts[".md"], len(files))
	}
	if len(perDir) != synth.Groups {
		t.Fatalf("got %d folders, want %d", len(perDir), synth.Groups)
	}
	for d, c := range perDir {
		if c > n/synth.Groups+1 {
			t.Errorf("folder %s holds %d files, want at most %d", d, c, n/synth.Groups+1)
		}
	}
}

func TestWriteError(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := synth.Write(filepath.Join(file, "sub"), 10, 1); err == nil {
		t.Fatal("got no error writing under a regular file")
	}
}

// descriptor decodes source i into the JSON data model (json.Number for
// numbers), turning a Markdown source into the descriptor it stands for.
func descriptor(t *testing.T, name string, data []byte) map[string]any {
	t.Helper()
	var doc any
	if strings.HasSuffix(name, ".json") {
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		doc = v
	} else {
		rest, ok := bytes.CutPrefix(data, []byte("---\n"))
		if !ok {
			t.Fatalf("%s: no opening front matter line", name)
		}
		front, body, ok := bytes.Cut(rest, []byte("\n---\n"))
		if !ok {
			t.Fatalf("%s: no closing front matter line", name)
		}
		var fm map[string]any
		if err := yaml.Unmarshal(front, &fm); err != nil {
			t.Fatalf("%s: front matter: %v", name, err)
		}
		if _, ok := fm["description"]; ok {
			t.Fatalf("%s: front matter holds description", name)
		}
		fm["description"] = strings.TrimSpace(string(body))
		j, err := json.Marshal(fm)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		doc = v
	}
	m, ok := doc.(map[string]any)
	if !ok {
		t.Fatalf("%s: got %T, want an object", name, doc)
	}
	return m
}

func compile(t *testing.T, name, member string, schema any) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	url := "mem:///" + name + "/" + member
	if err := c.AddResource(url, schema); err != nil {
		t.Fatalf("%s: %s: %v", name, member, err)
	}
	s, err := c.Compile(url)
	if err != nil {
		t.Fatalf("%s: %s does not compile: %v", name, member, err)
	}
	return s
}

func TestSources(t *testing.T) {
	const n = 100
	required := []string{"protocol", "id", "name", "version", "capability_type", "description", "provider", "endpoint", "inputs", "output", "auth", "access"}

	// The project's descriptor schema, when it is there, is a stricter check.
	var descSchema *jsonschema.Schema
	if b, err := os.ReadFile("../schemas/skill-descriptor.schema.json"); err == nil {
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		descSchema = compile(t, "skill-descriptor", "schema", v)
	}

	ids := map[string]string{}
	seen := map[string]bool{}
	for i := range n {
		name, data := synth.Source(i, 1)
		d := descriptor(t, name, data)
		for _, m := range required {
			if _, ok := d[m]; !ok {
				t.Errorf("%s: missing %s", name, m)
			}
		}
		if v := d["protocol"].(map[string]any)["version"]; v != "1.0.0" {
			t.Errorf("%s: got protocol.version %v, want 1.0.0", name, v)
		}
		id, _ := d["id"].(string)
		if !idPattern.MatchString(id) {
			t.Errorf("%s: got id %q, want one matching %s", name, id, idPattern)
		}
		if prev, dup := ids[id]; dup {
			t.Errorf("%s: id %q already used by %s", name, id, prev)
		}
		ids[id] = name
		if v, _ := d["version"].(string); !semverPattern.MatchString(v) {
			t.Errorf("%s: got version %q, want SemVer", name, v)
		}

		ct, access := d["capability_type"].(string), d["access"].(string)
		auth := d["auth"].(map[string]any)
		at := auth["type"].(string)
		seen["type:"+ct], seen["access:"+access], seen["auth:"+at] = true, true, true
		seen[filepath.Ext(name)+":"+ct+":"+at] = true
		var need []string
		switch at {
		case "api_key":
			need = []string{"in", "name"}
		case "oauth2":
			need = []string{"token_url"}
		case "custom":
			need = []string{"instructions"}
		}
		for _, m := range need {
			if _, ok := auth[m]; !ok {
				t.Errorf("%s: auth type %s without %s", name, at, m)
			}
		}
		if access == "restricted" && at == "none" {
			t.Errorf("%s: restricted with auth type none", name)
		}
		for _, m := range []string{"name", "url", "email"} {
			if _, ok := d["provider"].(map[string]any)[m]; !ok {
				t.Errorf("%s: provider without %s", name, m)
			}
		}

		tags, _ := d["tags"].([]any)
		if len(tags) < 2 || len(tags) > 5 {
			t.Errorf("%s: got %d tags, want 2 to 5", name, len(tags))
		}
		uniq := map[any]bool{}
		for _, tag := range tags {
			if s, _ := tag.(string); !tagPattern.MatchString(s) || uniq[tag] {
				t.Errorf("%s: bad or repeated tag %v", name, tag)
			}
			uniq[tag] = true
		}

		desc := d["description"].(string)
		if len(desc) < 1000 || len(desc) > 2500 {
			t.Errorf("%s: description is %d bytes, want about 1.5 KB", name, len(desc))
		}
		for _, part := range []string{"\n\n## ", "\n- ", "\n```json\n"} {
			if !strings.Contains(desc, part) {
				t.Errorf("%s: description lacks %q", name, part)
			}
		}

		inputs := d["inputs"].(map[string]any)
		if inputs["type"] != "object" {
			t.Errorf("%s: got inputs.type %v, want object", name, inputs["type"])
		}
		if p, _ := inputs["properties"].(map[string]any); len(p) != 5 {
			t.Errorf("%s: got %d input properties, want 5", name, len(p))
		}
		in := compile(t, name, "inputs", inputs)
		out := compile(t, name, "output", d["output"])
		examples, _ := d["examples"].([]any)
		if len(examples) != 1 {
			t.Fatalf("%s: got %d examples, want 1", name, len(examples))
		}
		ex := examples[0].(map[string]any)
		if err := in.Validate(ex["inputs"]); err != nil {
			t.Errorf("%s: example inputs: %v", name, err)
		}
		if o, ok := ex["output"]; ok {
			if err := out.Validate(o); err != nil {
				t.Errorf("%s: example output: %v", name, err)
			}
		}
		if descSchema != nil {
			if err := descSchema.Validate(any(d)); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
	}

	for prefix, values := range map[string][]string{"type:": synth.CapabilityTypes, "access:": synth.AccessLevels, "auth:": synth.AuthTypes} {
		for _, v := range values {
			if !seen[prefix+v] {
				t.Errorf("no source has %s%s", prefix, v)
			}
		}
	}
	for _, ext := range []string{".json", ".md"} {
		for _, ct := range synth.CapabilityTypes {
			for _, at := range synth.AuthTypes {
				if !seen[ext+":"+ct+":"+at] {
					t.Errorf("no %s source has type %s with auth %s", ext, ct, at)
				}
			}
		}
	}
}

func TestPrivateShare(t *testing.T) {
	const n = 2000
	private := 0
	for i := range n {
		_, data := synth.Source(i, 3)
		if bytes.Contains(data, []byte(`"access": "private"`)) || bytes.Contains(data, []byte("\naccess: private\n")) {
			private++
		}
	}
	if private != n/10 {
		t.Fatalf("got %d private of %d, want %d", private, n, n/10)
	}
}

func BenchmarkWrite(b *testing.B) {
	for b.Loop() {
		if err := synth.Write(b.TempDir(), 10000, 1); err != nil {
			b.Fatal(err)
		}
	}
}
