package build

import (
	"html/template"
	"io/fs"
	"path"
	"strconv"
	"strings"

	skillcat "github.com/skillcat/skillcat"
)

// routes is the site's layout: the one place that knows where each document
// of the output lives and how one document links to another. Nothing else in
// the build spells a path of the site; the render phase, the sitemap, the
// _headers file, the index's descriptor_url and the templates (through the
// functions of funcs) all ask routes.
//
// A document is named by its file: the slash-separated path inside the
// output directory that the writer creates ("skills/forecast.json",
// "types/api/index.html"). Its URL path (url) is the file's path, with a
// trailing "index.html" dropped so that a page is addressed as its folder
// ("types/api/"). A method taking "*" for its argument gives the document's
// glob pattern ("skills/*.json"), as _headers wants it.
//
// Links:
//
//   - link writes the href from one document to another, relative to the
//     first, so the site works under any sub-path. A file in the same
//     folder as the document or below it (agent-skills/index.json →
//     x/SKILL.md), or in that folder's parent (where a page's JSON twin
//     lives: skills/x/ → ../x.json), is reached directly; a page,
//     and every other file, by climbing to the site root and descending
//     from there ("../../types/api/"), so a page's links to the rest of the
//     site all start alike. The 404 page is served at any depth, so its links are
//     absolute: from the base URL when there is one, from "/" otherwise.
//   - absolute is a document's URL under the base URL (canonical links, the
//     sitemap), or "" when the build has none.
//   - published is what documents meant for machines carry (the index's
//     descriptor_url): absolute with a base URL, relative to the document
//     otherwise.
//
// To add a document: add a method here returning its file path (build it
// from the other methods where it nests under one, as skillPage does under
// the skill's folder), write the file under that name in the render phase,
// and, if pages link to it, add a template function to funcs (name it after
// the document, ending in URL, taking the page first: {{fooURL $}}). If it
// belongs in the sitemap or needs its own headers, add it to sitemapPages or
// headerRules. A path that could also be a folder of another document is
// refused by the writer, whatever the layout.
type routes struct {
	base string // the base URL ending in "/", or ""
}

// newRoutes returns the layout of a site served at baseURL (checked by
// checkConfig: "" or an absolute URL ending in "/").
func newRoutes(baseURL string) routes { return routes{base: baseURL} }

// Documents of the site, by file path.

// index is the Well-Known skill index.
func (routes) index() string { return strings.TrimPrefix(skillcat.WellKnownPath, "/") }

// descriptor is a published skill descriptor.
func (routes) descriptor(id string) string { return "skills/" + id + ".json" }

// skillFolder is the folder of a skill's page and of anything else
// published about one skill.
func (routes) skillFolder(id string) string { return "skills/" + id + "/" }

// skillPage is a skill's HTML page.
func (r routes) skillPage(id string) string { return r.skillFolder(id) + "index.html" }

// skillFiles are every file published for one skill. The indexer checks
// that the skills' files can all be laid out (no path both a file and a
// folder), so a document added for each skill is listed here too.
func (r routes) skillFiles(id string) []string {
	return []string{r.descriptor(id), r.skillPage(id)}
}

// typeIndex is the SkillIndex of one capability type.
func (routes) typeIndex(t string) string { return "types/" + t + ".json" }

// typePage is the HTML page listing one capability type.
func (routes) typePage(t string) string { return "types/" + t + "/index.html" }

// home is the catalog's home page.
func (routes) home() string { return "index.html" }

// listingPage is page n (from 1) of the home listing (t "") or of a type's
// listing: the first is the home or type page itself, the others are
// page/<n>/ below it (build/paging.go).
func (r routes) listingPage(t string, n int) string {
	first := r.home()
	if t != "" {
		first = r.typePage(t)
	}
	if n <= 1 {
		return first
	}
	return strings.TrimSuffix(first, "index.html") + "page/" + strconv.Itoa(n) + "/index.html"
}

// notFound is the page hosts serve for an unknown path.
func (routes) notFound() string { return "404.html" }

// schema is one of the protocol's JSON Schemas, by file name.
func (routes) schema(name string) string { return "schemas/v1/" + name }

// asset is a static file of the templates (style sheet, script, image), by
// its path under the templates' assets/ folder.
func (routes) asset(name string) string { return "assets/" + name }

// search is the search index's manifest; searchFile is one of the shards
// and card files it names, by its path relative to the manifest's folder
// (build/searchindex.go).
func (routes) search() string                { return "search/manifest.json" }
func (routes) searchFile(name string) string { return "search/" + name }

// catalogDB is the SQLite export of the listed skills.
func (routes) catalogDB() string { return "catalog.sqlite" }

// signature is the detached JWS of a signed document (an index).
func (routes) signature(file string) string { return file + ".jws" }

