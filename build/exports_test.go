package build_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"html"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/skillcat/skillcat/agentskills"
	"github.com/skillcat/skillcat/build"
	"github.com/skillcat/skillcat/internal/skillsref"
	"go.yaml.in/yaml/v3"
	"pgregory.net/rapid"
)

// resolve resolves ref against the document doc of the site and returns
// the output file it names, failing when it names none.
func resolve(t rapid.TB, site *url.URL, out, doc, ref string) string {
	t.Helper()
	r, err := url.Parse(ref)
	if err != nil {
		t.Fatalf("%s: bad URL %q: %v", doc, ref, err)
	}
	p := outputPath(site, site.JoinPath(doc).ResolveReference(r))
	if p == "" {
		t.Fatalf("%s: URL %q resolves outside the site %s", doc, ref, site)
	}
	if _, err := os.Stat(filepath.Join(out, filepath.FromSlash(p))); err != nil {
		t.Fatalf("%s: URL %q resolves to %s, which was not built", doc, ref, p)
	}
	return p
}

// skillMDMeta returns a SKILL.md's front matter, read as the reference
// validators read it: up to the first "---" after the opening one.
func skillMDMeta(t rapid.TB, name string, data []byte) map[string]any {
	t.Helper()
	parts := strings.SplitN(string(data), "---", 3)
	if len(parts) < 3 || parts[0] != "" {
		t.Fatalf("%s has no front matter", name)
	}
	var fm map[string]any
	if err := yaml.Unmarshal([]byte(parts[1]), &fm); err != nil {
		t.Fatalf("%s: front matter: %v", name, err)
	}
	return fm
}

var mdLinkRE = regexp.MustCompile(`(?m)^- \[[^\]]*\]\(([^)]*)\)`)

