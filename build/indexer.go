package build

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/store"
)

// indexer is the index step. It takes each source's parse result in source
// order (add), loads every valid row into the SQLite index, whose unique
// index on id finds duplicates (as each row is added, or, in a load into
// the empty temporary index, when finish commits), and keeps what the
// violations need: where each loaded source's id is written, and the
// counts. finish commits the load and checks that the skills' published
// files can all be laid out.
type indexer struct {
	loader  *store.Loader
	routes  routes
	sources map[string]indexedSource // by source path, every loaded source
	vs      skillcat.Violations
	// kept is set when the index is the one the cache keeps: add then
	// replaces the rows of the sources it is given (those that may have
	// changed) and leaves the others' rows as they are.
	kept bool
	// waiting are the sources not yet given to add whose rows may be
	// replaced, and deferred the rows whose id one of them still holds.
	waiting  map[string]bool
	deferred []deferredRow
	// Counts: sources parsed this run (the rest came from the cache), and
	// loaded skills listed and withheld as private.
	parsed, listed, private int
	// failed is set once a source has an error, or claims an id another
	// holds where the index finds that as the row is added (a load into
	// the empty temporary index finds it at its commit): the build will
	// fail.
	failed bool
	// listing is the index's listing as the load kept it (the temporary
	// index's, store.Loader.Listing), set by finish, or as flush read it
	// from the kept index; nil when it must be read from the index.
	listing []store.Row
	// placeOf, in a rebuild (flush), completes a listed source of the
	// listing with its name and id position, for a violation at its id.
	placeOf func(indexedSource) (indexedSource, error)
	// reparsed are the ids of the listed skills whose sources a rebuild
	// (kept) parsed, in source order: render makes their files first.
	reparsed []string
}

// indexedSource is what the indexer keeps of one loaded source.
type indexedSource struct {
	display          string // the source's name in messages
	path             string // the source's path, where display is not known yet (placeOf)
	id               string
	idLine, idColumn int
	listed           bool
}

// newIndexer begins loading db; the site's files will be laid out by r.
func newIndexer(ctx context.Context, db *store.DB, r routes) (*indexer, error) {
	l, err := db.NewLoader(ctx)
	if err != nil {
		return nil, err
	}
	return &indexer{loader: l, routes: r, sources: map[string]indexedSource{}}, nil
}

// deferredRow is a row that add could not insert yet.
type deferredRow struct {
	path, display string
	p             parsed
}

// errDuplicate is returned by add on the kept index when a source claims
// an id another source holds: the build fails, and load finds which is
// the duplicate as a cold load does.
var errDuplicate = errors.New("duplicate id")

// add takes the parse result p of the source at path (named display in
// messages). The error is for a failure of the index itself, or of the
// cache that p came from.
func (x *indexer) add(ctx context.Context, path, display string, p parsed) error {
	if p.cacheErr != nil {
		return p.cacheErr
	}
	x.vs = append(x.vs, p.vs...)
	x.failed = x.failed || p.vs.HasErrors()
	if !p.cached {
		x.parsed++
	}
	if x.kept {
		if p.row != nil && !p.cached && p.row.Access != string(skillcat.Private) {
			x.reparsed = append(x.reparsed, strings.Clone(p.row.ID))
		}
		return x.replace(ctx, path, display, p)
	}
	if p.row == nil {
		return nil
	}
	dup, err := x.loader.Add(ctx, p.row)
	if err != nil {
		return err
	}
	// The id is copied: it may share its source's text, which the index
	// need not keep through the whole load.
	src := indexedSource{display: display, id: strings.Clone(p.row.ID), idLine: p.idLine, idColumn: p.idColumn,
		listed: p.row.Access != string(skillcat.Private)}
	if dup != nil {
		x.failed = true
		x.vs = append(x.vs, x.duplicate(src, dup))
		return nil
	}
	x.sources[path] = src
	if src.listed {
		x.listed++
	} else {
		x.private++
	}
	return nil
}

// duplicate is the violation of the source src, whose id the source of
// dup's Other holds.
func (x *indexer) duplicate(src indexedSource, dup *store.DuplicateError) skillcat.Violation {
	return x.idViolation(src,
		fmt.Sprintf("id %q is already used by %s; ids must be unique", dup.ID, skillcat.EscapeName(x.sources[dup.Other].display)))
}

