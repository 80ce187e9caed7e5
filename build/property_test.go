package build_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"html"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/build"
	"pgregory.net/rapid"
)

// genSkill is one generated skill source.
type genSkill struct {
	Path    string // in the content directory
	ID      string
	Name    string
	Version string
	Type    string
	Access  string
	Desc    string
	// Secrets are strings planted in a private skill (id, name,
	// description, an extension member, the endpoint) that must appear
	// nowhere in the output.
	Secrets []string
}

// Public and restricted skills are made of the letters a–y; a private
// skill's strings all carry "zz" and ten random letters, which nothing else
// in a catalog can contain by chance.
var (
	genPublicID = rapid.StringMatching(`[a-y][a-y0-9]{0,5}([._-][a-y0-9]{1,5}){0,2}`)
	genWord     = rapid.SampledFrom([]string{"forecast", "invoice", "translate", "*bold*", "`code`", "report", "data", "fast", "<b>raw</b>", "a&b", "“quoted”", "ünïcode"})
	genPaths    = []string{"", "a/", "a/b/", "x-y/", "deep/er/still/"}
)

// genCatalog draws a catalog of 3–12 skills of random types and access
// levels, as .json and .md sources in random folders. With dups, some
// skills are given again in other files under an id already used.
func genCatalog(t *rapid.T, dups bool) (fstest.MapFS, []genSkill) {
	n := rapid.IntRange(3, 12).Draw(t, "skills")
	ids := rapid.SliceOfNDistinct(genPublicID, n, n, rapid.ID[string]).Draw(t, "ids")
	var skills []genSkill
	for i, id := range ids {
		s := genSkill{
			ID:      id,
			Version: rapid.SampledFrom([]string{"1.0.0", "0.1.0-beta.2", "2.3.4+build.7", "10.20.30"}).Draw(t, "version"),
			Type:    string(rapid.SampledFrom(skillcat.CapabilityTypes).Draw(t, "type")),
			Access:  rapid.SampledFrom([]string{"public", "restricted", "private"}).Draw(t, "access"),
		}
		words := rapid.SliceOfN(genWord, 1, 8).Draw(t, "words")
		s.Name = strings.Join(words[:min(3, len(words))], " ")
		s.Desc = strings.Join(words, " ") + "."
		if s.Access == "private" {
			tok := "zz" + rapid.StringMatching(`[a-y]{10}`).Draw(t, "token")
			s.ID = tok + "." + id
			s.Name = "Secret " + tok + " name"
			s.Desc = "Private " + tok + " text " + s.Desc
			s.Secrets = []string{s.ID, s.Name, s.Desc, tok + "-extension", "https://" + tok + ".example.com/"}
		}
		ext := ".json"
		if rapid.Bool().Draw(t, "markdown") {
			ext = ".md"
		}
		s.Path = rapid.SampledFrom(genPaths).Draw(t, "folder") + fmt.Sprintf("s%02d", i) + ext
		skills = append(skills, s)
	}
	if dups {
		for k := rapid.IntRange(0, 3).Draw(t, "duplicates"); k > 0; k-- {
			d := rapid.SampledFrom(skills).Draw(t, "duplicate of")
			d.Type = string(rapid.SampledFrom(skillcat.CapabilityTypes).Draw(t, "duplicate type"))
			d.Access = rapid.SampledFrom([]string{"public", "restricted", "private"}).Draw(t, "duplicate access")
			ext := rapid.SampledFrom([]string{".json", ".md"}).Draw(t, "duplicate format")
			d.Path = rapid.SampledFrom(genPaths).Draw(t, "duplicate folder") + fmt.Sprintf("d%02d", len(skills)) + ext
			skills = append(skills, d)
		}
	}
	fsys := fstest.MapFS{}
	for _, s := range skills {
		fsys[s.Path] = &fstest.MapFile{Data: s.source(t)}
	}
	if rapid.Bool().Draw(t, "site file") {
		fsys["_index.md"] = &fstest.MapFile{Data: []byte("---\ntitle: Generated\n---\nA generated catalog.\n")}
	}
	return fsys, skills
}

