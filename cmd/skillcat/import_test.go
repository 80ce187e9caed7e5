package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/openapi"
)

const petstore = "../../openapi/testdata/petstore.yaml"

// tree returns every file under dir with its bytes.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			data, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			files[filepath.ToSlash(rel)] = string(data)
		}
		return nil
	})
	return files
}

func names(files map[string]string) []string {
	var out []string
	for n := range files {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// TestImportWritesValidSources imports a document in each format and
// kind, then runs validate and build over the result: every source
// validates as written, and each published descriptor equals what the
// importer made (the Markdown front matter and body say exactly the same).
func TestImportWritesValidSources(t *testing.T) {
	cases := []struct{ kind, file string }{
		{"openapi", petstore},
		{"openapi", "../../openapi/testdata/cycles31.yaml"},
		{"openapi", "../../openapi/testdata/security.yaml"},
		{"openapi", "../../openapi/testdata/swagger2.json"},
		{"mcp", "../../mcp/testdata/current.json"},
		{"mcp", "../../mcp/testdata/seed.json"},
		{"a2a", "../../a2a/testdata/current.json"},
		{"a2a", "../../a2a/testdata/legacy.json"},
	}
	for _, c := range cases {
		for _, format := range []string{"md", "json"} {
			t.Run(c.kind+"/"+filepath.Base(c.file)+"/"+format, func(t *testing.T) {
				dir := t.TempDir()
				content := filepath.Join(dir, "content")
				// --server stands in for the server a document from a file may
				// leave relative; without it the placeholder server is written,
				// which validate warns of.
				code, out, errOut := runNewCmd(t, "import", c.kind, c.file, "--content", content, "--format", format, "--server", "https://api.vault.example.net")
				if code != exitOK {
					t.Fatalf("import: exit %d:\n%s", code, errOut)
				}
				written := tree(t, content)
				if len(written) == 0 || strings.Count(out, "wrote ") != len(written) {
					t.Fatalf("stdout lists %d files, %d written:\n%s", strings.Count(out, "wrote "), len(written), out)
				}
				if code, _, errOut := runNewCmd(t, "validate", "--content", content, "--strict"); code != exitOK {
					t.Fatalf("validate --strict: exit %d:\n%s", code, errOut)
				}
				pub := filepath.Join(dir, "public")
				if code, _, errOut := runNewCmd(t, "build", "--content", content, "--out", pub, "--no-cache"); code != exitOK {
					t.Fatalf("build: exit %d:\n%s", code, errOut)
				}
				for name, src := range written {
					id := strings.TrimSuffix(filepath.Base(name), "."+format)
					if !strings.HasSuffix(name, "."+format) || !skillcat.ValidID(id) {
						t.Errorf("file %s: want <folder>/<id>.%s", name, format)
					}
					if format == "md" && !strings.HasPrefix(src, "---\n") {
						t.Errorf("%s: want YAML front matter first", name)
					}
					pubData, err := os.ReadFile(filepath.Join(pub, "skills", id+".json"))
					if strings.Contains(src, "access: private") || strings.Contains(src, `"access": "private"`) {
						continue
					}
					if err != nil {
						t.Errorf("%s: not published: %v", name, err)
						continue
					}
					if format == "json" && string(pubData) != src {
						t.Errorf("%s: published descriptor differs from the source", name)
					}
					if format == "md" {
						d, vs := skillcat.ParseDescriptor(id+".json", pubData)
						if vs.HasErrors() || d.ID != id {
							t.Errorf("%s: published descriptor: %v", name, vs)
						}
					}
				}
			})
		}
	}
}

// TestImportMarkdownRoundTrip checks that a Markdown source, read back by
// the build, is the descriptor the importer made, member for member.
func TestImportMarkdownRoundTrip(t *testing.T) {
	data, err := os.ReadFile(petstore)
	if err != nil {
		t.Fatal(err)
	}
	im, err := openapi.Import(petstore, data, skillcat.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	content, pub := filepath.Join(dir, "content"), filepath.Join(dir, "public")
	if code, _, errOut := runNewCmd(t, "import", "openapi", petstore, "--content", content); code != exitOK {
		t.Fatalf("import: exit %d:\n%s", code, errOut)
	}
	if code, _, errOut := runNewCmd(t, "build", "--content", content, "--out", pub, "--no-cache"); code != exitOK {
		t.Fatalf("build: exit %d:\n%s", code, errOut)
	}
	for _, d := range im.Skills {
		d.Extra = skillcat.Extra{importMarker: json.RawMessage(`{"format":"openapi","document":"Pet Shelter"}`)}
		want, _ := d.Encode()
		got, err := os.ReadFile(filepath.Join(pub, "skills", d.ID+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var a, b any
		json.Unmarshal(want, &a)
		json.Unmarshal(got, &b)
		aj, _ := json.Marshal(a)
		bj, _ := json.Marshal(b)
		if !bytes.Equal(aj, bj) {
			t.Errorf("%s: published from Markdown:\n%s\nwant:\n%s", d.ID, got, want)
		}
	}
}

func TestImportRefusals(t *testing.T) {
	t.Run("ExistingFile", func(t *testing.T) {
		content := t.TempDir()
		if code, _, errOut := runNewCmd(t, "import", "openapi", petstore, "--content", content); code != exitOK {
			t.Fatalf("first import: exit %d: %s", code, errOut)
		}
		before := tree(t, content)
		code, _, errOut := runNewCmd(t, "import", "openapi", petstore, "--content", content)
		if code != exitInvalid || !strings.Contains(errOut, "already exists") || !strings.Contains(errOut, petstore) || !strings.Contains(errOut, "nothing written") {
			t.Fatalf("second import: exit %d, want 1 naming the input and the file:\n%s", code, errOut)
		}
		if got := tree(t, content); fmt.Sprint(got) != fmt.Sprint(before) {
			t.Error("a refused import changed the content")
		}
		code, _, errOut = runNewCmd(t, "import", "openapi", petstore, "--content", content, "--force")
		if code != exitOK {
			t.Fatalf("--force: exit %d: %s", code, errOut)
		}
		if got := tree(t, content); fmt.Sprint(got) != fmt.Sprint(before) {
			t.Errorf("--force rewrote other bytes: got %v, want %v", names(got), names(before))
		}
	})
	t.Run("ForceKeepsOthersFiles", func(t *testing.T) {
		content := t.TempDir()
		os.MkdirAll(filepath.Join(content, "pet-shelter"), 0o755)
		mine := "{\"id\": \"hand.written\"}\n"
		os.WriteFile(filepath.Join(content, "pet-shelter", "pet-shelter.list-pets.md"), []byte(mine), 0o644)
		code, _, errOut := runNewCmd(t, "import", "openapi", petstore, "--content", content, "--force")
		if code != exitInvalid || !strings.Contains(errOut, "did not write it") {
			t.Fatalf("exit %d, want 1 refusing to replace a file the import did not write:\n%s", code, errOut)
		}
		if files := tree(t, content); len(files) != 1 || files["pet-shelter/pet-shelter.list-pets.md"] != mine {
			t.Errorf("content changed: %v", names(files))
		}
	})
	t.Run("IDUsed", func(t *testing.T) {
		content := t.TempDir()
		if code, _, errOut := runNewCmd(t, "new", "pet-shelter.delete-pet", "--content", content); code != exitOK {
			t.Fatal(errOut)
		}
		before := tree(t, content)
		code, _, errOut := runNewCmd(t, "import", "openapi", petstore, "--content", content)
		if code != exitInvalid || !strings.Contains(errOut, `id "pet-shelter.delete-pet" is already used by `+filepath.Join(content, "pet-shelter.delete-pet.json")) {
			t.Fatalf("exit %d, want 1 naming the id and the other file:\n%s", code, errOut)
		}
		if got := tree(t, content); fmt.Sprint(got) != fmt.Sprint(before) {
			t.Error("a refused import changed the content")
		}
	})
	t.Run("DryRun", func(t *testing.T) {
		content := filepath.Join(t.TempDir(), "content")
		code, out, errOut := runNewCmd(t, "import", "openapi", petstore, "--content", content, "--dry-run")
		if code != exitOK || strings.Count(out, "would write ") != 4 {
			t.Fatalf("exit %d, want 0 and four files listed:\n%s\n%s", code, out, errOut)
		}
		if _, err := os.Stat(content); err == nil {
			t.Error("--dry-run created the content folder")
		}
	})
	t.Run("Usage", func(t *testing.T) {
		for _, args := range [][]string{
			{"import"},
			{"import", "graphql", "x.json"},
			{"import", "openapi"},
			{"import", "openapi", petstore, "--format", "yaml"},
			{"import", "openapi", petstore, "--prefix", "Not Valid"},
			{"import", "openapi", petstore, "--access", "secret"},
			{"import", "openapi", petstore, "--server", "ftp://x"},
			{"import", "openapi", "http://api.example.com/openapi.yaml"},
		} {
			if code, _, errOut := runNewCmd(t, args...); code != exitUsage {
				t.Errorf("%v: exit %d, want 2:\n%s", args, code, errOut)
			}
		}
	})
	t.Run("MissingFile", func(t *testing.T) {
		if code, _, errOut := runNewCmd(t, "import", "openapi", filepath.Join(t.TempDir(), "nope.yaml")); code != exitInternal {
			t.Errorf("exit %d, want 3:\n%s", code, errOut)
		}
	})
	t.Run("PrefixAndAccess", func(t *testing.T) {
		content := t.TempDir()
		code, out, errOut := runNewCmd(t, "import", "openapi", petstore, "--content", content, "--prefix", "acme", "--access", "private", "--format", "json")
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		for name, src := range tree(t, content) {
			if !strings.HasPrefix(name, "acme/acme.") || !strings.Contains(src, `"access": "private"`) {
				t.Errorf("%s: want the id prefix acme and access private", name)
			}
		}
		if !strings.Contains(out, "acme.list-pets") {
			t.Errorf("stdout: %s", out)
		}
	})
}

// TestImportAllOrNothing gives one good and one bad document: nothing of
// either is written.
func TestImportAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "openapi.yaml")
	os.WriteFile(bad, []byte("<!DOCTYPE html>\n<html><body><h1>502 Bad Gateway</h1></body></html>\n"), 0o644)
	content := filepath.Join(dir, "content")
	code, _, errOut := runNewCmd(t, "import", "openapi", petstore, bad, "--content", content)
	if code != exitInvalid || !strings.Contains(errOut, bad+":1:1: (file): this is an HTML page") || !strings.Contains(errOut, "nothing written") {
		t.Fatalf("exit %d, want 1 naming the HTML file:\n%s", code, errOut)
	}
	if _, err := os.Stat(content); err == nil {
		t.Error("the content folder was created")
	}
}

// TestImportHostile feeds documents made to hurt: each is exit 1 with a
// clear message, and nothing is written.
func TestImportHostile(t *testing.T) {
	deep := strings.Repeat(`{"a":`, 100000) + "1" + strings.Repeat("}", 100000)
	deepYAML := "openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths:\n  /x:\n    get:\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema: " +
		strings.Repeat("{items: ", 5000) + "{}" + strings.Repeat("}", 5000) + "\n"
	laughs := "openapi: 3.0.0\ninfo: {title: t, version: '1'}\na: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\ng: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]\nh: [*g, *g, *g, *g, *g, *g, *g, *g, *g, *g]\npaths: {}\n"
	cases := []struct {
		name, kind, data, want string
	}{
		{"ExternalRef", "openapi", "openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths:\n  /x:\n    get:\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema: {$ref: 'https://evil.example.com/schema.json#/Pet'}\n", "points outside the document"},
		{"ExternalFileRef", "openapi", "openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths:\n  /x:\n    $ref: '/etc/passwd'\n", "points outside the document"},
		{"DeepJSON", "openapi", deep, "nest"},
		{"DeepYAML", "openapi", deepYAML, "deeper than"},
		{"BillionLaughs", "openapi", laughs, "too many values"},
		{"HTML", "openapi", "<!doctype html><html><head><title>Login</title></head></html>", "HTML page"},
		{"NotOpenAPI", "openapi", "name: my-app\nversion: 1.0.0\n", "not an OpenAPI document"},
		{"Swagger12", "openapi", `{"swaggerVersion": "1.2", "apis": []}`, "not an OpenAPI document"},
		{"Empty", "openapi", "", "empty"},
		{"Binary", "openapi", "\x00\x01\x02\xff", "invalid"},
		{"MCPHTML", "mcp", "<html></html>", "HTML"},
		{"MCPNotServer", "mcp", `{"hello": "world"}`, "not an MCP server.json"},
		{"MCPPackagesOnly", "mcp", `{"name": "io.github.x/y", "packages": [{"registryType": "npm", "identifier": "y"}]}`, "only has packages"},
		{"A2ANoSkills", "a2a", `{"name": "Agent", "url": "https://a.example.com", "skills": []}`, "no skills"},
		{"A2ANoURL", "a2a", `{"name": "Agent", "skills": [{"id": "s", "name": "S"}]}`, "no interface URL"},
		{"A2ADeep", "a2a", deep, "nest"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "input")
			os.WriteFile(file, []byte(c.data), 0o644)
			content := filepath.Join(dir, "content")
			code, _, errOut := runNewCmd(t, "import", c.kind, file, "--content", content)
			if code != exitInvalid || !strings.Contains(errOut, file) || !strings.Contains(errOut, c.want) || !strings.Contains(errOut, "nothing written") {
				t.Fatalf("exit %d, want 1 naming %s and saying %q:\n%s", code, file, c.want, errOut)
			}
			if _, err := os.Stat(content); err == nil {
				t.Error("something was written")
			}
		})
	}
	t.Run("TooLarge", func(t *testing.T) {
		dir := t.TempDir()
		file := filepath.Join(dir, "huge.json")
		f, _ := os.Create(file)
		f.Truncate(importMaxBytes + 1) // sparse: claims 32 MiB and a byte
		f.Close()
		code, _, errOut := runNewCmd(t, "import", "openapi", file, "--content", filepath.Join(dir, "content"))
		if code != exitInvalid || !strings.Contains(errOut, "larger than") {
			t.Fatalf("exit %d, want 1 saying the file is too large:\n%s", code, errOut)
		}
	})
}

// TestImportURL fetches documents from a real server on 127.0.0.1 with the
// careful client: YAML served as text/plain is read; an HTML page, or a
// body claiming 1 GB, is refused with exit 1 and nothing written.
func TestImportURL(t *testing.T) {
	spec, err := os.ReadFile(petstore)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/openapi.yaml":
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Write(spec)
		case "/relative.yaml":
			w.Header().Set("Content-Type", "application/yaml")
			fmt.Fprint(w, "openapi: 3.0.0\ninfo: {title: Relative, version: 1.0.0}\nservers: [{url: /api/v2}]\npaths:\n  /ping:\n    get:\n      operationId: ping\n      responses: {'204': {description: pong}}\n")
		case "/login":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html>sign in</html>")
		case "/huge.json":
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", "1073741824")
			w.Write([]byte("{"))
		}
	}))
	defer srv.Close()

	content := filepath.Join(t.TempDir(), "content")
	code, _, errOut := runNewCmd(t, "import", "openapi", srv.URL+"/openapi.yaml", "--content", content)
	if code != exitOK {
		t.Fatalf("import from URL: exit %d:\n%s", code, errOut)
	}
	if n := len(tree(t, content)); n != 4 {
		t.Errorf("got %d files, want 4", n)
	}
	code, _, errOut = runNewCmd(t, "import", "openapi", srv.URL+"/relative.yaml", "--content", content, "--format", "json")
	if code != exitOK {
		t.Fatalf("relative servers: exit %d:\n%s", code, errOut)
	}
	src := tree(t, content)["relative/relative.ping.json"]
	if !strings.Contains(src, `"url": "`+srv.URL+`/api/v2/ping"`) {
		t.Errorf("a relative server URL resolves against the document's URL; got:\n%s", src)
	}
	for _, path := range []string{"/login", "/huge.json"} {
		dir := filepath.Join(t.TempDir(), "content")
		code, _, errOut := runNewCmd(t, "import", "openapi", srv.URL+path, "--content", dir)
		if code != exitInvalid || !strings.Contains(errOut, "nothing written") {
			t.Errorf("%s: exit %d, want 1:\n%s", path, code, errOut)
		}
		if _, err := os.Stat(dir); err == nil {
			t.Errorf("%s: something was written", path)
		}
	}
}