// reject takes back the sources that the load's commit found to be
// duplicates (dups, in source order): each gets its violation and is no
// longer counted.
func (x *indexer) reject(dups []*store.DuplicateError) {
	for _, dup := range dups {
		src := x.sources[dup.Source]
		x.vs = append(x.vs, x.duplicate(src, dup))
		delete(x.sources, dup.Source)
		if src.listed {
			x.listed--
		} else {
			x.private--
		}
	}
}

// replace brings the kept index up to date with the source at path: a
// source whose bytes are unchanged keeps its row; any other loses it, and
// a valid one gets its new row. A new row whose id is held by a source
// not yet given to add (whose row may yet go) waits for the end (flush).
func (x *indexer) replace(ctx context.Context, path, display string, p parsed) error {
	delete(x.waiting, path)
	if p.cached {
		return nil
	}
	if err := x.loader.Remove(ctx, path); err != nil {
		return err
	}
	if p.row == nil {
		return nil
	}
	dup, err := x.loader.Add(ctx, p.row)
	switch {
	case err != nil:
		return err
	case dup != nil && x.waiting[dup.Other]:
		x.deferred = append(x.deferred, deferredRow{path, display, p})
	case dup != nil:
		return errDuplicate
	}
	return nil
}

// flush inserts the rows that waited, once every source has been given
// to add, and reads from the kept index what the layout check and the
// counts need: the listing (which render then takes as it is, read in
// the cache's transaction as the rows now stand) and the private
// sources, for the counts and what the build withholds. A listed
// source's name and id position are looked up only for a violation at
// its id (placeOf): x.sources holds the private sources alone.
func (x *indexer) flush(ctx context.Context, cache *store.CacheTx, display func(string) string) error {
	for _, d := range x.deferred {
		if dup, err := x.loader.Add(ctx, d.p.row); err != nil {
			return err
		} else if dup != nil {
			return errDuplicate
		}
	}
	listing, err := cache.Index().ListedEntries(ctx, "")
	if err != nil {
		return err
	}
	private, err := cache.PrivateSources(ctx)
	if err != nil {
		return err
	}
	x.listing, x.listed, x.private = listing, len(listing), len(private)
	x.sources = make(map[string]indexedSource, len(private))
	for _, s := range private {
		x.sources[s.Path] = indexedSource{display: display(s.Path), id: s.ID, idLine: s.IDLine, idColumn: s.IDColumn}
	}
	x.placeOf = func(src indexedSource) (indexedSource, error) {
		src.display = display(src.path)
		var err error
		src.idLine, src.idColumn, err = cache.IDPosition(ctx, src.path)
		return src, err
	}
	return nil
}

// finish commits the load and returns every violation found: the sources'
// own, duplicates, and skills whose published files cannot be laid out
// beside another's. It returns once the duplicates are known; the rest of
// the commit may go on beside what follows, until committed returns (its
// error: store.Loader.CommitAside).
func (x *indexer) finish() (vs skillcat.Violations, committed func() error, err error) {
	dups, committed, err := x.loader.CommitAside()
	if err != nil {
		return nil, nil, err
	}
	x.reject(dups)
	if listing, ok := x.loader.Listing(); ok {
		x.listing = listing
	}
	lvs, err := x.layoutViolations()
	if err != nil {
		committed() // nothing goes on once the load has failed
		return nil, nil, err
	}
	return append(x.vs, lvs...), committed, nil
}

// close abandons a load that was not committed.
func (x *indexer) close() { x.loader.Close() }

// idViolation is an error at the id of the source src.
func (x *indexer) idViolation(src indexedSource, reason string) skillcat.Violation {
	return skillcat.Violation{File: src.display, Line: src.idLine, Column: src.idColumn, Pointer: "/id", Field: "id",
		Reason: reason, Severity: skillcat.SeverityError}
}

