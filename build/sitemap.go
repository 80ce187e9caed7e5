package build

import (
	"strings"

	"github.com/skillcat/skillcat/store"
)

// sitemapMaxURLs is the most URLs one sitemap file may list (sitemaps.org).
// A site with more gets sitemap.xml as a sitemap index pointing to
// sitemap-1.xml, sitemap-2.xml, … of at most that many each.
const sitemapMaxURLs = 50000

// sitemaps lists every page routes.sitemapPages names, under the base URL:
// sitemap.xml alone, or a sitemap index and the sitemaps it names.
func sitemaps(cfg Config, r routes, counts map[string]int, skills []store.Row) []File {
	ids := make([]string, len(skills))
	for i, s := range skills {
		ids[i] = s.ID
	}
	urls := r.sitemapPages(counts, ids)
	lastmod := ""
	if !cfg.Time.IsZero() {
		lastmod = "<lastmod>" + cfg.Time.UTC().Format("2006-01-02") + "</lastmod>"
	}
	const head = `<?xml version="1.0" encoding="UTF-8"?>` + "\n"
	urlset := func(urls []string) []byte {
		var b strings.Builder
		b.WriteString(head + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
		for _, u := range urls {
			b.WriteString("  <url><loc>" + xmlEscape(r.absolute(u)) + "</loc>" + lastmod + "</url>\n")
		}
		b.WriteString("</urlset>\n")
		return []byte(b.String())
	}
	if len(urls) <= sitemapMaxURLs {
		return []File{{r.sitemap(), urlset(urls)}}
	}
	var files []File
	var index strings.Builder
	index.WriteString(head + `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
	for start := 0; start < len(urls); start += sitemapMaxURLs {
		name := r.sitemapPart(start/sitemapMaxURLs + 1)
		files = append(files, File{name, urlset(urls[start:min(start+sitemapMaxURLs, len(urls))])})
		index.WriteString("  <sitemap><loc>" + xmlEscape(r.absolute(name)) + "</loc>" + lastmod + "</sitemap>\n")
	}
	index.WriteString("</sitemapindex>\n")
	return append([]File{{r.sitemap(), []byte(index.String())}}, files...)
}
