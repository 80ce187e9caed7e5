package build_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/build"
	"github.com/skillcat/skillcat/internal/treetest"
	"pgregory.net/rapid"
)

// testTime is the build date of every test that sets one
// (SOURCE_DATE_EPOCH=1767225600).
var testTime = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// descriptor returns a valid descriptor as a map, changed by edits.
func descriptor(id string, edits ...func(map[string]any)) map[string]any {
	d := map[string]any{
		"protocol":        map[string]any{"version": "1.0.0"},
		"id":              id,
		"name":            "Skill " + id,
		"version":         "1.0.0",
		"capability_type": "api",
		"description":     "Does " + id + ".",
		"provider":        map[string]any{"name": "Acme"},
		"endpoint":        map[string]any{"url": "https://api.example.com/" + id},
		"inputs":          map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer"}}},
		"output":          map[string]any{"type": "object"},
		"auth":            map[string]any{"type": "none"},
		"access":          "public",
	}
	for _, e := range edits {
		e(d)
	}
	return d
}

// set returns an edit setting one top-level member.
func set(name string, v any) func(map[string]any) {
	return func(d map[string]any) { d[name] = v }
}

// jsonSource encodes a descriptor as an indented .json source.
func jsonSource(d map[string]any) []byte {
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		panic(err)
	}
	return append(b, '\n')
}

// mdSource writes a descriptor as a .md source: every member but the
// description as a line of YAML front matter (in JSON flow style, which YAML
// reads as is), and the description as the body.
func mdSource(d map[string]any) []byte {
	var b bytes.Buffer
	b.WriteString("---\n")
	names := make([]string, 0, len(d))
	for name := range d {
		if name != "description" {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		v, err := json.Marshal(d[name])
		if err != nil {
			panic(err)
		}
		fmt.Fprintf(&b, "%s: %s\n", name, v)
	}
	b.WriteString("---\n\n")
	if desc, ok := d["description"].(string); ok {
		b.WriteString(desc + "\n")
	}
	return b.Bytes()
}

// mapFS returns a MapFS of files given as path → contents.
func mapFS(files map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{}
	for p, data := range files {
		fsys[p] = &fstest.MapFile{Data: []byte(data), Mode: 0o644}
	}
	return fsys
}

// symlink returns a MapFS entry for a symbolic link to target.
func symlink(target string) *fstest.MapFile {
	return &fstest.MapFile{Data: []byte(target), Mode: fs.ModeSymlink | 0o777}
}

// config is the Config of a test build of fsys into out.
func config(fsys fs.FS, out string) build.Config {
	return build.Config{Content: fsys, ContentLabel: "content", Out: out, Time: testTime}
}

// mustBuild builds and fails the test on any error.
func mustBuild(t rapid.TB, cfg build.Config) *build.Result {
	t.Helper()
	res, err := build.Build(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Build: %v\n%s", err, violationLines(err))
	}
	return res
}

// violationLines lists the violations inside err, one per line.
func violationLines(err error) string {
	var invalid *build.InvalidError
	if !errors.As(err, &invalid) {
		return ""
	}
	return invalid.Violations.Error()
}

// violations returns the violations of a failed run, failing the test when
// err is not an *InvalidError.
func violations(t rapid.TB, err error) skillcat.Violations {
	t.Helper()
	var invalid *build.InvalidError
	if !errors.As(err, &invalid) {
		t.Fatalf("got error %v, want an *InvalidError", err)
	}
	if !errors.Is(err, build.ErrInvalidContent) {
		t.Errorf("error %v does not wrap ErrInvalidContent", err)
	}
	return invalid.Violations
}

// lines formats violations as "path:line:col: field: reason" lines.
func lines(vs skillcat.Violations) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Error()
	}
	return out
}

// snapshot records a directory tree: each path (relative, slash-separated)
// with "dir", "link -> target" or the sha256 of the file's bytes and its
// mode.
func snapshot(t rapid.TB, dir string) map[string]string {
	t.Helper()
	tree := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			tree[rel] = "link -> " + target
		case d.IsDir():
			tree[rel] = "dir " + info.Mode().String()
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(data)
			tree[rel] = hex.EncodeToString(sum[:]) + " " + info.Mode().String()
		}
		return nil
	})
	if err != nil {
		t.Fatalf("snapshot %s: %v", dir, err)
	}
	return tree
}

// assertUntouched fails when dir differs from the snapshot before, or when
// a temporary build folder was left beside it.
func assertUntouched(t rapid.TB, dir string, before map[string]string) {
	t.Helper()
	if d := treetest.Diff(snapshot(t, dir), before); d != "" {
		t.Errorf("output %s changed by a failed build:\n%s", dir, d)
	}
	assertNoLeftovers(t, filepath.Dir(dir))
}

