package build

import (
	"context"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"
	"time"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/store"
	"golang.org/x/sync/errgroup"
)

// File is one file of the output: its slash-separated path inside the
// output directory and its bytes.
type File struct {
	Path string
	Data []byte
}

// render produces every output file from the index and hands it to o.
// Only listed skills (non-private) are ever read back from the store, so
// nothing of a private skill can reach a file. Skill pages are rendered in
// parallel from descriptors streamed out of the index, so they never all
// sit in memory. listed is the index's listing (ListedEntries).
//
// The descriptors are streamed out of the index once, for the skill
// pages, the exports and the search index's tokens together (renderSkills).
// Everything else (the index files, the listings, the assets, then the
// search shards once the tokens are in) reads only listed and is written
// on its own goroutine beside the skill pages, so that its serial work does
// not leave a core idle. Each file's bytes do not depend on that timing.
//
// afterReads is called once every read of the index is done (after the
// skill pages' stream), on a goroutine of its own beside the last
// aggregate exports; render returns after it does. counts are the listed
// skills by capability type (store.CountByType).
//
// The skills made at their parse (cat.eager) need only their exports'
// documents made, from what the eager run kept: their descriptors are not
// read again.
func render(ctx context.Context, cfg Config, cat *catalog, listed []store.Row, counts map[string]int, o *output, keys buildKeys, afterReads func()) error {
	pages := cat.eager.pagesOr()
	if pages == nil {
		var err error
		if pages, err = newPages(cfg, cat.site); err != nil {
			return err
		}
	}
	docs := items(listed)
	g, gctx := errgroup.WithContext(ctx)
	searched := make(chan searchInput, 1)
	var collecting, encoding time.Duration // the search index's two parts
	g.Go(func() error {
		return renderListed(gctx, cfg, cat, listed, docs, counts, pages, o, keys, searched, &encoding)
	})
	g.Go(func() error {
		start := time.Now()
		var digests map[string]string // for the search tokens' keys, which only the cache reads
		if cat.cache != nil {
			digests = make(map[string]string, len(listed))
			for _, s := range listed {
				digests[s.ID] = s.Digest
			}
		}
		search, err := newPostingsRun(gctx, cat, docs, digests, o, pages.routes, workerCount(cfg.Workers))
		if err != nil {
			return fmt.Errorf("search index: %w", err)
		}
		// finished hands the postings to renderListed, once every
		// skill's tokens are in.
		finished := func() error {
			postings, spent, err := search.finish()
			if err != nil {
				return fmt.Errorf("search index: %w", err)
			}
			collecting += spent
			searched <- searchInput{postings, search.keys}
			return nil
		}
		// In a rebuild that changed few skills, their tokens are made
		// first, so that the search index is written beside the look at
		// every skill's files (renderStale), not after it.
		if o.prev != nil && search.few() {
			if err := search.tokenizeMissing(gctx, cat.db); err != nil {
				search.finish()
				return err
			}
			if err := finished(); err != nil {
				return err
			}
			search = nil
		}
		collecting += time.Since(start)
		x, err := newExportRun(gctx, pages.routes, cat, listed, o, keys)
		if err != nil {
			if search != nil {
				search.finish()
			}
			return fmt.Errorf("exports: %w", err)
		}
		defer x.abort()
		err = renderSkills(gctx, cfg, pages, cat, listed, o, keys, x, search)
		switch {
		case search == nil:
		case err == nil:
			err = finished()
		default:
			search.finish()
		}
		if err != nil {
			return err
		}
		read := make(chan struct{})
		go func() {
			defer close(read)
			afterReads()
		}()
		defer func() { <-read }()
		if x != nil {
			if err := x.finish(); err != nil {
				return fmt.Errorf("exports: %w", err)
			}
		}
		return nil
	})
	err := g.Wait()
	cat.searchTime = collecting + encoding
	return err
}

