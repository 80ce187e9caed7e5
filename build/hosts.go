package build

import (
	"fmt"
	"iter"
	"path"
	"strings"

	"github.com/skillcat/skillcat/store"
)

// Host is a static host whose documented limits a build checks its output
// against (docs/deploy.md gives the sources). A zero limit is no limit.
type Host struct {
	Name         string // as given to --host or in _index.md ("netlify")
	Title        string // for messages ("Netlify")
	MaxFiles     int    // files in one deployment
	MaxBytes     int64  // the whole site
	MaxFileBytes int64  // one file
	MaxDirFiles  int    // files directly in one folder
	MaxRules     int    // blocks in _headers
	// CompressBelow is the largest file the host compresses on the way
	// out; a larger one is served whole (a warning, not a failure).
	CompressBelow int64
	// Fix says what to do when the site has too many files, in all or in
	// one folder; BigFix, when a file or the site is too large.
	Fix, BigFix string
}

// Hosts are the hosts build knows, by name.
var Hosts = []Host{
	{Name: "github-pages", Title: "GitHub Pages", MaxBytes: 1 << 30, MaxFileBytes: 100 << 20,
		BigFix: "publish to Netlify or S3 + CloudFront, which have no site size limit, or split the catalog into several sites"},
	{Name: "netlify", Title: "Netlify", MaxDirFiles: 54000,
		Fix: "split the catalog into several sites, or publish to S3 + CloudFront, which has no such limit"},
	{Name: "cloudflare-pages", Title: "Cloudflare Pages (Free plan)", MaxFiles: 20000, MaxFileBytes: 25 << 20, MaxRules: 100,
		Fix:    "use a paid plan (100,000 files; --host cloudflare-pages-paid), or publish to Netlify or S3 + CloudFront, which have no file count limit",
		BigFix: "publish to Netlify or S3 + CloudFront, which take larger files"},
	{Name: "cloudflare-pages-paid", Title: "Cloudflare Pages (paid plans)", MaxFiles: 100000, MaxFileBytes: 25 << 20, MaxRules: 100,
		Fix:    "publish to Netlify or S3 + CloudFront, which have no file count limit, or split the catalog into several sites",
		BigFix: "publish to Netlify or S3 + CloudFront, which take larger files"},
	{Name: "s3-cloudfront", Title: "Amazon S3 + CloudFront", MaxFileBytes: 5 << 40, CompressBelow: 10000000,
		BigFix: "split the catalog into several sites"},
}

// HostNames lists the names of Hosts, for messages.
func HostNames() string {
	names := make([]string, len(Hosts))
	for i, h := range Hosts {
		names[i] = h.Name
	}
	return strings.Join(names, ", ")
}

// LookupHost returns the host of that name.
func LookupHost(name string) (Host, bool) {
	for _, h := range Hosts {
		if h.Name == name {
			return h, true
		}
	}
	return Host{}, false
}

// OutputStats is the size of a built site: what a host counts.
type OutputStats struct {
	Files           int
	Bytes           int64
	Largest         string // the largest file, and its size
	LargestBytes    int64
	FullestDir      string // the folder holding the most files directly ("" is the root), and how many
	FullestDirFiles int
}

// statOutput measures a site from the records of its files. The fullest
// folder is the first by name of those holding the most files: found in
// one pass over the folders, not by sorting them (18,000 at 10,000
// skills, on the serial stretch after the site is in place).
func statOutput(records iter.Seq2[string, store.CachedOutput]) OutputStats {
	var st OutputStats
	perDir := map[string]int{}
	for p, rec := range records {
		st.Files++
		st.Bytes += rec.Size
		if rec.Size > st.LargestBytes || rec.Size == st.LargestBytes && p < st.Largest {
			st.Largest, st.LargestBytes = p, rec.Size
		}
		dir := path.Dir(p)
		if dir == "." {
			dir = ""
		}
		perDir[dir]++
	}
	for d, n := range perDir {
		if n > st.FullestDirFiles || n == st.FullestDirFiles && d < st.FullestDir {
			st.FullestDir, st.FullestDirFiles = d, n
		}
	}
	return st
}

// check says, one sentence each, which of the host's limits the site
// crosses and what to do; rules is the number of _headers blocks.
func (h Host) check(st OutputStats, rules int) []string {
	var out []string
	cross := func(format string, a ...any) {
		out = append(out, h.Title+": "+fmt.Sprintf(format, a...))
	}
	if h.MaxFiles > 0 && st.Files > h.MaxFiles {
		cross("the site has %d files, more than the %d a deployment may hold; %s", st.Files, h.MaxFiles, h.Fix)
	}
	if h.MaxBytes > 0 && st.Bytes > h.MaxBytes {
		cross("the site is %s, more than the %s a published site may be; %s", byteSize(st.Bytes), byteSize(h.MaxBytes), h.BigFix)
	}
	if h.MaxFileBytes > 0 && st.LargestBytes > h.MaxFileBytes {
		cross("%s is %s, more than the %s a file may be; %s", st.Largest, byteSize(st.LargestBytes), byteSize(h.MaxFileBytes), h.BigFix)
	}
	if h.MaxDirFiles > 0 && st.FullestDirFiles > h.MaxDirFiles {
		cross("the folder /%s holds %d files, more than the %d one folder may hold; %s", st.FullestDir, st.FullestDirFiles, h.MaxDirFiles, h.Fix)
	}
	if h.MaxRules > 0 && rules > h.MaxRules {
		cross("_headers has %d rules, more than the %d the host reads; remove rules from the templates' _headers", rules, h.MaxRules)
	}
	if h.CompressBelow > 0 && st.LargestBytes > h.CompressBelow {
		cross("%s is %s and is served uncompressed (files over %s are not compressed); compress it at the origin (Content-Encoding) or expect slow downloads", st.Largest, byteSize(st.LargestBytes), byteSize(h.CompressBelow))
	}
	return out
}

// byteSize writes a size for people: 1.5 MiB.
func byteSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// hostWarnings checks the output against the host named by cfg.Host, or
// else by the site's host setting; none named, nothing is checked.
func hostWarnings(cfg Config, site Site, st OutputStats) []string {
	name := cfg.Host
	if name == "" {
		name = site.Host
	}
	h, ok := LookupHost(name)
	if !ok {
		return nil
	}
	return h.check(st, len(newRoutes(cfg.BaseURL).headerRules()))
}