// assertNoLeftovers fails when a temporary build folder (".<out>.new-*")
// is left in parent.
func assertNoLeftovers(t rapid.TB, parent string) {
	t.Helper()
	entries, err := os.ReadDir(parent)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.Contains(e.Name(), ".new-") {
			t.Errorf("temporary %s left in %s", e.Name(), parent)
		}
	}
}

// readFile reads a file of the output, failing the test when it is missing.
func readFile(t rapid.TB, out, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(name)))
	if err != nil {
		t.Fatalf("output file: %v", err)
	}
	return data
}

// parseIndex reads and validates a SkillIndex of the output.
func parseIndex(t rapid.TB, out, name string) *skillcat.SkillIndex {
	t.Helper()
	x, vs := skillcat.ParseIndex(name, readFile(t, out, name))
	if vs.HasErrors() {
		t.Fatalf("%s is not a valid SkillIndex:\n%v", name, vs)
	}
	return x
}

// sampleFS is a small valid catalog: one skill of each type, a private one
// and a site file.
func sampleFS() fstest.MapFS {
	return mapFS(map[string]string{
		"_index.md":             "---\ntitle: Test Catalog\n---\nWelcome.\n",
		"api/geo.json":          string(jsonSource(descriptor("geo.lookup"))),
		"plugins/lint.md":       string(mdSource(descriptor("lint.fix", set("capability_type", "plugin")))),
		"kb/style.json":         string(jsonSource(descriptor("style.guide", set("capability_type", "knowledge"), set("access", "restricted"), set("auth", map[string]any{"type": "custom", "instructions": "Ask."})))),
		"tasks/report.md":       string(mdSource(descriptor("report.weekly", set("capability_type", "task")))),
		"internal/payroll.json": string(jsonSource(descriptor("payroll.run", set("access", "private")))),
	})
}

