package build

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"runtime"
	"strings"
	"sync"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/store"
)

// Skill is one valid skill as the render phase sees it: the descriptor,
// the bytes it is published as, and what the index says of it.
type Skill struct {
	Descriptor *skillcat.SkillDescriptor
	Published  []byte // the descriptor as written to /skills/<id>.json
	Digest     string // "sha256:<hex>" of Published
	Summary    string
}

// parsed is the outcome of parsing one source: its index row when valid,
// and its violations (warnings included).
type parsed struct {
	row      *store.Skill
	vs       skillcat.Violations
	idLine   int
	idColumn int
	cached   bool  // taken from the cache, not parsed
	cacheErr error // the cache could not be read
}

// sourceMeta is what the build keeps in memory of each valid source once
// its row is in the index.
type sourceMeta struct {
	display          string
	idLine, idColumn int
}

// parseSources parses and validates every source in parallel, reusing the
// cache's result for a source whose identity or bytes are unchanged,
// and loads each valid one into the index as soon as its turn comes, in
// source order (so which of two sources claiming one id is the duplicate
// never depends on timing). It returns every violation, the index's
// duplicates as violations, and how many valid sources were private and
// listed.
func parseSources(ctx context.Context, fsys fs.FS, files []SourceFile, display func(string) string,
	workers int, loader *store.Loader, cache *store.CacheTx) (vs skillcat.Violations, metas map[string]sourceMeta, listed, private, parsedN int, err error) {
	workers = workerCount(workers)
	type result struct {
		i int
		p parsed
	}
	next := make(chan int)
	results := make(chan result, workers*2)
	var wg sync.WaitGroup
	for w := 0; w < min(workers, len(files)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results <- result{i, parseCached(ctx, fsys, &files[i], display(files[i].Path), cache)}
			}
		}()
	}
	go func() {
		defer close(next)
		for i := range files {
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(results)
	}()

	// Load in source order: hold results that arrive early.
	pending := map[int]parsed{}
	metas = map[string]sourceMeta{}
	want := 0
	for r := range results {
		pending[r.i] = r.p
		for {
			p, ok := pending[want]
			if !ok {
				break
			}
			delete(pending, want)
			f := files[want]
			want++
			if err == nil && p.cacheErr != nil {
				err = p.cacheErr
			}
			if err != nil {
				continue // drain
			}
			vs = append(vs, p.vs...)
			if !p.cached {
				parsedN++
			}
			if p.row == nil {
				continue
			}
			dup, lerr := loader.Add(p.row)
			if lerr != nil {
				err = lerr
				continue
			}
			meta := sourceMeta{display: display(f.Path), idLine: p.idLine, idColumn: p.idColumn}
			if dup != nil {
				vs = append(vs, skillcat.Violation{
					File: meta.display, Line: meta.idLine, Column: meta.idColumn, Pointer: "/id", Field: "id",
					Reason:   fmt.Sprintf("id %q is already used by %s; ids must be unique", dup.ID, metas[dup.Other].display),
					Severity: skillcat.SeverityError,
				})
				continue
			}
			metas[f.Path] = meta
			if p.row.Access == string(skillcat.Private) {
				private++
			} else {
				listed++
			}
		}
	}
	if err == nil {
		err = ctx.Err()
	}
	return vs, metas, listed, private, parsedN, err
}

// workerCount is the number of parallel workers for Config.Workers n: n,
// or GOMAXPROCS when n is 0.
func workerCount(n int) int {
	if n <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return n
}

// parseCached returns the cache's result for an unchanged source (the same
// identity, or the same bytes), and otherwise parses it, recording a valid
// result in the cache. A failure to read the cache is p.cacheErr.
func parseCached(ctx context.Context, fsys fs.FS, f *SourceFile, name string, cache *store.CacheTx) parsed {
	var prev store.CachedSource
	var have bool
	if cache != nil {
		var err error
		if prev, have, err = cache.Source(f.Path); err != nil {
			return parsed{cacheErr: err}
		}
		if have && f.stat != "" && prev.Stat == f.stat {
			return fromCache(prev, name)
		}
	}
	if err := f.load(fsys); err != nil {
		return parsed{vs: skillcat.Violations{{File: name, Line: 1, Column: 1, Field: skillcat.FileField,
			Reason: err.Error(), Severity: skillcat.SeverityError}}}
	}
	defer func() { f.Data = nil }() // the bytes are not needed again
	sum := sha256.Sum256(f.Data)
	hash := hex.EncodeToString(sum[:])
	if have && prev.Hash == hash {
		prev.Stat = f.stat
		_ = cache.PutSource(&prev)
		return fromCache(prev, name)
	}
	p := parseSource(ctx, *f, name)
	if cache != nil && p.row != nil {
		warnings, _ := json.Marshal(p.vs)
		_ = cache.PutSource(&store.CachedSource{Path: f.Path, Stat: f.stat, Hash: hash,
			Skill: *p.row, Warnings: warnings, IDLine: p.idLine, IDColumn: p.idColumn})
	}
	return p
}

func fromCache(c store.CachedSource, name string) parsed {
	var vs skillcat.Violations
	if err := json.Unmarshal(c.Warnings, &vs); err != nil {
		return parsed{cacheErr: fmt.Errorf("%w: warnings of %s: %v", errCache, c.Path, err)}
	}
	for i := range vs {
		vs[i].File = name // as this run names the source (--content may differ)
	}
	row := c.Skill
	return parsed{row: &row, vs: vs, idLine: c.IDLine, idColumn: c.IDColumn, cached: true}
}

// parseSource parses one .json or .md source into its index row. Its
// schema checks stop once ctx is done.
func parseSource(ctx context.Context, f SourceFile, name string) parsed {
	src := &skillcat.Source{Name: name, Data: f.Data}
	var root *skillcat.Node
	var vs skillcat.Violations
	if strings.HasSuffix(f.Path, ".md") {
		if v := skillcat.CheckText(src); v != nil {
			return parsed{vs: v}
		}
		root, vs = markdownNode(src)
	} else {
		root, vs = skillcat.ParseSource(src)
	}
	if vs.HasErrors() {
		return parsed{vs: vs}
	}
	d, dvs := skillcat.DecodeDescriptorContext(ctx, src, root)
	vs = append(vs, dvs...)
	if d == nil {
		return parsed{vs: vs}
	}
	published, err := d.Encode()
	if err != nil {
		line, col := src.Position(root)
		vs = append(vs, skillcat.Violation{File: name, Line: line, Column: col, Field: skillcat.FileField,
			Reason: fmt.Sprintf("cannot encode descriptor: %v", err), Severity: skillcat.SeverityError})
		return parsed{vs: vs}
	}
	sum := sha256.Sum256(published)
	row := &store.Skill{
		ID:             d.ID,
		Name:           d.Name,
		Version:        d.Version,
		CapabilityType: string(d.CapabilityType),
		Access:         string(d.Access),
		Summary:        Summarize(d.Description),
		ProviderName:   d.Provider.Name,
		Tags:           d.Tags,
		Source:         f.Path,
		Descriptor:     published,
		Digest:         "sha256:" + hex.EncodeToString(sum[:]),
	}
	p := parsed{row: row, vs: vs}
	p.idLine, p.idColumn = src.Position(root.Get("id"))
	return p
}