// renderListed writes every file made from the listing alone: the
// well-known and type indexes, the change feed, the schemas, the search
// index, the listing pages, the not-found page, the assets, _headers and,
// with a base URL, the sitemaps and robots.txt, and last the search index
// (once its postings arrive on searched, after the skill pages). It reads
// nothing from the index or the cache, and writes to the cache only the
// search index's layout (keepSearchLayout); encoding is set to how long
// the search files took.
func renderListed(ctx context.Context, cfg Config, cat *catalog, listed []store.Row, docs []listItem, counts map[string]int,
	pages *pages, o *output, keys buildKeys, searched <-chan searchInput, encoding *time.Duration) error {
	r := pages.routes
	// Each file is written as soon as it is made, so that the large ones
	// (the home page and search data of a big catalog) are not all held at
	// once.
	var werr error
	add := func(path string, data []byte) {
		if werr == nil {
			werr = o.write(path, data, "")
		}
	}

	idx, err := encodeIndex(r, r.index(), listed)
	if err != nil {
		return fmt.Errorf("well-known index: %w", err)
	}
	add(r.index(), idx)
	if cfg.Signer != nil {
		add(r.signature(r.index()), signature(cfg, idx))
	}
	byType := map[string][]store.Row{}
	for _, s := range listed {
		byType[s.CapabilityType] = append(byType[s.CapabilityType], s)
	}
	for _, t := range skillcat.CapabilityTypes {
		file := r.typeIndex(string(t))
		// An unsigned type index whose skills are unchanged is taken
		// from the previous output, not made again.
		key := ""
		if cfg.Signer == nil {
			key = keys.site + " " + store.ListedKey(byType[string(t)])
			if o.fresh(file, key) {
				continue
			}
		}
		data, err := encodeIndex(r, file, byType[string(t)])
		if err != nil {
			return fmt.Errorf("type index %s: %w", t, err)
		}
		if werr == nil {
			werr = o.write(file, data, key)
		}
		if cfg.Signer != nil {
			add(r.signature(file), signature(cfg, data))
		}
	}
	if cfg.Signer != nil || len(cfg.PublishKeys) > 0 {
		add(r.keySet(), keySet(cfg))
	}
	feed, restarted, err := changeFeed(ctx, cfg, r, listed, cat.withheld, cat.cache)
	if err != nil {
		return err
	}
	cat.feedRestarted = restarted
	for _, f := range feed {
		add(f.Path, f.Data)
	}
	schemas := skillcat.Schemas()
	names, _ := fs.Glob(schemas, "*.schema.json")
	for _, name := range names {
		data, err := fs.ReadFile(schemas, name)
		if err != nil {
			return fmt.Errorf("schema %s: %w", name, err)
		}
		add(r.schema(name), data)
	}

	if werr == nil {
		werr = pages.listings(docs, counts, keys.site, o.fresh, o.write)
	}
	notFound, err := pages.notFoundPage(counts)
	if err != nil {
		return err
	}
	add(notFound.Path, notFound.Data)
	assets, err := pages.assets()
	if err != nil {
		return err
	}
	for _, f := range assets {
		add(f.Path, f.Data)
	}
	add(r.noJekyll(), []byte{})
	add(r.headers(), headersFile(r, exportHeaders(r, cat.site.Exports)))
	if r.base != "" {
		for _, f := range sitemaps(cfg, r, counts, listed) {
			add(f.Path, f.Data)
		}
		add(r.robots(), []byte("User-agent: *\nAllow: /\n\nSitemap: "+r.absolute(r.sitemap())+"\n"))
	}

	var search searchInput
	select {
	case search = <-searched:
	case <-ctx.Done():
		return ctx.Err()
	}
	start := time.Now()
	if err := writeSearchFiles(r, docs, search.postings, add); err != nil {
		return fmt.Errorf("search index: %w", err)
	}
	if werr == nil && cat.cache != nil {
		werr = keepSearchLayout(ctx, cat.cache, o, r, search.keys)
	}
	*encoding = time.Since(start)
	return werr
}

