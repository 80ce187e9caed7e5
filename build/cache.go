package build

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strconv"
	"sync"
	"time"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/store"
	"github.com/skillcat/skillcat/templates"
)

// A rebuild with the cache (Config.Cache) does only the work its changes
// need:
//
//   - nothing changed (every source has the size and time it had, the
//     settings and templates are the same, and the output is as the last
//     build left it): the build stops there and writes nothing;
//   - otherwise each unchanged source (same size and time, or same bytes)
//     takes its parse result from the cache, each skill page whose
//     descriptor and site settings are unchanged is not rendered again, and
//     each output file whose bytes are unchanged is not written again.
//
// Everything the cache holds is keyed by cacheVersion, a digest of the
// running program, so a new skillcat starts from a cold build.

// cacheVersion returns a digest of the running executable (and so of every
// rule and template built into it).
var cacheVersion = sync.OnceValue(func() string {
	h := sha256.New()
	io.WriteString(h, skillcat.CurrentVersion+"\x00")
	if exe, err := os.Executable(); err == nil {
		if f, err := os.Open(exe); err == nil {
			io.Copy(h, f)
			f.Close()
		}
	}
	return hex.EncodeToString(h.Sum(nil))
})

// buildKeys sum up what every page depends on besides its own skill.
type buildKeys struct {
	site string // settings, site file and templates
}

// siteKeys hashes the settings that shape every page and the template and
// asset files in use.
func siteKeys(cfg Config) (buildKeys, error) {
	h := sha256.New()
	fmt.Fprintf(h, "base=%s\x00time=%d\x00dev=%t\x00strict=%t\x00", cfg.BaseURL, cfg.Time.Unix(), cfg.Dev, cfg.Strict)
	if data, err := fs.ReadFile(cfg.Content, SiteFile); err == nil {
		h.Write(data)
	}
	h.Write([]byte{0})
	fsys := templates.FS()
	if cfg.Templates != nil {
		fsys = templates.Overlay(cfg.Templates, fsys)
	}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", p, len(data))
		h.Write(data)
		return nil
	})
	if err != nil {
		return buildKeys{}, err
	}
	return buildKeys{site: hex.EncodeToString(h.Sum(nil))}, nil
}

// fingerprint sums up the sources by path, size and time.
func fingerprint(files []SourceFile) string {
	h := sha256.New()
	for _, f := range files {
		fmt.Fprintf(h, "%s\x00%d\x00%d\x00", f.Path, f.size, f.modTime)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// upToDate reports whether nothing changed since the cached build, and
// then returns that build's result (its warnings included).
func upToDate(ctx context.Context, cfg Config, cache *store.CacheTx, keys buildKeys, prev map[string]store.CachedOutput) (*Result, bool) {
	if len(prev) == 0 {
		return nil, false
	}
	site, _ := cache.Meta("site")
	sources, _ := cache.Meta("sources")
	if site != keys.site || sources == "" {
		return nil, false
	}
	skip, _ := outputWithin(cfg)
	files, vs := readSources(cfg.Content, func(p string) string { return p }, skip)
	if len(vs) > 0 || fingerprint(files) != sources || !matches(cfg.Out, prev) {
		return nil, false
	}
	res := &Result{Sources: len(files), UpToDate: true}
	if counts, _ := cache.Meta("counts"); counts != "" {
		fmt.Sscanf(counts, "%d %d", &res.Published, &res.Private)
	}
	if w, _ := cache.Meta("warnings"); w != "" {
		_ = json.Unmarshal([]byte(w), &res.Warnings)
	}
	if err := cache.KeepSources(); err != nil || ctx.Err() != nil {
		return nil, false
	}
	return res, true
}

// recordBuild stores what the next build needs to know of this one.
func recordBuild(cache *store.CacheTx, o *output, keys buildKeys, cat *catalog, res *Result) error {
	outs := make([]store.CachedOutput, 0, len(o.records))
	for _, r := range o.records {
		outs = append(outs, r)
	}
	sort.Slice(outs, func(i, j int) bool { return outs[i].Path < outs[j].Path })
	if err := cache.SetOutputs(outs); err != nil {
		return err
	}
	warnings, err := json.Marshal(res.Warnings)
	if err != nil {
		return err
	}
	for name, value := range map[string]string{
		"site":     keys.site,
		"sources":  fingerprint(cat.sources),
		"counts":   strconv.Itoa(res.Published) + " " + strconv.Itoa(res.Private),
		"warnings": string(warnings),
		"built":    time.Now().UTC().Format(time.RFC3339),
		"time":     strconv.FormatInt(o.cfg.Time.Unix(), 10),
	} {
		if err := cache.SetMeta(name, value); err != nil {
			return fmt.Errorf("update cache: %w", err)
		}
	}
	return nil
}