func TestBuild(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "public")
		res := mustBuild(t, config(sampleFS(), out))
		if res.Sources != 5 || res.Published != 4 || res.Private != 1 {
			t.Errorf("got %d sources, %d published, %d private; want 5, 4, 1", res.Sources, res.Published, res.Private)
		}
		n := 0
		filepath.WalkDir(out, func(_ string, d fs.DirEntry, _ error) error {
			if !d.IsDir() {
				n++
			}
			return nil
		})
		if res.Files != n {
			t.Errorf("Result.Files = %d, but %d files were written", res.Files, n)
		}
		x := parseIndex(t, out, ".well-known/skills.json")
		var ids []string
		for _, e := range x.Skills {
			ids = append(ids, e.ID)
		}
		if want := []string{"geo.lookup", "lint.fix", "report.weekly", "style.guide"}; !slices.Equal(ids, want) {
			t.Errorf("index ids = %q, want %q", ids, want)
		}
		assertNoLeftovers(t, filepath.Dir(out))
	})

	t.Run("Inventory", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "public")
		mustBuild(t, config(sampleFS(), out))
		want := []string{
			".well-known/skills.json", "index.html", "404.html", ".nojekyll", "_headers", "catalog.sqlite",
			"schemas/v1/skill-descriptor.schema.json", "schemas/v1/skill-index.schema.json",
			"schemas/v1/invocation-request.schema.json", "schemas/v1/invocation-response.schema.json",
		}
		for _, id := range []string{"geo.lookup", "lint.fix", "report.weekly", "style.guide"} {
			want = append(want, "skills/"+id+".json", "skills/"+id+"/index.html")
		}
		for _, typ := range skillcat.CapabilityTypes {
			want = append(want, "types/"+string(typ)+".json", "types/"+string(typ)+"/index.html")
		}
		for _, name := range want {
			if _, err := os.Stat(filepath.Join(out, name)); err != nil {
				t.Errorf("missing /%s", name)
			}
		}
		for _, name := range []string{"skills/payroll.run.json", "skills/payroll.run", "sitemap.xml", "robots.txt"} {
			if _, err := os.Stat(filepath.Join(out, name)); err == nil {
				t.Errorf("/%s is there, want it absent", name)
			}
		}
		schemas := skillcat.Schemas()
		for _, name := range []string{"skill-descriptor", "skill-index", "invocation-request", "invocation-response"} {
			embedded, err := fs.ReadFile(schemas, name+".schema.json")
			if err != nil {
				t.Fatal(err)
			}
			if got := readFile(t, out, "schemas/v1/"+name+".schema.json"); !bytes.Equal(got, embedded) {
				t.Errorf("/schemas/v1/%s.schema.json differs from the embedded schema", name)
			}
		}
		if data := readFile(t, out, ".nojekyll"); len(data) != 0 {
			t.Errorf(".nojekyll holds %q, want nothing", data)
		}
	})

	t.Run("Headers", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "public")
		mustBuild(t, config(sampleFS(), out))
		rules := parseHeaders(t, string(readFile(t, out, "_headers")))
		if got := rules["/*"]["X-Content-Type-Options"]; got != "nosniff" {
			t.Errorf("/* X-Content-Type-Options = %q, want nosniff", got)
		}
		for _, p := range []string{"/.well-known/skills.json", "/skills/*.json", "/types/*.json", "/schemas/v1/*"} {
			h, ok := rules[p]
			if !ok {
				t.Errorf("_headers has no rule for %s", p)
				continue
			}
			if ct := h["Content-Type"]; !strings.HasPrefix(ct, "application/json") {
				t.Errorf("%s Content-Type = %q, want application/json", p, ct)
			}
			if got := h["Access-Control-Allow-Origin"]; got != "*" {
				t.Errorf("%s Access-Control-Allow-Origin = %q, want *", p, got)
			}
		}
	})

	t.Run("BaseURL", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "public")
		cfg := config(sampleFS(), out)
		cfg.BaseURL = "https://x.example/cat" // no final slash: the build adds it
		mustBuild(t, cfg)
		for _, name := range []string{".well-known/skills.json", "types/api.json"} {
			for _, e := range parseIndex(t, out, name).Skills {
				if want := "https://x.example/cat/skills/" + e.ID + ".json"; e.DescriptorURL != want {
					t.Errorf("%s: descriptor_url = %q, want %q", name, e.DescriptorURL, want)
				}
			}
		}
		sitemap := string(readFile(t, out, "sitemap.xml"))
		for _, loc := range []string{"https://x.example/cat/", "https://x.example/cat/types/task/", "https://x.example/cat/skills/geo.lookup/"} {
			if !strings.Contains(sitemap, "<loc>"+loc+"</loc>") {
				t.Errorf("sitemap.xml lacks <loc>%s</loc>:\n%s", loc, sitemap)
			}
		}
		if strings.Contains(sitemap, "payroll") {
			t.Errorf("sitemap.xml names the private skill:\n%s", sitemap)
		}
		if !strings.Contains(sitemap, "<lastmod>2026-01-01</lastmod>") {
			t.Errorf("sitemap.xml lacks the build date:\n%s", sitemap)
		}
		robots := string(readFile(t, out, "robots.txt"))
		if !strings.Contains(robots, "Sitemap: https://x.example/cat/sitemap.xml\n") {
			t.Errorf("robots.txt does not point to the sitemap:\n%s", robots)
		}
	})

	t.Run("BaseURLEscaped", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "public")
		cfg := config(sampleFS(), out)
		cfg.BaseURL = "https://x.example/my cat"
		mustBuild(t, cfg)
		for _, e := range parseIndex(t, out, ".well-known/skills.json").Skills {
			if want := "https://x.example/my%20cat/skills/" + e.ID + ".json"; e.DescriptorURL != want {
				t.Errorf("descriptor_url = %q, want %q", e.DescriptorURL, want)
			}
		}
	})

	t.Run("RelativeURLs", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "public")
		mustBuild(t, config(sampleFS(), out))
		for _, name := range []string{".well-known/skills.json", "types/api.json", "types/task.json"} {
			for _, e := range parseIndex(t, out, name).Skills {
				if want := "../skills/" + e.ID + ".json"; e.DescriptorURL != want {
					t.Errorf("%s: descriptor_url = %q, want %q", name, e.DescriptorURL, want)
				}
			}
		}
	})

	t.Run("ErrConfig", func(t *testing.T) {
		for _, base := range []string{"x.example", "/cat/", "ftp://x.example/", "https://", "https://x.example/?a=1", "https://x.example/cat?",
			"https://x.example/#top", "http://[::1", "https://user:secret@x.example/"} {
			t.Run(base, func(t *testing.T) {
				dir := t.TempDir()
				out := filepath.Join(dir, "public")
				cfg := config(sampleFS(), out)
				cfg.BaseURL = base
				_, err := build.Build(context.Background(), cfg)
				if !errors.Is(err, build.ErrConfig) {
					t.Fatalf("got error %v, want ErrConfig", err)
				}
				if strings.Contains(err.Error(), "secret") {
					t.Errorf("the error shows the URL's password: %v", err)
				}
				if entries, _ := os.ReadDir(dir); len(entries) != 0 {
					t.Errorf("a rejected configuration wrote %d entries", len(entries))
				}
			})
		}
	})

	t.Run("ReplacesOutput", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "public")
		if err := os.MkdirAll(filepath.Join(out, "stale", "deep"), 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(out, "stale", "deep", "old.html"), []byte("old"), 0o644)
		os.WriteFile(filepath.Join(out, "skills.json"), []byte("old"), 0o644)
		os.MkdirAll(filepath.Join(out, ".well-known"), 0o755)
		os.WriteFile(filepath.Join(out, ".well-known", "skills.json"), []byte("old"), 0o644)
		mustBuild(t, config(sampleFS(), out))
		for _, name := range []string{"stale", "skills.json"} {
			if _, err := os.Stat(filepath.Join(out, name)); err == nil {
				t.Errorf("%s of the previous output survived the build", name)
			}
		}
		assertNoLeftovers(t, filepath.Dir(out))
	})

	t.Run("ErrForeignOutput", func(t *testing.T) {
		// A folder that is not a skillcat site (someone's files, or a typo
		// such as --out ~) is never replaced.
		out := filepath.Join(t.TempDir(), "home")
		os.MkdirAll(filepath.Join(out, "docs"), 0o755)
		os.WriteFile(filepath.Join(out, "docs", "thesis.txt"), []byte("precious"), 0o644)
		before := snapshot(t, out)
		_, err := build.Build(context.Background(), config(sampleFS(), out))
		if !errors.Is(err, build.ErrConfig) || !strings.Contains(err.Error(), "not a skillcat site") {
			t.Fatalf("got %v, want an ErrConfig refusing the folder", err)
		}
		assertUntouched(t, out, before)
	})

	t.Run("OutIsAFile", func(t *testing.T) {
		dir := t.TempDir()
		out := filepath.Join(dir, "public")
		os.WriteFile(out, []byte("not a folder"), 0o644)
		before := snapshot(t, dir)
		_, err := build.Build(context.Background(), config(sampleFS(), out))
		if err == nil {
			t.Fatal("Build into a path that is a file succeeded")
		}
		if d := treetest.Diff(snapshot(t, dir), before); d != "" {
			t.Errorf("failed build changed %s:\n%s", dir, d)
		}
	})

	t.Run("InvalidKeepsOutput", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "public")
		fsys := sampleFS()
		mustBuild(t, config(fsys, out))
		before := snapshot(t, out)
		fsys["api/geo.json"] = &fstest.MapFile{Data: []byte(`{"id": "geo.lookup"`)}
		_, err := build.Build(context.Background(), config(fsys, out))
		got := lines(violations(t, err))
		want := []string{`content/api/geo.json:1:20: (file): invalid JSON: unexpected end of input, expected ',' or '}' after object member`}
		if !slices.Equal(got, want) {
			t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		assertUntouched(t, out, before)
	})

	t.Run("Cancelled", func(t *testing.T) {
		// A context that is cancelled after its n-th look stops the build
		// at every point where it looks; each stop must leave the previous
		// output as it was and no temporary folder.
		fsys := sampleFS()
		out := filepath.Join(t.TempDir(), "public")
		mustBuild(t, config(mustChange(fsys), out))
		before := snapshot(t, out)
		counter := newCountingContext(-1)
		if _, err := build.Build(counter, config(fsys, filepath.Join(t.TempDir(), "probe"))); err != nil {
			t.Fatal(err)
		}
		total := int(counter.looks.Load())
		if total < 3 {
			t.Fatalf("a build looks at its context %d times; want at least 3", total)
		}
		t.Logf("a build looks at its context %d times", total)
		// database/sql looks a varying number of times, so stop short of
		// the last looks, which may come after the build's final check.
		limit := total * 9 / 10
		for n := 0; n <= limit; n += max(1, limit/12) {
			ctx := newCountingContext(n)
			_, err := build.Build(ctx, config(fsys, out))
			if err == nil {
				t.Fatalf("build cancelled at look %d of %d succeeded", n, total)
			}
			if !errors.Is(err, context.Canceled) {
				t.Errorf("build cancelled at look %d: got %v, want context.Canceled", n, err)
			}
			assertUntouched(t, out, before)
		}
	})

	t.Run("Deterministic", func(t *testing.T) {
		for _, when := range []time.Time{{}, testTime} {
			dir := t.TempDir()
			a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
			cfg := config(sampleFS(), a)
			cfg.Time = when
			mustBuild(t, cfg)
			cfg = config(sampleFS(), b)
			cfg.Time, cfg.Workers = when, 1
			mustBuild(t, cfg)
			if d := treetest.Diff(snapshot(t, b), snapshot(t, a)); d != "" {
				t.Errorf("two builds (time %v) differ:\n%s", when, d)
			}
			if when.IsZero() {
				continue
			}
			filepath.WalkDir(a, func(p string, d fs.DirEntry, walkErr error) error {
				if walkErr != nil {
					t.Fatal(walkErr)
				}
				info, err := d.Info()
				if err != nil {
					t.Fatal(err)
				}
				if !info.ModTime().Equal(when) {
					t.Errorf("%s modified %v, want %v", p, info.ModTime().UTC(), when)
				}
				return nil
			})
		}
	})

	t.Run("Strict", func(t *testing.T) {
		fsys := sampleFS()
		fsys["api/geo.json"] = &fstest.MapFile{Data: jsonSource(descriptor("geo.lookup", set("capabilty_type", "api")))}
		out := filepath.Join(t.TempDir(), "public")
		res := mustBuild(t, config(fsys, out))
		if got := lines(res.Warnings); len(got) != 1 || !strings.Contains(got[0], `content/api/geo.json:`) ||
			!strings.HasSuffix(got[0], `: warning: capabilty_type: unknown member "capabilty_type"; did you mean "capability_type"?`) {
			t.Errorf("warnings = %q", got)
		}
		before := snapshot(t, out)
		cfg := config(fsys, out)
		cfg.Strict = true
		_, err := build.Build(context.Background(), cfg)
		vs := violations(t, err)
		if len(vs) != 1 || vs[0].Severity != skillcat.SeverityError || vs[0].Field != "capabilty_type" {
			t.Errorf("strict violations = %q, want the typo as an error", lines(vs))
		}
		assertUntouched(t, out, before)
	})

	t.Run("ValidateWritesNothing", func(t *testing.T) {
		dir := t.TempDir()
		cfg := config(sampleFS(), filepath.Join(dir, "public"))
		res, err := build.Validate(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if res.Sources != 5 || res.Published != 4 || res.Private != 1 || res.Files != 0 {
			t.Errorf("got %+v", res)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("Validate wrote %d entries", len(entries))
		}
	})
}