// TestExportsProperty checks the discovery formats against random catalogs.
func TestExportsProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		fsys, skills := genCatalog(t, false)
		baseURL := rapid.SampledFrom([]string{"", "https://skills.example.com/", "https://example.org/sub/cat"}).Draw(t, "base URL")
		dir := tempDir(t)
		out := filepath.Join(dir, "public")
		cfg := config(fsys, out)
		cfg.BaseURL = baseURL
		if _, err := build.Build(context.Background(), cfg); err != nil {
			t.Fatalf("Build: %v\n%s", err, violationLines(err))
		}
		site, _ := siteURLs(t, baseURL)
		listed := listedSkills(skills)
		var ids []string
		for _, s := range listed {
			ids = append(ids, s.ID)
		}
		names := agentskills.Names(ids)

		// Agent Skills: one entry per listed skill, in id order, each url
		// resolving to a SKILL.md of that skill whose bytes match the digest.
		const indexFile = ".well-known/agent-skills/index.json"
		var index agentskills.Index
		if err := json.Unmarshal(readFile(t, out, indexFile), &index); err != nil {
			t.Fatalf("%s: %v", indexFile, err)
		}
		if index.Schema != agentskills.Schema || len(index.Skills) != len(listed) {
			t.Fatalf("%s: $schema %q with %d skills, want %q with %d", indexFile, index.Schema, len(index.Skills), agentskills.Schema, len(listed))
		}
		for i, e := range index.Skills {
			w := listed[i]
			if e.Name != names[w.ID] || e.Type != "skill-md" || e.Version != w.Version {
				t.Fatalf("entry %d = %s %s %s, want %s skill-md %s", i, e.Name, e.Type, e.Version, names[w.ID], w.Version)
			}
			if baseURL != "" && !strings.HasPrefix(e.URL, site.String()) {
				t.Errorf("%s: url %q is not absolute under the base URL", e.Name, e.URL)
			}
			p := resolve(t, site, out, indexFile, e.URL)
			if p != ".well-known/agent-skills/"+e.Name+"/SKILL.md" {
				t.Errorf("%s: url %q is %s, not in the folder named after the skill", e.Name, e.URL, p)
			}
			data := readFile(t, out, p)
			sum := sha256.Sum256(data)
			if got := "sha256:" + hex.EncodeToString(sum[:]); got != e.Digest {
				t.Errorf("%s: %s has digest %s, the index says %s", e.Name, p, got, e.Digest)
			}
			fm := skillMDMeta(t, p, data)
			meta, _ := fm["metadata"].(map[string]any)
			if fm["name"] != e.Name || fm["description"] != e.Description || meta["id"] != w.ID || meta["version"] != w.Version || meta["capability_type"] != w.Type {
				t.Errorf("%s: front matter %v does not match the entry %+v of %s", p, fm, e, w.ID)
			}
			if d := resolve(t, site, out, p, meta["descriptor_url"].(string)); d != "skills/"+w.ID+".json" {
				t.Errorf("%s: descriptor_url leads to %s", p, d)
			}
		}
		folders, _ := filepath.Glob(filepath.Join(out, ".well-known", "agent-skills", "*", "SKILL.md"))
		if len(folders) != len(listed) {
			t.Errorf("%d SKILL.md files for %d listed skills", len(folders), len(listed))
		}

		// API catalog: one context per endpoint of a listed api skill, each
		// link resolving to a built file.
		const catalogFile = ".well-known/api-catalog"
		var linkset struct {
			Linkset []map[string]json.RawMessage `json:"linkset"`
		}
		if err := json.Unmarshal(readFile(t, out, catalogFile), &linkset); err != nil {
			t.Fatalf("%s: %v", catalogFile, err)
		}
		var wantAnchors, gotAnchors []string
		for _, s := range listed {
			if s.Type == "api" {
				wantAnchors = append(wantAnchors, "https://api.example.com/"+s.ID)
			}
		}
		sort.Strings(wantAnchors)
		for _, c := range linkset.Linkset {
			var anchor string
			json.Unmarshal(c["anchor"], &anchor)
			gotAnchors = append(gotAnchors, anchor)
			for _, rel := range []string{"service-desc", "service-doc", "service-meta"} {
				var links []struct{ Href string }
				if err := json.Unmarshal(c[rel], &links); err != nil || len(links) == 0 {
					t.Fatalf("%s: %s has no %s links", catalogFile, anchor, rel)
				}
				for _, l := range links {
					resolve(t, site, out, catalogFile, l.Href)
				}
			}
		}
		if !slices.Equal(gotAnchors, wantAnchors) {
			t.Fatalf("%s anchors %q, want %q", catalogFile, gotAnchors, wantAnchors)
		}

		// llms.txt: a link per listed skill, each to its SKILL.md.
		var linked []string
		for _, m := range mdLinkRE.FindAllSubmatch(readFile(t, out, "llms.txt"), -1) {
			p := resolve(t, site, out, "llms.txt", string(m[1]))
			if strings.HasSuffix(p, "/SKILL.md") {
				linked = append(linked, p)
			}
		}
		var wantLinked []string
		for _, s := range listed {
			wantLinked = append(wantLinked, ".well-known/agent-skills/"+names[s.ID]+"/SKILL.md")
		}
		sort.Strings(linked)
		sort.Strings(wantLinked)
		if !slices.Equal(linked, wantLinked) {
			t.Fatalf("llms.txt links %q, want %q", linked, wantLinked)
		}
		full := string(readFile(t, out, "llms-full.txt"))
		for _, s := range listed {
			if !strings.Contains(full, "- Skill id: `"+s.ID+"`") {
				t.Errorf("llms-full.txt lacks %s", s.ID)
			}
		}

		// No private byte: nothing of a private skill in any export, and
		// the same catalog without its private skills builds the same tree.
		var secrets []string
		public := fstest.MapFS{}
		for name, f := range fsys {
			public[name] = f
		}
		for _, s := range skills {
			secrets = append(secrets, s.Secrets...)
			if s.Access == "private" {
				delete(public, s.Path)
			}
		}
		exports := []string{indexFile, catalogFile, "llms.txt", "llms-full.txt", "_headers", "index.html"}
		for _, f := range folders {
			rel, _ := filepath.Rel(out, f)
			exports = append(exports, filepath.ToSlash(rel))
		}
		for _, name := range exports {
			data := readFile(t, out, name)
			for _, s := range secrets {
				if bytes.Contains(data, []byte(s)) || bytes.Contains(data, []byte(html.EscapeString(s))) {
					t.Errorf("%s holds %q of a private skill", name, s)
				}
			}
		}
		if len(public) == len(fsys) {
			return
		}
		without := filepath.Join(dir, "without")
		cfg = config(public, without)
		cfg.BaseURL = baseURL
		if _, err := build.Build(context.Background(), cfg); err != nil {
			t.Fatalf("Build without the private skills: %v", err)
		}
		got, want := snapshot(t, out), snapshot(t, without)
		for p, h := range want {
			if got[p] != h {
				t.Errorf("%s differs when the catalog holds private skills", p)
			}
		}
		if len(got) != len(want) {
			t.Errorf("%d files with private skills, %d without", len(got), len(want))
		}
	})
}