// keySet is the JWK Set of the catalog's signing keys.
func (routes) keySet() string { return ".well-known/jwks.json" }

// changes is the change feed's document; changePage is a page of its
// events, named by its history's epoch and the range it holds, so one URL
// always names one page, across resets too.
func (routes) changes() string     { return strings.TrimPrefix(skillcat.ChangesPath, "/") }
func (routes) changePages() string { return "changes/pages/" }
func (r routes) changePage(epoch string, from, to int64) string {
	return r.changePages() + epoch + "-" + strconv.FormatInt(from, 10) + "-" + strconv.FormatInt(to, 10) + ".json"
}

// sitemap, robots, headers and noJekyll are the host's files.
func (routes) sitemap() string { return "sitemap.xml" }

// sitemapPart is sitemap n (from 1) of a site too large for one, which
// sitemap.xml then lists as a sitemap index.
func (routes) sitemapPart(n int) string { return "sitemap-" + strconv.Itoa(n) + ".xml" }
func (routes) robots() string           { return "robots.txt" }
func (routes) headers() string          { return "_headers" }
func (routes) noJekyll() string         { return ".nojekyll" }

// agentSkillsIndex is the Agent Skills discovery index; skillMD is a
// skill's SKILL.md beside it, in a folder named after its Agent Skills name.
func (routes) agentSkillsIndex() string   { return ".well-known/agent-skills/index.json" }
func (routes) skillMD(name string) string { return ".well-known/agent-skills/" + name + "/SKILL.md" }

// apiCatalog is the RFC 9727 API catalog.
func (routes) apiCatalog() string { return ".well-known/api-catalog" }

// llmsTxt and llmsFull are the llms.txt files.
func (routes) llmsTxt() string  { return "llms.txt" }
func (routes) llmsFull() string { return "llms-full.txt" }

// url is the URL path of a document relative to the site root: its file
// path, with a page addressed as its folder.
func (routes) url(file string) string {
	if file == "index.html" {
		return ""
	}
	if strings.HasSuffix(file, "/index.html") {
		return strings.TrimSuffix(file, "index.html")
	}
	return file
}

// link is the href from the document from to the document to.
func (r routes) link(from, to string) string {
	if from == r.notFound() {
		if r.base != "" {
			return r.base + r.url(to)
		}
		return "/" + r.url(to)
	}
	target := r.url(to)
	dir := path.Dir(from)
	if dir == "." {
		return target // the root: every path is already relative to it
	}
	dir = withSlash(from, dir)
	parent := path.Dir(dir[:len(dir)-1])
	if parent == "." {
		parent = ""
	} else {
		parent = withSlash(from, parent)
	}
	targetDir, name := splitURL(target)
	if page := strings.HasSuffix(name, "/"); !page {
		switch {
		case targetDir == dir:
			return name
		case strings.HasPrefix(targetDir, dir):
			return strings.TrimPrefix(target, dir) // below it: agent-skills/index.json → x/SKILL.md
		case targetDir == parent && parent != "":
			return "../" + name
		}
	}
	if n := 3 * strings.Count(dir, "/"); n <= len(ups) {
		return ups[:n] + target
	}
	return strings.Repeat("../", strings.Count(dir, "/")) + target
}

// ups is the climb out of a folder up to eight deep, sliced by link.
const ups = "../../../../../../../../"

// withSlash is dir + "/", taken from from when from begins with it (a
// folder of a clean path does), so that link allocates only its answer.
func withSlash(from, dir string) string {
	if len(from) > len(dir) && from[len(dir)] == '/' && from[:len(dir)] == dir {
		return from[:len(dir)+1]
	}
	return dir + "/"
}

// splitURL splits a URL path into its folder (ending in "/", or "") and the
// last segment (a file name, or a folder name ending in "/").
func splitURL(u string) (dir, name string) {
	i := strings.LastIndex(strings.TrimSuffix(u, "/"), "/")
	return u[:i+1], u[i+1:]
}

// absolute is a document's URL under the base URL, or "" without one.
func (r routes) absolute(file string) string {
	if r.base == "" {
		return ""
	}
	return r.base + r.url(file)
}

// published is the URL a machine-read document gives for another: absolute
// under the base URL, or relative to the document from.
func (r routes) published(from, to string) string {
	if r.base != "" {
		return r.absolute(to)
	}
	return r.link(from, to)
}

// sitemapPages are the pages the sitemap lists, in order: every page of
// the home listing, of each type's listing (counts: listed skills by
// type), then each listed skill's page.
func (r routes) sitemapPages(counts map[string]int, ids []string) []string {
	total := 0
	for _, c := range counts {
		total += c
	}
	var out []string
	for n := 1; n <= listingPages(total); n++ {
		out = append(out, r.listingPage("", n))
	}
	for _, t := range skillcat.CapabilityTypes {
		for n := 1; n <= listingPages(counts[string(t)]); n++ {
			out = append(out, r.listingPage(string(t), n))
		}
	}
	for _, id := range ids {
		out = append(out, r.skillPage(id))
	}
	return out
}