// mustChange returns a copy of fsys with one skill renamed, so a build of
// it differs from a build of fsys.
func mustChange(fsys fstest.MapFS) fstest.MapFS {
	c := fstest.MapFS{}
	for k, v := range fsys {
		c[k] = v
	}
	c["api/geo.json"] = &fstest.MapFile{Data: jsonSource(descriptor("geo.lookup", set("name", "Old Geo")))}
	return c
}

// countingContext is cancelled on the look (a call of Err or Done) after
// the first n; n < 0 never cancels. looks counts every look.
type countingContext struct {
	context.Context
	n      int64
	looks  atomic.Int64
	once   sync.Once
	cancel context.CancelFunc
}

func newCountingContext(n int) *countingContext {
	ctx, cancel := context.WithCancel(context.Background())
	return &countingContext{Context: ctx, n: int64(n), cancel: cancel}
}

func (c *countingContext) look() {
	if k := c.looks.Add(1); c.n >= 0 && k > c.n {
		c.once.Do(c.cancel)
	}
}

func (c *countingContext) Err() error {
	c.look()
	return c.Context.Err()
}

func (c *countingContext) Done() <-chan struct{} {
	c.look()
	return c.Context.Done()
}

// parseHeaders reads a _headers file into path → header → value.
func parseHeaders(t rapid.TB, s string) map[string]map[string]string {
	t.Helper()
	rules := map[string]map[string]string{}
	var cur map[string]string
	for _, line := range strings.Split(s, "\n") {
		switch {
		case strings.TrimSpace(line) == "":
		case !strings.HasPrefix(line, " "):
			cur = map[string]string{}
			rules[line] = cur
		default:
			name, value, ok := strings.Cut(strings.TrimSpace(line), ":")
			if !ok || cur == nil {
				t.Fatalf("_headers: bad line %q", line)
			}
			cur[name] = strings.TrimSpace(value)
		}
	}
	return rules
}

// outputPath maps a URL of the site (under base) to a path in out, or "".
func outputPath(base *url.URL, u *url.URL) string {
	if u.Scheme != base.Scheme || u.Host != base.Host || !strings.HasPrefix(u.Path, base.Path) {
		return ""
	}
	p := strings.TrimPrefix(u.Path, base.Path)
	if p == "" || strings.HasSuffix(p, "/") {
		p += "index.html"
	}
	return path.Clean(p)
}
