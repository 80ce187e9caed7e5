package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	skillcat "github.com/skillcat/skillcat"
)

// runNewCmd runs a command in-process and returns its exit code and output.
func runNewCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	e := &env{stdout: &out, stderr: &errOut, getenv: func(string) string { return "" }}
	code = run(context.Background(), e, args)
	return code, out.String(), errOut.String()
}

func TestNewValidates(t *testing.T) {
	for _, typ := range skillcat.CapabilityTypes {
		for _, format := range []string{"json", "md"} {
			for _, access := range []string{"public", "restricted", "private"} {
				name := string(typ) + "-" + format + "-" + access
				t.Run(name, func(t *testing.T) {
					dir := t.TempDir()
					id := "acme." + name
					code, out, errOut := runNewCmd(t, "new", id, "--type", string(typ), "--format", format, "--access", access, "--content", dir)
					if code != exitOK {
						t.Fatalf("new: exit %d: %s", code, errOut)
					}
					file := filepath.Join(dir, id+"."+format)
					if !strings.Contains(out, file) || !strings.Contains(out, "skillcat validate --content "+dir) {
						t.Errorf("stdout: got %q, want the path written and the next step", out)
					}
					code, _, errOut = runNewCmd(t, "validate", "--content", dir)
					if code != exitOK {
						data, _ := os.ReadFile(file)
						t.Fatalf("validate: exit %d:\n%s\nsource:\n%s", code, errOut, data)
					}
					// Every placeholder left is a warning, and --strict fails.
					for _, field := range []string{"description", "provider.name", "provider.url", "provider.email", "endpoint.url", "documentation_url"} {
						if !strings.Contains(errOut, ": warning: "+field+": still holds the placeholder skillcat new wrote; ") {
							t.Errorf("validate does not warn of the placeholder %s:\n%s", field, errOut)
						}
					}
					if code, _, _ := runNewCmd(t, "validate", "--content", dir, "--strict"); code != exitInvalid {
						t.Errorf("validate --strict of an untouched scaffold: exit %d, want %d", code, exitInvalid)
					}
					checkScaffold(t, file, format, typ, access)
				})
			}
		}
	}
}

// checkScaffold checks that a new source shows every member.
func checkScaffold(t *testing.T, file, format string, typ skillcat.CapabilityType, access string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, member := range []string{"protocol", "id", "name", "version", "capability_type", "provider", "endpoint", "method", "inputs", "output", "auth", "access", "tags", "examples", "documentation_url"} {
		key := member + ":"
		if format == "json" {
			key = `"` + member + `":`
		}
		if !bytes.Contains(data, []byte(key)) {
			t.Errorf("%s lacks the member %s", file, member)
		}
	}
	if format == "md" {
		_, body, ok := strings.Cut(string(data[4:]), "\n---\n")
		if !ok || !strings.Contains(body, "\n## Usage\n") || !strings.HasPrefix(strings.TrimSpace(body), "Replace this sentence") {
			t.Errorf("%s: the body is not a summary paragraph and a Usage section:\n%s", file, body)
		}
		return
	}
	var d struct {
		Schema         string `json:"$schema"`
		CapabilityType string `json:"capability_type"`
		Access         string `json:"access"`
		Auth           struct{ Type string }
	}
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatal(err)
	}
	if d.Schema != skillcat.SchemaBaseURL+skillcat.DescriptorSchemaFile || d.CapabilityType != string(typ) || d.Access != access {
		t.Errorf("%s: got $schema %q, type %q, access %q", file, d.Schema, d.CapabilityType, d.Access)
	}
	if wantNone := access != "restricted"; (d.Auth.Type == "none") != wantNone {
		t.Errorf("%s: auth.type %q for access %s", file, d.Auth.Type, access)
	}
}

