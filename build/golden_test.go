package build_test

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/skillcat/skillcat/build"
	"github.com/skillcat/skillcat/templates"
	_ "modernc.org/sqlite" // reads the built catalog.sqlite
)

// update rewrites the golden files: go test ./build -run Golden -update
var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden/want")

// goldenConfig builds testdata/golden/content with a fixed date and base URL.
func goldenConfig(out string) build.Config {
	return build.Config{
		Content:      os.DirFS("testdata/golden/content"),
		ContentLabel: "content",
		Out:          out,
		BaseURL:      "https://skills.example.com/catalog/",
		Time:         testTime,
	}
}

// sqliteDump is the catalog.sqlite golden: its schema, user_version and
// every row of every table as JSON, one a line, in primary-key order.
const sqliteDump = "catalog.sqlite.txt"

// TestGolden builds a small fixture catalog and compares every output file
// with testdata/golden/want. The JSON documents are the contract; the pages
// follow the templates, so after a template change regenerate with
//
//	go test ./build -run Golden -update
//
// and review the diff.
func TestGolden(t *testing.T) {
	out := filepath.Join(t.TempDir(), "public")
	res := mustBuild(t, goldenConfig(out))
	if res.Sources != 5 || res.Published != 4 || res.Private != 1 || len(res.Warnings) != 0 {
		t.Errorf("got %d sources, %d published, %d private, warnings %q; want 5, 4, 1, none",
			res.Sources, res.Published, res.Private, lines(res.Warnings))
	}
	got := outputFiles(t, out)
	// Assets copied from the templates are compared with their source, not
	// kept twice.
	for name, data := range got {
		if src, err := fs.ReadFile(templates.FS(), name); err == nil && strings.HasPrefix(name, "assets/") {
			if !bytes.Equal(src, data) {
				t.Errorf("/%s differs from templates/%s", name, name)
			}
			delete(got, name)
		}
	}
	// What holds whatever the templates look like.
	for name, data := range got {
		for _, private := range []string{"payroll", "SECRET"} {
			if bytes.Contains(data, []byte(private)) {
				t.Errorf("/%s holds %q of the private skill", name, private)
			}
		}
		if bytes.Contains(data, []byte("drafts are skipped")) {
			t.Errorf("/%s holds text of a source under _drafts/", name)
		}
	}
	notes := string(got["skills/notes.search/index.html"])
	for _, text := range []string{`&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;`, `&lt;b&gt;bold tags&lt;/b&gt;`, "notes &amp; decisions"} {
		if !strings.Contains(notes, text) {
			t.Errorf("/skills/notes.search/index.html lacks %s: raw HTML must show as text", text)
		}
	}
	if strings.Contains(notes, "<script>alert") {
		t.Errorf("/skills/notes.search/index.html runs the description's raw HTML")
	}
	want := filepath.Join("testdata", "golden", "want")
	if *update {
		if err := os.RemoveAll(want); err != nil {
			t.Fatal(err)
		}
		for name, data := range got {
			p := filepath.Join(want, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		t.Logf("wrote %d golden files to %s", len(got), want)
		return
	}
	wantFiles := map[string][]byte{}
	err := filepath.WalkDir(want, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(want, p)
		data, err := os.ReadFile(p)
		wantFiles[filepath.ToSlash(rel)] = data
		return err
	})
	if err != nil {
		t.Fatalf("read golden files (create them with -update): %v", err)
	}
	names := map[string]bool{}
	for name := range got {
		names[name] = true
	}
	for name := range wantFiles {
		names[name] = true
	}
	sorted := make([]string, 0, len(names))
	for name := range names {
		sorted = append(sorted, name)
	}
	sort.Strings(sorted)
	pages := 0
	for _, name := range sorted {
		g, gok := got[name]
		w, wok := wantFiles[name]
		switch {
		case !wok:
			t.Errorf("/%s: built but not in the golden files", name)
		case !gok:
			t.Errorf("/%s: in the golden files but not built", name)
		case !bytes.Equal(g, w):
			if strings.HasSuffix(name, ".html") || strings.HasPrefix(name, "assets/") {
				pages++
			}
			t.Errorf("/%s differs from the golden file:\n%s", name, firstDifference(g, w))
		}
	}
	if pages > 0 {
		t.Logf("%d pages or assets differ; if the templates changed on purpose, run: go test ./build -run Golden -update", pages)
	}
}

// outputFiles reads every file of out, catalog.sqlite as its dump.
func outputFiles(t *testing.T, out string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(out, p)
		rel = filepath.ToSlash(rel)
		if rel == "catalog.sqlite" {
			files[sqliteDump] = dumpSQLite(t, p)
			return nil
		}
		data, err := os.ReadFile(p)
		files[rel] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// dumpSQLite writes out a SQLite file's schema and rows as text.
func dumpSQLite(t *testing.T, file string) []byte {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(file)+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var b bytes.Buffer
	var version int
	if err := db.QueryRow("PRAGMA user_version").Scan(&version); err != nil {
		t.Fatalf("catalog.sqlite: %v", err)
	}
	fmt.Fprintf(&b, "PRAGMA user_version = %d;\n", version)
	rows, err := db.Query("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type DESC, name")
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var typ, name string
		var ddl sql.NullString
		if err := rows.Scan(&typ, &name, &ddl); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s;\n", strings.TrimSpace(ddl.String))
		if typ == "table" {
			tables = append(tables, name)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	for _, table := range tables {
		fmt.Fprintf(&b, "\n-- %s\n", table)
		rows, err := db.Query("SELECT * FROM " + table + " ORDER BY 1, 2")
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		fmt.Fprintf(&b, "-- %s\n", strings.Join(cols, ", "))
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for i, v := range vals {
				if bs, ok := v.([]byte); ok {
					vals[i] = string(bs)
				}
			}
			line, err := json.Marshal(vals)
			if err != nil {
				t.Fatal(err)
			}
			b.Write(line)
			b.WriteByte('\n')
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
	}
	return b.Bytes()
}

// firstDifference shows the first line where got and want differ.
func firstDifference(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl || i >= len(g) || i >= len(w) {
			return fmt.Sprintf("  line %d:\n  got:  %q\n  want: %q", i+1, cut(gl), cut(wl))
		}
	}
	return "  (same lines, different bytes)"
}

func cut(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// TestPunctuationMarkedWhenStyled checks that a skill page marks JSON's
// punctuation (class p) in its schemas and examples only for a site whose
// style sheets colour it: the built-in highlight.css does not, and a
// site's own that does gets every mark back, the text unchanged.
func TestPunctuationMarkedWhenStyled(t *testing.T) {
	page := filepath.Join("skills", "weather.forecast", "index.html")
	schemaJSON := func(t *testing.T, cfg build.Config) string {
		t.Helper()
		mustBuild(t, cfg)
		data, err := os.ReadFile(filepath.Join(cfg.Out, page))
		if err != nil {
			t.Fatal(err)
		}
		_, after, ok := strings.Cut(string(data), `<summary>JSON Schema</summary>`)
		if !ok {
			t.Fatalf("%s shows no schema", page)
		}
		return after
	}
	plain := schemaJSON(t, goldenConfig(filepath.Join(t.TempDir(), "public")))
	if strings.Contains(plain, `<span class="p">`) {
		t.Errorf("the built-in style colours no punctuation, yet the schema marks it")
	}
	cfg := goldenConfig(filepath.Join(t.TempDir(), "public"))
	css := string(mustRead(t, templates.FS(), "assets/highlight.css")) + ".chroma .p { color: #f8f8f2 }\n"
	cfg.Templates = fstest.MapFS{"assets/highlight.css": {Data: []byte(css)}}
	marked := schemaJSON(t, cfg)
	if n := strings.Count(marked, `<span class="p">`); n < 10 {
		t.Errorf("a site that colours punctuation: %d marks in the schema and examples, want them all", n)
	}
	unmark := strings.NewReplacer(`<span class="p">`, "", `</span>`, "")
	if unmark.Replace(marked) != unmark.Replace(plain) {
		t.Error("marking the punctuation changed more than the marks")
	}
}

// mustRead reads name from fsys.
func mustRead(t *testing.T, fsys fs.FS, name string) []byte {
	t.Helper()
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