// renderSkills writes every listed skill's descriptor and page, and its
// part of the exports (x, nil when they are off), in parallel, streaming
// the descriptors out of the index once and decoding each at most once; the
// skills whose search tokens search wants are tokenized from the same
// stream. A page whose descriptor and site are those of the previous build
// is not rendered; in a rebuild (renderStale) only the descriptors of
// skills that have a file, an export part or search tokens to make are
// read at all.
func renderSkills(ctx context.Context, cfg Config, p *pages, cat *catalog, listed []store.Row, o *output, keys buildKeys, x *exportRun, search *postingsRun) error {
	g, gctx := errgroup.WithContext(ctx)
	// The workers live for the whole stream (a goroutine per skill would
	// grow a fresh stack for each).
	jobs := make(chan func() error)
	for range workerCount(cfg.Workers) {
		g.Go(func() error {
			for job := range jobs {
				if err := job(); err != nil {
					return err
				}
			}
			return nil
		})
	}
	// stale says whether skill e's descriptor or page must be made.
	stale := func(e *store.Row) bool {
		return o.prev == nil || !o.fresh(p.routes.descriptor(e.ID), e.Digest) || !o.fresh(p.routes.skillPage(e.ID), pageKey(keys, e))
	}
	// send makes one skill's files on the next free worker; it waits while
	// all are busy, so descriptors are read only as fast as they are made.
	// at is the skill's index in listed.
	send := func(id string, at int, d []byte, page, export, mdFresh bool) error {
		if err := gctx.Err(); err != nil {
			return err
		}
		doc, tokens := search.wants(id)
		if !page && !export && !tokens {
			return nil
		}
		job := func() error {
			var desc *skillcat.SkillDescriptor
			var tree *skillcat.Node // desc's values, for its page's schema views
			decode := func() (*skillcat.SkillDescriptor, error) {
				if desc == nil {
					var err error
					if desc, tree, err = skillcat.UnmarshalDescriptor(d); err != nil {
						return nil, fmt.Errorf("decode published descriptor: %w", err)
					}
				}
				return desc, nil
			}
			if page {
				if err := renderSkill(p, &listed[at], d, decode, func() *skillcat.Node { return tree }, o, keys); err != nil {
					return fmt.Errorf("render skill %q: %w", id, err)
				}
			}
			if export {
				if err := x.one(at, decode, mdFresh); err != nil {
					return fmt.Errorf("exports: %w", err)
				}
			}
			if tokens {
				if desc != nil {
					search.tokenize(doc, desc.Description)
				} else if err := search.tokenizeDescriptor(doc, d); err != nil {
					return err
				}
			}
			return nil
		}
		select {
		case jobs <- job:
			return nil
		case <-gctx.Done():
			return gctx.Err()
		}
	}
	var err error
	if o.prev == nil && cat.eager.madeAll(listed) {
		// Cold, every skill's own files made at its parse: only its part
		// of the exports is left, made from what the eager run kept.
		for at := 0; at < len(listed) && x != nil && err == nil; at++ {
			if export, mdFresh := x.wants(at); export {
				err = send(listed[at].ID, at, nil, false, true, mdFresh)
			}
		}
	} else if o.prev == nil {
		// Cold: every file is made; stream every descriptor out of the
		// index, but for the pages made at their parse.
		err = cat.db.EachDescriptor(gctx, func(id string, d []byte) error {
			at, ok := listingIndex(listed, id)
			if !ok {
				return fmt.Errorf("render skill %q: not in the listing", id)
			}
			export, mdFresh := false, false
			if x != nil {
				export, mdFresh = x.wants(at)
			}
			_, made := cat.eager.skill(id)
			return send(id, at, d, !made, export, mdFresh)
		})
	} else {
		err = renderStale(gctx, cat, listed, x, search, stale, send)
	}
	close(jobs)
	// A worker's error comes first: the reading stopped because of it.
	if werr := g.Wait(); werr != nil {
		return werr
	}
	if err != nil {
		return err
	}
	return ctx.Err()
}

// listingIndex returns the index of skill id in listed, which is in id
// order (ListedEntries), and whether it is there: a search, where a map
// by id (one in the skill pages', one in the exports') was ~90,000
// entries more for the collector to scan through all of render at
// 100,000 skills.
func listingIndex(listed []store.Row, id string) (int, bool) {
	i := sort.Search(len(listed), func(i int) bool { return listed[i].ID >= id })
	return i, i < len(listed) && listed[i].ID == id
}