// layoutViolations enforces the rule of the output that holds under any
// layout: no path is both a file and a folder. Listed skills "x" and
// "x.json", for one, would need skills/x.json as the descriptor of one and
// the page folder of the other. Each skill whose files need as a folder a
// path that is another skill's file gets an error at its id, naming that
// skill.
func (x *indexer) layoutViolations() (skillcat.Violations, error) {
	// Each listed skill's files once, by path, and then every folder
	// above each file (a prefix of its path, cut at a slash) looked up
	// among them: one map of 18,000 paths at 10,000 skills, none made
	// for a folder. The violations come in no order: the load sorts them.
	var listed []indexedSource
	if x.placeOf != nil {
		for _, e := range x.listing {
			listed = append(listed, indexedSource{path: e.Source, id: e.ID, listed: true})
		}
	} else {
		for _, src := range x.sources {
			if src.listed { // nothing of a private skill is published
				listed = append(listed, src)
			}
		}
	}
	owned := make([][]string, len(listed))
	files := make(map[string]int, 2*len(listed))
	for i, src := range listed {
		owned[i] = x.routes.skillFiles(src.id)
		for _, f := range owned[i] {
			files[f] = i
		}
	}
	var vs skillcat.Violations
	for i, src := range listed {
		var named map[int]bool
		for _, f := range owned[i] {
			for cut := strings.LastIndexByte(f, '/'); cut > 0; cut = strings.LastIndexByte(f[:cut], '/') {
				dir := f[:cut]
				j, ok := files[dir]
				if !ok || listed[j].id == src.id || named[j] {
					continue
				}
				if named == nil {
					named = map[int]bool{}
				}
				named[j] = true
				src, other := src, listed[j]
				if x.placeOf != nil {
					var err error
					if src, err = x.placeOf(src); err != nil {
						return nil, err
					}
					if other, err = x.placeOf(other); err != nil {
						return nil, err
					}
				}
				vs = append(vs, x.idViolation(src, fmt.Sprintf(
					"id %q cannot be published beside %q (%s): /%s would be a file of one and a folder of the other; rename one of them",
					src.id, other.id, skillcat.EscapeName(other.display), dir)))
			}
		}
	}
	return vs, nil
}

// updateIndex brings the index the cache keeps (x, on cache.Index) up to
// date with the sources, in the cache's transaction: the rows of sources
// gone are removed, and only the sources whose identity is not the
// recorded one are given to parseCached and add; every other source's
// row, tags and warnings stay as they are. A cache that is not sealed
// (store.CacheTx.Trusted) is verified whole first. The id of a new row is
// checked by the index's unique index on id against every skill it holds,
// and which skills are listed or private is read from it afterwards.
// With e (a build that takes no file of a previous one), each listed
// skill parsed has its own files made at its parse.
func updateIndex(ctx context.Context, cfg Config, files []SourceFile, display func(string) string, cache *store.CacheTx, x *indexer, e *eagerRun) error {
	// A new cache's index is loaded as the temporary one is: no row to
	// verify or replace, its duplicates found at the commit.
	x.kept, x.waiting = !x.loader.FromEmpty(), map[string]bool{}
	if x.kept && !cache.Trusted() {
		if err := cache.Verify(ctx); err != nil {
			return err
		}
	}
	states, err := cache.Sources(ctx)
	if err != nil {
		return err
	}
	present := make(map[string]bool, len(files))
	looked := map[string]bool{}
	var changed []SourceFile
	for _, f := range files {
		present[f.Path] = true
		if st, ok := states[f.Path]; !ok || f.stat == "" || st.Stat != f.stat {
			changed = append(changed, f)
		}
	}
	if changed, err = sameBytes(ctx, cfg.Content, changed, states, cache); err != nil {
		return err
	}
	for _, f := range changed {
		x.waiting[f.Path] = true
		looked[f.Path] = true
	}
	var gone []string
	for p := range states {
		if !present[p] {
			gone = append(gone, p)
		}
	}
	sort.Strings(gone)
	for _, p := range gone {
		if err := cache.RemoveSource(ctx, p); err != nil {
			return err
		}
	}
	if err := parseSources(ctx, cfg.Content, changed, display, cfg.Workers, cache, x, e); err != nil {
		return err
	}
	if !x.kept {
		return nil // every source was given to add
	}
	if err := x.flush(ctx, cache, display); err != nil {
		return err
	}
	warned, err := cache.Warnings(ctx)
	if err != nil {
		return err
	}
	for _, f := range files {
		w, ok := warned[f.Path]
		if !ok || looked[f.Path] {
			continue // its warnings came with its parse result
		}
		p := f.Path
		var vs skillcat.Violations
		if err := json.Unmarshal(w, &vs); err != nil {
			return fmt.Errorf("%w: warnings of %s: %v", errCache, p, err)
		}
		for i := range vs {
			vs[i].File = display(p)
		}
		x.vs = append(x.vs, vs...)
	}
	return nil
}