func TestNewName(t *testing.T) {
	dir := t.TempDir()
	// Flags after the id, and a name YAML would misread unquoted.
	if code, _, errOut := runNewCmd(t, "new", "weather.hourly-forecast", "--format", "md", "--content", dir); code != exitOK {
		t.Fatalf("new: exit %d: %s", code, errOut)
	}
	if code, _, errOut := runNewCmd(t, "new", "--content", dir, "--name", `Fancy: "quoted" # not a comment`, "x.y_z"); code != exitOK {
		t.Fatalf("new: exit %d: %s", code, errOut)
	}
	if code, _, errOut := runNewCmd(t, "validate", "--content", dir); code != exitOK {
		t.Fatalf("validate: exit %d: %s", code, errOut)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "weather.hourly-forecast.md"))
	if !strings.Contains(string(data), `name: "Weather Hourly Forecast"`) {
		t.Errorf("derived name: got\n%s", data)
	}
	var d struct{ Name string }
	data, _ = os.ReadFile(filepath.Join(dir, "x.y_z.json"))
	if err := json.Unmarshal(data, &d); err != nil || d.Name != `Fancy: "quoted" # not a comment` {
		t.Errorf("name: got %q (%v)", d.Name, err)
	}
}

func TestNewRefusals(t *testing.T) {
	dir := t.TempDir()
	if code, _, errOut := runNewCmd(t, "new", "taken.id", "--content", dir); code != exitOK {
		t.Fatalf("new: exit %d: %s", code, errOut)
	}
	sub := filepath.Join(dir, "nested")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runNewCmd(t, "new", "md.taken", "--format", "md", "--content", sub); code != exitOK {
		t.Fatalf("new: exit %d: %s", code, errOut)
	}
	// A skipped folder's ids do not count.
	drafts := filepath.Join(dir, "_drafts")
	if err := os.Mkdir(drafts, 0o755); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runNewCmd(t, "new", "draft.id", "--content", drafts); code != exitOK {
		t.Fatalf("new: exit %d: %s", code, errOut)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"NoID", []string{}, "give the new skill's id"},
		{"TwoIDs", []string{"a.b", "c.d"}, `unexpected argument "c.d"`},
		{"Uppercase", []string{"Weather"}, `invalid id "Weather"`},
		{"DoubleDot", []string{"a..b"}, `invalid id "a..b"`},
		{"Slash", []string{"a/b"}, `invalid id "a/b"`},
		{"TooLong", []string{strings.Repeat("a", 129)}, "invalid id"},
		{"BadType", []string{"ok.id", "--type", "service"}, `--type must be one of plugin, api, knowledge, task; got "service"`},
		{"BadFormat", []string{"ok.id", "--format", "yaml"}, "--format must be json or md"},
		{"BadAccess", []string{"ok.id", "--access", "secret"}, "--access must be one of"},
		{"BlankName", []string{"ok.id", "--name", "   "}, "--name must be"},
		{"MissingContent", []string{"ok.id", "--content", filepath.Join(dir, "nope")}, "not found"},
		{"Exists", []string{"taken.id"}, filepath.Join(dir, "taken.id.json") + " already exists"},
		{"DuplicateID", []string{"taken.id", "--format", "md"}, `id "taken.id" is already used by ` + filepath.Join(dir, "taken.id.json")},
		{"DuplicateIDInFolder", []string{"md.taken"}, `id "md.taken" is already used by ` + filepath.Join(sub, "md.taken.md")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"new"}, tc.args...)
			if !strings.Contains(strings.Join(tc.args, " "), "--content") {
				args = append(args, "--content", dir)
			}
			code, out, errOut := runNewCmd(t, args...)
			if code != exitUsage {
				t.Errorf("exit code: got %d, want %d", code, exitUsage)
			}
			if !strings.Contains(errOut, tc.want) {
				t.Errorf("stderr: got %q, want it to contain %q", errOut, tc.want)
			}
			if out != "" {
				t.Errorf("stdout: got %q, want nothing", out)
			}
		})
	}
	if code, _, errOut := runNewCmd(t, "new", "draft.id", "--content", dir); code != exitOK {
		t.Errorf("an id used only under _drafts: exit %d: %s", code, errOut)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 4 { // taken.id.json, nested, _drafts, draft.id.json
		t.Errorf("content holds %d entries after refusals, want 4", len(entries))
	}
}

