package build

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/store"
)

// indexer is the index step. It takes each source's parse result in source
// order (add), loads every valid row into the SQLite index, whose UNIQUE id
// finds duplicates, and keeps what the violations need: where each loaded
// source's id is written, and the counts. finish commits the load and checks
// that the skills' published files can all be laid out.
type indexer struct {
	loader  *store.Loader
	routes  routes
	sources map[string]indexedSource // by source path, every loaded source
	vs      skillcat.Violations
	// Counts: sources parsed this run (the rest came from the cache), and
	// loaded skills listed and withheld as private.
	parsed, listed, private int
}

// indexedSource is what the indexer keeps of one loaded source.
type indexedSource struct {
	display          string // the source's name in messages
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

// add takes the parse result p of the source at path (named display in
// messages). The error is for a failure of the index itself, or of the
// cache that p came from.
func (x *indexer) add(ctx context.Context, path, display string, p parsed) error {
	if p.cacheErr != nil {
		return p.cacheErr
	}
	x.vs = append(x.vs, p.vs...)
	if !p.cached {
		x.parsed++
	}
	if p.row == nil {
		return nil
	}
	dup, err := x.loader.Add(ctx, p.row)
	if err != nil {
		return err
	}
	src := indexedSource{display: display, id: p.row.ID, idLine: p.idLine, idColumn: p.idColumn,
		listed: p.row.Access != string(skillcat.Private)}
	if dup != nil {
		x.vs = append(x.vs, x.idViolation(src,
			fmt.Sprintf("id %q is already used by %s; ids must be unique", dup.ID, skillcat.EscapeName(x.sources[dup.Other].display))))
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

// finish commits the load and returns every violation found: the sources'
// own, duplicates, and skills whose published files cannot be laid out
// beside another's.
func (x *indexer) finish() (skillcat.Violations, error) {
	if err := x.loader.Commit(); err != nil {
		return nil, err
	}
	return append(x.vs, x.layoutViolations()...), nil
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
func (x *indexer) layoutViolations() skillcat.Violations {
	files := map[string]indexedSource{}
	var listed []indexedSource
	for _, src := range x.sources {
		if !src.listed {
			continue // nothing of a private skill is published
		}
		listed = append(listed, src)
		for _, f := range x.routes.skillFiles(src.id) {
			files[f] = src
		}
	}
	sort.Slice(listed, func(i, j int) bool { return listed[i].id < listed[j].id })
	var vs skillcat.Violations
	for _, src := range listed {
		named := map[string]bool{}
		for _, f := range x.routes.skillFiles(src.id) {
			for dir := path.Dir(f); dir != "."; dir = path.Dir(dir) {
				other, ok := files[dir]
				if !ok || other.id == src.id || named[other.id] {
					continue
				}
				named[other.id] = true
				vs = append(vs, x.idViolation(src, fmt.Sprintf(
					"id %q cannot be published beside %q (%s): /%s would be a file of one and a folder of the other; rename one of them",
					src.id, other.id, skillcat.EscapeName(other.display), strings.TrimSuffix(dir, "/"))))
			}
		}
	}
	return vs
}
