package build

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"runtime"
	"sort"
	"strings"
	"sync"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/store"
)

// File is one file of the output: its slash-separated path inside the
// output directory and its bytes.
type File struct {
	Path string
	Data []byte
}

// render produces every output file from the index. Only listed skills
// (non-private) are ever read back from the store, so nothing of a private
// skill can reach a file.
func render(ctx context.Context, cfg Config, cat *catalog) ([]File, error) {
	listed, err := cat.db.Listed(ctx, "")
	if err != nil {
		return nil, fmt.Errorf("query listed skills: %w", err)
	}
	counts, err := cat.db.CountByType(ctx)
	if err != nil {
		return nil, fmt.Errorf("count skills: %w", err)
	}
	var files []File
	add := func(path string, data []byte) { files = append(files, File{path, data}) }

	idx, err := encodeIndex(cfg, listed)
	if err != nil {
		return nil, fmt.Errorf("well-known index: %w", err)
	}
	add(".well-known/skills.json", idx)
	byType := map[string][]store.Skill{}
	for _, s := range listed {
		add("skills/"+s.ID+".json", s.Descriptor)
		byType[s.CapabilityType] = append(byType[s.CapabilityType], s)
	}
	for _, t := range skillcat.CapabilityTypes {
		data, err := encodeIndex(cfg, byType[string(t)])
		if err != nil {
			return nil, fmt.Errorf("type index %s: %w", t, err)
		}
		add("types/"+string(t)+".json", data)
	}
	schemas := skillcat.Schemas()
	names, _ := fs.Glob(schemas, "*.schema.json")
	for _, name := range names {
		data, err := fs.ReadFile(schemas, name)
		if err != nil {
			return nil, fmt.Errorf("schema %s: %w", name, err)
		}
		add("schemas/v1/"+name, data)
	}

	pages, err := newPages(cfg, cat.site)
	if err != nil {
		return nil, err
	}
	search, err := searchIndex(listed)
	if err != nil {
		return nil, fmt.Errorf("search index: %w", err)
	}
	add("search.json", search)
	site, err := pages.sitePages(listed, byType, counts)
	if err != nil {
		return nil, err
	}
	files = append(files, site...)
	skillPages, err := renderSkillPages(ctx, pages, cat, listed, cfg.Workers)
	if err != nil {
		return nil, err
	}
	files = append(files, skillPages...)
	assets, err := pages.assets()
	if err != nil {
		return nil, err
	}
	files = append(files, assets...)

	add(".nojekyll", nil)
	add("_headers", headersFile())
	if cfg.BaseURL != "" {
		add("sitemap.xml", sitemap(cfg, listed))
		add("robots.txt", []byte("User-agent: *\nAllow: /\n\nSitemap: "+cfg.BaseURL+"sitemap.xml\n"))
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, nil
}

// descriptorURL is where an index entry points for a skill: absolute under
// the base URL, or relative to the index document (/.well-known/ and
// /types/ are both one level below the root).
func descriptorURL(cfg Config, id string) string {
	if cfg.BaseURL != "" {
		return cfg.BaseURL + "skills/" + id + ".json"
	}
	return "../skills/" + id + ".json"
}

// encodeIndex writes a SkillIndex of the given skills, in id order.
func encodeIndex(cfg Config, skills []store.Skill) ([]byte, error) {
	x := skillcat.SkillIndex{Protocol: skillcat.CurrentProtocol(), Skills: make([]skillcat.IndexEntry, len(skills))}
	for i, s := range skills {
		x.Skills[i] = skillcat.IndexEntry{
			ID: s.ID, Name: s.Name, Version: s.Version,
			CapabilityType: skillcat.CapabilityType(s.CapabilityType), Access: skillcat.Access(s.Access),
			Summary: s.Summary, DescriptorURL: descriptorURL(cfg, s.ID), Digest: s.Digest,
		}
	}
	return x.Encode()
}

// searchEntry is one skill in the home page's search data.
type searchEntry struct {
	ID       string   `json:"id"`
	Name     string   `json:"name"`
	Summary  string   `json:"summary"`
	Type     string   `json:"type"`
	Access   string   `json:"access"`
	Version  string   `json:"version"`
	Provider string   `json:"provider"`
	Tags     []string `json:"tags"`
}

// searchIndex is the JSON the home page searches as you type.
func searchIndex(skills []store.Skill) ([]byte, error) {
	entries := make([]searchEntry, len(skills))
	for i, s := range skills {
		tags := s.Tags
		if tags == nil {
			tags = []string{}
		}
		entries[i] = searchEntry{s.ID, s.Name, s.Summary, s.CapabilityType, s.Access, s.Version, s.ProviderName, tags}
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(entries); err != nil {
		return nil, err
	}
	return []byte(b.String()), nil
}

// renderSkillPages renders every listed skill's page in parallel.
func renderSkillPages(ctx context.Context, p *pages, cat *catalog, listed []store.Skill, workers int) ([]File, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	out := make([]File, len(listed))
	errs := make([]error, len(listed))
	var wg sync.WaitGroup
	next := make(chan int, len(listed))
	for i := range listed {
		next <- i
	}
	close(next)
	for w := 0; w < min(workers, len(listed)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if ctx.Err() != nil {
					errs[i] = ctx.Err()
					continue
				}
				s := cat.skills[listed[i].ID]
				data, err := p.skillPage(s)
				if err != nil {
					errs[i] = fmt.Errorf("render skill %q: %w", listed[i].ID, err)
					continue
				}
				out[i] = File{"skills/" + listed[i].ID + "/index.html", data}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// headersFile is the _headers file Netlify and Cloudflare Pages read: JSON
// documents are served as JSON to any origin, nothing is sniffed, and pages
// get a strict Content-Security-Policy.
func headersFile() []byte {
	const jsonHeaders = "  Content-Type: application/json; charset=utf-8\n  Access-Control-Allow-Origin: *\n  Cache-Control: public, max-age=300\n"
	var b strings.Builder
	b.WriteString("/*\n  X-Content-Type-Options: nosniff\n  Referrer-Policy: no-referrer\n")
	b.WriteString("  Content-Security-Policy: " + ContentSecurityPolicy + "\n")
	for _, p := range []string{"/.well-known/skills.json", "/skills/*.json", "/types/*.json", "/schemas/v1/*", "/search.json"} {
		b.WriteString("\n" + p + "\n" + jsonHeaders)
	}
	b.WriteString("\n/catalog.sqlite\n  Content-Type: application/vnd.sqlite3\n  Access-Control-Allow-Origin: *\n")
	b.WriteString("\n/assets/*\n  Cache-Control: public, max-age=3600\n")
	return []byte(b.String())
}

// ContentSecurityPolicy is the policy the pages are built to work under: no
// inline script or style, nothing from other origins.
const ContentSecurityPolicy = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// sitemap lists the home, type and skill pages under the base URL.
func sitemap(cfg Config, skills []store.Skill) []byte {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
	loc := func(p string) {
		b.WriteString("  <url><loc>" + xmlEscape(cfg.BaseURL+p) + "</loc>")
		if !cfg.Time.IsZero() {
			b.WriteString("<lastmod>" + cfg.Time.UTC().Format("2006-01-02") + "</lastmod>")
		}
		b.WriteString("</url>\n")
	}
	loc("")
	for _, t := range skillcat.CapabilityTypes {
		loc("types/" + string(t) + "/")
	}
	for _, s := range skills {
		loc("skills/" + s.ID + "/")
	}
	b.WriteString("</urlset>\n")
	return []byte(b.String())
}

func xmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;").Replace(s)
}