// TestNewIn checks --in and a --content inside a catalog: the file lands in
// the folder, and ids are checked across the whole content directory.
func TestNewIn(t *testing.T) {
	catalog := func(t *testing.T) string {
		t.Helper()
		dir := filepath.Join(t.TempDir(), "content")
		if err := os.MkdirAll(filepath.Join(dir, "weather"), 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "_index.md"), []byte("---\ntitle: Acme\n---\n"), 0o644)
		if code, _, stderr := runNewCmd(t, "new", "acme.taken", "--content", dir, "--in", "finance"); code != exitOK {
			t.Fatalf("new acme.taken: exit %d: %s", code, stderr)
		}
		return dir
	}
	t.Run("OK", func(t *testing.T) {
		dir := catalog(t)
		code, stdout, stderr := runNewCmd(t, "new", "acme.rain", "--content", dir, "--in", "weather/hourly", "--format", "md")
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		file := filepath.Join(dir, "weather", "hourly", "acme.rain.md")
		if _, err := os.Stat(file); err != nil || !strings.Contains(stdout, file) {
			t.Fatalf("got %v, stdout %q; want %s written", err, stdout, file)
		}
		if code, _, stderr := runNewCmd(t, "validate", "--content", dir); code != exitOK {
			t.Errorf("validate: exit %d: %s", code, stderr)
		}
	})
	t.Run("ErrIDTakenElsewhere", func(t *testing.T) {
		dir := catalog(t)
		code, _, stderr := runNewCmd(t, "new", "acme.taken", "--content", dir, "--in", "weather")
		want := `skillcat new: id "acme.taken" is already used by ` + filepath.Join(dir, "finance", "acme.taken.json") + "; pick another id\n"
		if code != exitUsage || stderr != want {
			t.Errorf("got exit %d, %q; want exit 2, %q", code, stderr, want)
		}
	})
	t.Run("ContentInsideCatalog", func(t *testing.T) {
		dir := catalog(t)
		inner := filepath.Join(dir, "weather")
		code, _, stderr := runNewCmd(t, "new", "acme.taken", "--content", inner)
		if code != exitUsage || !strings.Contains(stderr, "is already used by "+filepath.Join(dir, "finance", "acme.taken.json")) {
			t.Errorf("got exit %d, %q; want the id found across the whole catalog", code, stderr)
		}
		wantNote := "skillcat new: " + inner + " is inside the catalog's content folder " + dir + "; writing into it and checking ids across all of " + dir + " (next time: --in weather)\n"
		if !strings.HasPrefix(stderr, wantNote) {
			t.Errorf("stderr: got %q, want it to start with %q", stderr, wantNote)
		}
		code, _, stderr = runNewCmd(t, "new", "acme.snow", "--content", inner)
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if _, err := os.Stat(filepath.Join(inner, "acme.snow.json")); err != nil {
			t.Error(err)
		}
	})
	for _, tc := range []struct{ name, in, want string }{
		{"ErrOutside", "../elsewhere", `must be a folder inside the content directory`},
		{"ErrAbsolute", "/tmp/x", `must be a folder inside the content directory`},
		{"ErrSkipped", "weather/_drafts", `the build skips names starting with "_" or ".", so a skill in `},
		{"ErrHidden", ".hidden", `the build skips names starting with "_" or "."`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := catalog(t)
			code, _, stderr := runNewCmd(t, "new", "acme.x", "--content", dir, "--in", tc.in)
			if code != exitUsage || !strings.Contains(stderr, tc.want) {
				t.Errorf("got exit %d, %q; want exit 2 and %q", code, stderr, tc.want)
			}
			if ids := findID(dir, "acme.x"); ids != "" {
				t.Errorf("a refused new wrote %s", ids)
			}
		})
	}
}