// headerRule is one block of the _headers file: a URL pattern and the
// header lines served with what it matches.
type headerRule struct {
	Pattern string
	Headers []string
}

// headerRules are the _headers blocks, in order: every path gets the
// security headers and the pages' Content-Security-Policy, JSON documents
// are served as JSON to any origin, the SQLite export as SQLite, and assets
// are cached longer.
func (r routes) headerRules() []headerRule {
	jsonHeaders := []string{"Content-Type: application/json; charset=utf-8", "Access-Control-Allow-Origin: *", "Cache-Control: public, max-age=300"}
	rules := []headerRule{{"/*", []string{"X-Content-Type-Options: nosniff", "Referrer-Policy: no-referrer", "Content-Security-Policy: " + ContentSecurityPolicy}}}
	for _, p := range []string{r.index(), r.descriptor("*"), r.typeIndex("*"), r.schema("*"), r.search(), r.searchFile("docs/*")} {
		rules = append(rules, headerRule{"/" + p, jsonHeaders})
	}
	rules = append(rules,
		headerRule{"/" + r.signature("*"), []string{"Content-Type: application/jose", "Access-Control-Allow-Origin: *", "Cache-Control: public, max-age=300"}},
		headerRule{"/" + r.keySet(), []string{"Content-Type: application/jwk-set+json", "Access-Control-Allow-Origin: *", "Cache-Control: public, max-age=300"}},
		headerRule{"/" + r.changes(), jsonHeaders},
		// A page of the feed never changes: it may be cached for good.
		headerRule{"/" + r.changePages() + "*", []string{"Content-Type: application/json; charset=utf-8", "Access-Control-Allow-Origin: *", "Cache-Control: public, max-age=31536000, immutable"}},
		headerRule{"/" + r.catalogDB(), []string{"Content-Type: application/vnd.sqlite3", "Access-Control-Allow-Origin: *"}},
		headerRule{"/" + r.asset("*"), []string{"Cache-Control: public, max-age=3600"}},
	)
	return rules
}

// isBuiltSite reports whether the folder dir of fsys holds a site skillcat
// built: it has the Well-Known index.
func (r routes) isBuiltSite(fsys fs.FS, dir string) bool {
	_, err := fs.Stat(fsys, path.Join(dir, r.index()))
	return err == nil
}

// placeRank orders the files of an in-place update of the output, so that
// a reader never follows a link to a file not yet in place: the files the
// listings point to first (0), then the listings (1): pages and documents
// listing skills, the search index, sitemaps, the SQLite export, the change
// feed's index; and last
// the Well-Known index (2), where consumers start.
func (r routes) placeRank(file string) int {
	prefix := func(p string) bool { return strings.HasPrefix(file, p) }
	switch {
	case file == r.index():
		return 2
	case file == r.home(), file == r.catalogDB(), file == r.robots(), file == r.agentSkillsIndex(), file == r.changes(),
		file == r.apiCatalog(), file == r.llmsTxt(), file == r.llmsFull(),
		prefix(path.Dir(r.typeIndex("x")) + "/"),
		prefix(strings.TrimSuffix(r.listingPage("", 2), "2/index.html")),
		prefix(path.Dir(r.search()) + "/"),
		file == r.sitemap(), prefix(strings.TrimSuffix(r.sitemapPart(1), "1.xml")):
		return 1
	}
	return 0
}

// funcs are the template functions that give pages their links: each takes
// the page being rendered ($) first and returns the href from it.
func (r routes) funcs() template.FuncMap {
	from := func(pg *page) string { return pg.File }
	return template.FuncMap{
		"homeURL":       func(pg *page) string { return r.link(from(pg), r.home()) },
		"indexURL":      func(pg *page) string { return r.link(from(pg), r.index()) },
		"typeURL":       func(pg *page, t string) string { return r.link(from(pg), r.typePage(t)) },
		"typeIndexURL":  func(pg *page, t string) string { return r.link(from(pg), r.typeIndex(t)) },
		"skillURL":      func(pg *page, id string) string { return r.link(from(pg), r.skillPage(id)) },
		"descriptorURL": func(pg *page, id string) string { return r.link(from(pg), r.descriptor(id)) },
		"schemaURL":     func(pg *page, name string) string { return r.link(from(pg), r.schema(name)) },
		"assetURL":      func(pg *page, name string) string { return r.link(from(pg), r.asset(name)) },
		"searchURL":     func(pg *page) string { return r.link(from(pg), r.search()) },
		"catalogURL":    func(pg *page) string { return r.link(from(pg), r.catalogDB()) },
	}
}