// TestImportURLCredentials: a URL's user information (HTTP Basic
// credentials for a protected document) is used to fetch it, but reaches
// neither a message nor a source: a relative server resolves against the
// URL without it, so the password is not published as the endpoint.
func TestImportURLCredentials(t *testing.T) {
	const password = "s3cr3t-pw"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, pw, ok := r.BasicAuth(); !ok || pw != password {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		if r.URL.Path != "/relative.yaml" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/yaml")
		fmt.Fprint(w, "openapi: 3.0.0\ninfo: {title: Relative, version: 1.0.0}\nservers: [{url: /api/v2}]\npaths:\n  /ping:\n    get:\n      operationId: ping\n      responses: {'204': {description: pong}}\n")
	}))
	defer srv.Close()
	withUser := strings.Replace(srv.URL, "http://", "http://user:"+password+"@", 1)

	content := filepath.Join(t.TempDir(), "content")
	code, out, errOut := runNewCmd(t, "import", "openapi", withUser+"/relative.yaml", "--content", content, "--format", "json")
	if code != exitOK {
		t.Fatalf("import: exit %d:\n%s", code, errOut)
	}
	src := tree(t, content)["relative/relative.ping.json"]
	if !strings.Contains(src, `"url": "`+srv.URL+`/api/v2/ping"`) {
		t.Errorf("the endpoint should be the server resolved against the URL without its user information; got:\n%s", src)
	}
	for _, missing := range []string{"/missing.yaml", "/relative.yaml"} {
		u := withUser + missing
		if missing == "/relative.yaml" {
			u = strings.Replace(u, password, "wrong-pw", 1)
		}
		_, o, e := runNewCmd(t, "import", "openapi", u, "--content", filepath.Join(t.TempDir(), "c"))
		out, errOut = out+o, errOut+e
	}
	for name, text := range map[string]string{"stdout": out, "stderr": errOut, "source": src} {
		if strings.Contains(text, password) || strings.Contains(text, "wrong-pw") {
			t.Errorf("the password reached %s:\n%s", name, text)
		}
	}
}