// source writes the skill as its .json or .md source.
func (s genSkill) source(t *rapid.T) []byte {
	d := descriptor(s.ID, set("name", s.Name), set("version", s.Version), set("capability_type", s.Type),
		set("access", s.Access), set("description", s.Desc))
	auths := []map[string]any{
		{"type": "none"},
		{"type": "api_key", "in": "header", "name": "X-Key"},
		{"type": "oauth2", "token_url": "https://auth.example.com/token", "scopes": map[string]any{"read": "Read it."}},
		{"type": "custom", "instructions": "Ask for access."},
	}
	if s.Access == "restricted" {
		auths = auths[1:]
	}
	d["auth"] = rapid.SampledFrom(auths).Draw(t, "auth")
	if rapid.Bool().Draw(t, "tags") {
		d["tags"] = []string{"generated", "test-tag"}
	}
	if rapid.Bool().Draw(t, "example") {
		d["examples"] = []any{map[string]any{"title": "An example", "inputs": map[string]any{"n": 3}}}
	}
	if len(s.Secrets) > 0 {
		d["x-planted"] = s.Secrets[3]
		d["endpoint"] = map[string]any{"url": s.Secrets[4] + "run"}
		d["provider"] = map[string]any{"name": "Provider " + s.Secrets[0]}
	}
	if strings.HasSuffix(s.Path, ".md") {
		return mdSource(d)
	}
	return jsonSource(d)
}

// siteURLs returns the URL the built site is served at and the index's own
// URL, for a base URL that may be empty.
func siteURLs(t rapid.TB, baseURL string) (site, index *url.URL) {
	raw := baseURL
	if raw == "" {
		raw = "https://catalog.invalid/"
	}
	if !strings.HasSuffix(raw, "/") {
		raw += "/"
	}
	site, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return site, site.JoinPath(".well-known", "skills.json")
}