// TestExportSwitches turns each export off in _index.md and checks that
// its files, its links on the home page and its _headers blocks are gone
// while the others stay; a bad switch is a violation at its position.
func TestExportSwitches(t *testing.T) {
	files := map[string][]string{
		"agent_skills": {".well-known/agent-skills/index.json", ".well-known/agent-skills/a-b/SKILL.md"},
		"api_catalog":  {".well-known/api-catalog"},
		"llms_txt":     {"llms.txt", "llms-full.txt"},
	}
	source := func(site string) fstest.MapFS {
		fsys := fstest.MapFS{"a.json": {Data: jsonSource(descriptor("a.b", set("capability_type", "api")))}}
		if site != "" {
			fsys["_index.md"] = &fstest.MapFile{Data: []byte(site)}
		}
		return fsys
	}
	for _, off := range []string{"", "agent_skills", "api_catalog", "llms_txt"} {
		t.Run("Off="+off, func(t *testing.T) {
			site := ""
			if off != "" {
				site = "---\ntitle: T\nexports:\n  " + off + ": false\n---\n"
			}
			out := filepath.Join(t.TempDir(), "public")
			mustBuild(t, config(source(site), out))
			home := string(readFile(t, out, "index.html"))
			headers := string(readFile(t, out, "_headers"))
			for export, names := range files {
				for _, name := range names {
					_, err := os.Stat(filepath.Join(out, filepath.FromSlash(name)))
					if export == off && !errors.Is(err, fs.ErrNotExist) {
						t.Errorf("%s is built though %s is off", name, export)
					}
					if export != off && err != nil {
						t.Errorf("%s is not built: %v", name, err)
					}
					linked := strings.Contains(home, `href="`+name+`"`) || strings.HasSuffix(name, "SKILL.md")
					if export == off && strings.Contains(home, `href="`+name+`"`) {
						t.Errorf("the home page links %s though %s is off", name, export)
					}
					if export != off && !linked {
						t.Errorf("the home page does not link %s", name)
					}
					if rule := "\n/" + name + "\n"; export == off && strings.Contains(headers, rule) {
						t.Errorf("_headers has a block for %s though %s is off", name, export)
					}
				}
			}
			link := "Link: </.well-known/api-catalog>; rel=\"api-catalog\""
			if strings.Contains(headers, link) != (off != "api_catalog") {
				t.Errorf("_headers has the api-catalog Link header: %t, want %t", strings.Contains(headers, link), off != "api_catalog")
			}
		})
	}
	t.Run("ErrBadSwitch", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "public")
		_, err := build.Build(context.Background(), config(source("---\nexports:\n  llms_txt: \"no\"\n  sitemap: false\n---\n"), out))
		var invalid *build.InvalidError
		if !errors.As(err, &invalid) {
			t.Fatalf("got %v, want an InvalidError", err)
		}
		want := []string{
			`content/_index.md:3:13: exports.llms_txt: must be true or false; got string`,
			`content/_index.md:4:3: exports.sitemap: unknown export "sitemap": the exports are agent_skills, api_catalog and llms_txt`,
		}
		var got []string
		for _, v := range invalid.Violations {
			got = append(got, v.Error())
		}
		if !slices.Equal(got, want) {
			t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
}

// TestSkillsRef builds the sample catalog and the golden fixture and has
// the Agent Skills reference validator check every SKILL.md.
func TestSkillsRef(t *testing.T) {
	for _, content := range []string{"../content", "testdata/golden/content"} {
		out := filepath.Join(t.TempDir(), "public")
		mustBuild(t, build.Config{Content: os.DirFS(content), ContentLabel: content, ContentPath: content, Out: out})
		skillsref.Check(t, filepath.Join(out, ".well-known", "agent-skills"))
	}
}