// TestImportHugeSchema: an operation whose output pulls in more schema
// than a source may hold still imports, with an open output schema and a
// warning saying so.
func TestImportHugeSchema(t *testing.T) {
	schemas := map[string]any{}
	for i := 0; i < 700; i++ {
		schemas[fmt.Sprintf("S%d", i)] = map[string]any{"type": "object", "description": strings.Repeat("x", 2000),
			"properties": map[string]any{"next": map[string]any{"$ref": fmt.Sprintf("#/components/schemas/S%d", (i+1)%700)}}}
	}
	doc := map[string]any{"openapi": "3.0.0", "info": map[string]any{"title": "Huge", "version": "1.0.0"},
		"servers": []any{map[string]any{"url": "https://api.huge.io"}},
		"paths": map[string]any{"/a": map[string]any{"get": map[string]any{"operationId": "a", "responses": map[string]any{
			"200": map[string]any{"description": "ok", "content": map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/S0"}}}}}}}},
		"components": map[string]any{"schemas": schemas}}
	data, _ := json.Marshal(doc)
	dir := t.TempDir()
	file := filepath.Join(dir, "huge.json")
	os.WriteFile(file, data, 0o644)
	content := filepath.Join(dir, "content")
	code, _, errOut := runNewCmd(t, "import", "openapi", file, "--content", content)
	if code != exitOK || !strings.Contains(errOut, "huge.a: output schema and examples replaced by open ones") {
		t.Fatalf("exit %d, want 0 and a warning:\n%s", code, errOut)
	}
	if !strings.Contains(tree(t, content)["huge/huge.a.md"], "output: {}") {
		t.Error("the output schema is not the open one")
	}
}