// renderStale is renderSkills in a rebuild: it asks of every listed skill
// whether its files are stale, what its exports need of it (x.wants) and
// whether search wants its tokens, then reads the descriptors of only the
// skills that need theirs, and sends each to be made. Many are streamed
// out of the index at once (after a change to the site, say); a few are
// fetched one by one.
//
// The skills whose sources this build parsed (cat.reparsed), when they
// are few, are asked and sent first, so that their files, and their
// parts of the aggregate exports (llms-full.txt is written in listing
// order: its runs after a changed skill's block wait for that block), are
// made while the workers look at every other skill's files.
func renderStale(ctx context.Context, cat *catalog, listed []store.Row, x *exportRun, search *postingsRun, stale func(*store.Row) bool,
	send func(id string, at int, d []byte, page, export, mdFresh bool) error) error {
	type job struct {
		page, export, mdFresh bool
	}
	all := make([]job, len(listed))
	look := func(i int) {
		j := &all[i]
		if x != nil {
			j.export, j.mdFresh = x.wants(i)
		}
		// stale takes a fresh descriptor and page from the previous output.
		j.page = stale(&listed[i])
	}
	wanted := func(i int) bool {
		_, tokens := search.wants(listed[i].ID)
		return all[i].page || all[i].export || tokens
	}
	var first []int
	if fewFirst(len(cat.reparsed), len(listed)) {
		for _, id := range cat.reparsed {
			if at, ok := listingIndex(listed, id); ok {
				first = append(first, at)
			}
		}
		slices.Sort(first)
		first = slices.Compact(first)
	}
	done := make([]bool, len(listed))
	for _, i := range first {
		done[i] = true
		look(i)
		if !wanted(i) {
			continue
		}
		d, err := cat.db.Descriptor(ctx, listed[i].ID)
		if err == nil {
			err = send(listed[i].ID, i, d, all[i].page, all[i].export, all[i].mdFresh)
		}
		if err != nil {
			return err
		}
	}
	// Each skill's files are looked at (an lstat of each live file) on
	// every worker, a block of the listing at a time.
	err := onWorkers(len(listed), func(i int) error {
		if !done[i] {
			look(i)
		}
		return nil
	})
	if err != nil {
		return err
	}
	jobs := map[string]int{} // listing index by id
	var order []string       // the ids of jobs, in listing order
	for i := range all {
		if !done[i] && wanted(i) {
			jobs[listed[i].ID] = i
			order = append(order, listed[i].ID)
		}
	}
	do := func(id string, d []byte) error {
		i, ok := jobs[id]
		if !ok {
			return nil
		}
		return send(id, i, d, all[i].page, all[i].export, all[i].mdFresh)
	}
	if len(order) > len(listed)/8 {
		return cat.db.EachDescriptor(ctx, do)
	}
	for _, id := range order {
		d, err := cat.db.Descriptor(ctx, id)
		if err == nil {
			err = do(id, d)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// fewFirst reports whether n skills of a listing of total are so few
// that a rebuild makes what they need first, each fetched on its own,
// before it looks at every skill's files: at most one in 64, or 8.
func fewFirst(n, total int) bool { return n <= max(8, total/64) }

// pageKey is what a skill page is made from: the site and the descriptor.
func pageKey(keys buildKeys, e *store.Row) string { return keys.site + " " + e.Digest }

// renderSkill writes one skill's descriptor and page; decode gives the
// descriptor decoded from published, decoded once for the page and the
// exports.
func renderSkill(p *pages, e *store.Row, published []byte, decode func() (*skillcat.SkillDescriptor, error), tree func() *skillcat.Node, o *output, keys buildKeys) error {
	if file := p.routes.descriptor(e.ID); !o.fresh(file, e.Digest) {
		if err := o.write(file, published, e.Digest); err != nil {
			return err
		}
	}
	page, key := p.routes.skillPage(e.ID), pageKey(keys, e)
	if o.fresh(page, key) {
		return nil
	}
	d, err := decode()
	if err != nil {
		return err
	}
	data, err := p.skillPage(&publishedSkill{Descriptor: d, Tree: tree(), Published: published, Digest: e.Digest, Summary: e.Summary})
	if err != nil {
		return err
	}
	err = o.write(page, data, key)
	releasePage(data)
	return err
}

// encodeIndex writes the SkillIndex file of the given skills, in id order;
// each entry's descriptor_url is published from file.
func encodeIndex(r routes, file string, skills []store.Row) ([]byte, error) {
	x := skillcat.SkillIndex{Protocol: skillcat.CurrentProtocol(), Skills: make([]skillcat.IndexEntry, len(skills))}
	for i, s := range skills {
		x.Skills[i] = skillcat.IndexEntry{
			ID: s.ID, Name: s.Name, Version: s.Version,
			CapabilityType: skillcat.CapabilityType(s.CapabilityType), Access: skillcat.Access(s.Access),
			Summary: s.Summary, DescriptorURL: r.published(file, r.descriptor(s.ID)), Digest: s.Digest,
		}
	}
	return x.Encode()
}

// headersFile is the _headers file Netlify and Cloudflare Pages read: JSON
// documents are served as JSON to any origin, nothing is sniffed, and pages
// get a strict Content-Security-Policy.
func headersFile(r routes, more []headerRule) []byte {
	var b strings.Builder
	for i, rule := range append(r.headerRules(), more...) {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(rule.Pattern + "\n")
		for _, h := range rule.Headers {
			b.WriteString("  " + h + "\n")
		}
	}
	return []byte(b.String())
}

// ContentSecurityPolicy is the policy the pages are built to work under: no
// inline script or style, nothing from other origins.
const ContentSecurityPolicy = MetaContentSecurityPolicy + "; frame-ancestors 'none'"

// MetaContentSecurityPolicy is the same policy as every page carries in a
// <meta http-equiv>, for the hosts that send no _headers (GitHub Pages,
// S3): all of it but frame-ancestors, which browsers ignore in a <meta>.
const MetaContentSecurityPolicy = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'"

var xmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;")

func xmlEscape(s string) string { return xmlEscaper.Replace(s) }