// listedSkills returns the non-private skills sorted by id.
func listedSkills(skills []genSkill) []genSkill {
	var out []genSkill
	for _, s := range skills {
		if s.Access != "private" {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// tempDir makes a folder removed when the check ends.
func tempDir(t *rapid.T) string {
	dir, err := os.MkdirTemp("", "skillcat-property-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func TestProperties(t *testing.T) {
	t.Run("Feature: skill-sharing-protocol, Property 5: Id uniqueness: no index holds two skills with one id; a duplicate in the sources is an error naming both files, and nothing is written", func(t *testing.T) {
		rapid.Check(t, func(t *rapid.T) {
			fsys, skills := genCatalog(t, true)
			dir := tempDir(t)
			out := filepath.Join(dir, "public")
			// The previous output, which a failed build must leave alone.
			os.MkdirAll(filepath.Join(out, "skills"), 0o755)
			os.WriteFile(filepath.Join(out, "index.html"), []byte("previous"), 0o644)
			os.WriteFile(filepath.Join(out, "skills", "old.json"), []byte("{}"), 0o644)
			os.MkdirAll(filepath.Join(out, ".well-known"), 0o755)
			os.WriteFile(filepath.Join(out, ".well-known", "skills.json"), []byte("{}"), 0o644)
			before := snapshot(t, out)

			claims := map[string][]string{} // id → source paths, sorted
			for _, s := range skills {
				claims[s.ID] = append(claims[s.ID], s.Path)
			}
			var want []string
			for id, paths := range claims {
				sort.Strings(paths)
				for _, p := range paths[1:] {
					want = append(want, fmt.Sprintf("content/%s: id: id %q is already used by content/%s; ids must be unique", p, id, paths[0]))
				}
			}
			sort.Strings(want)

			_, err := build.Build(context.Background(), config(fsys, out))
			if len(want) > 0 {
				var invalid *build.InvalidError
				if !errors.As(err, &invalid) {
					t.Fatalf("build with duplicate ids: got error %v, want an *InvalidError", err)
				}
				var got []string
				for _, v := range invalid.Violations {
					// Drop the position, which depends on the format.
					got = append(got, fmt.Sprintf("%s: %s: %s", v.File, v.Field, v.Reason))
					if v.Line < 1 || v.Column < 1 || v.Pointer != "/id" {
						t.Errorf("violation %s has no position or pointer", v.Error())
					}
				}
				sort.Strings(got)
				if !slices.Equal(got, want) {
					t.Fatalf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
				assertUntouched(t, out, before)
				return
			}
			if err != nil {
				t.Fatalf("Build: %v\n%s", err, violationLines(err))
			}
			seen := map[string]bool{}
			for _, name := range []string{".well-known/skills.json", "types/api.json", "types/plugin.json", "types/knowledge.json", "types/task.json"} {
				clear(seen)
				for _, e := range parseIndex(t, out, name).Skills {
					if seen[e.ID] {
						t.Fatalf("%s lists %q twice", name, e.ID)
					}
					seen[e.ID] = true
				}
			}
		})
	})

	t.Run("Feature: skill-sharing-protocol, Property 6: Index and access: the index lists every non-private skill and no private one, and every descriptor_url resolves to a valid descriptor whose digest matches", func(t *testing.T) {
		rapid.Check(t, func(t *rapid.T) {
			fsys, skills := genCatalog(t, false)
			baseURL := rapid.SampledFrom([]string{"", "https://skills.example.com/", "https://example.org/sub/cat"}).Draw(t, "base URL")
			out := filepath.Join(tempDir(t), "public")
			cfg := config(fsys, out)
			cfg.BaseURL = baseURL
			res, err := build.Build(context.Background(), cfg)
			if err != nil {
				t.Fatalf("Build: %v\n%s", err, violationLines(err))
			}
			want := listedSkills(skills)
			if res.Published != len(want) || res.Private != len(skills)-len(want) {
				t.Errorf("Result: %d published, %d private; want %d, %d", res.Published, res.Private, len(want), len(skills)-len(want))
			}
			x := parseIndex(t, out, ".well-known/skills.json")
			if len(x.Skills) != len(want) {
				t.Fatalf("index lists %d skills, want %d", len(x.Skills), len(want))
			}
			site, index := siteURLs(t, baseURL)
			for i, e := range x.Skills {
				w := want[i]
				if e.ID != w.ID || e.Name != w.Name || e.Version != w.Version || string(e.CapabilityType) != w.Type || string(e.Access) != w.Access {
					t.Fatalf("index entry %d = %s %q %s %s %s, want %s %q %s %s %s", i,
						e.ID, e.Name, e.Version, e.CapabilityType, e.Access, w.ID, w.Name, w.Version, w.Type, w.Access)
				}
				ref, err := url.Parse(e.DescriptorURL)
				if err != nil {
					t.Fatalf("%s: descriptor_url %q: %v", e.ID, e.DescriptorURL, err)
				}
				if baseURL != "" && !ref.IsAbs() {
					t.Errorf("%s: descriptor_url %q is relative though the base URL is %s", e.ID, e.DescriptorURL, baseURL)
				}
				p := outputPath(site, index.ResolveReference(ref))
				if p == "" {
					t.Fatalf("%s: descriptor_url %q resolves outside the site %s", e.ID, e.DescriptorURL, site)
				}
				data := readFile(t, out, p)
				sum := sha256.Sum256(data)
				if got := "sha256:" + hex.EncodeToString(sum[:]); got != e.Digest {
					t.Errorf("%s: %s has digest %s, the index says %s", e.ID, p, got, e.Digest)
				}
				d, vs := skillcat.ParseDescriptor(p, data)
				if d == nil {
					t.Fatalf("%s: %s is not a valid descriptor:\n%v", e.ID, p, vs)
				}
				if d.ID != e.ID || string(d.Access) != w.Access || d.Description != w.Desc {
					t.Errorf("%s: %s describes %s (%s), want %s (%s)", e.ID, p, d.ID, d.Access, w.ID, w.Access)
				}
			}
			var secrets []string
			for _, s := range skills {
				secrets = append(secrets, s.Secrets...)
			}
			if len(secrets) == 0 {
				return
			}
			err = filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				for _, s := range secrets {
					if strings.Contains(p, s) {
						t.Errorf("output path %s names private %q", p, s)
					}
				}
				data, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				for _, s := range secrets {
					if bytes.Contains(data, []byte(s)) {
						t.Errorf("%s holds %q of a private skill", p, s)
					}
					if html := []byte(html.EscapeString(s)); bytes.Contains(data, html) {
						t.Errorf("%s holds %q of a private skill", p, html)
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	})

	t.Run("Feature: skill-sharing-protocol, Property 7: Capability filter: types/<t>.json and the type page hold exactly the skills of type t", func(t *testing.T) {
		rapid.Check(t, func(t *rapid.T) {
			fsys, skills := genCatalog(t, false)
			baseURL := rapid.SampledFrom([]string{"", "https://example.org/sub/cat/"}).Draw(t, "base URL")
			out := filepath.Join(tempDir(t), "public")
			cfg := config(fsys, out)
			cfg.BaseURL = baseURL
			if _, err := build.Build(context.Background(), cfg); err != nil {
				t.Fatalf("Build: %v\n%s", err, violationLines(err))
			}
			all := map[string]skillcat.IndexEntry{}
			for _, e := range parseIndex(t, out, ".well-known/skills.json").Skills {
				all[e.ID] = e
			}
			site, _ := siteURLs(t, baseURL)
			listed := listedSkills(skills)
			for _, typ := range skillcat.CapabilityTypes {
				var want []string
				for _, s := range listed {
					if s.Type == string(typ) {
						want = append(want, s.ID)
					}
				}
				name := "types/" + string(typ) + ".json"
				var got []string
				for _, e := range parseIndex(t, out, name).Skills {
					got = append(got, e.ID)
					if e.CapabilityType != typ {
						t.Errorf("%s lists %s of type %s", name, e.ID, e.CapabilityType)
					}
					if !reflect.DeepEqual(e, all[e.ID]) {
						t.Errorf("%s entry %+v differs from the index's %+v", name, e, all[e.ID])
					}
				}
				if !slices.Equal(got, want) {
					t.Fatalf("%s lists %q, want %q", name, got, want)
				}
				page := "types/" + string(typ) + "/index.html"
				linked := skillLinks(t, site, page, readFile(t, out, page))
				if !slices.Equal(linked, want) {
					t.Fatalf("%s links the skills %q, want %q", page, linked, want)
				}
			}
		})
	})
}

var hrefRE = regexp.MustCompile(`\shref="([^"]*)"`)

// skillLinks returns the ids of the skills a page links to (their page or
// their descriptor), sorted and without repeats.
func skillLinks(t rapid.TB, site *url.URL, page string, data []byte) []string {
	t.Helper()
	pageURL := site.JoinPath(page)
	seen := map[string]bool{}
	var ids []string
	for _, m := range hrefRE.FindAllSubmatch(data, -1) {
		ref, err := url.Parse(html.UnescapeString(string(m[1])))
		if err != nil {
			t.Fatalf("%s: bad link %q: %v", page, m[1], err)
		}
		p := outputPath(site, pageURL.ResolveReference(ref))
		dir, file := path.Split(p)
		var id string
		switch {
		case strings.HasPrefix(dir, "skills/") && file == "index.html" && strings.Count(dir, "/") == 2:
			id = strings.TrimSuffix(strings.TrimPrefix(dir, "skills/"), "/")
		case dir == "skills/" && strings.HasSuffix(file, ".json"):
			id = strings.TrimSuffix(file, ".json")
		default:
			continue
		}
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}
