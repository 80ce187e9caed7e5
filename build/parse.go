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
	"sync/atomic"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/store"
	"golang.org/x/sync/errgroup"
)

// publishedSkill is one listed skill as the skill page is made from it:
// the descriptor, the bytes it is published as, and what the index says
// of it.
type publishedSkill struct {
	Descriptor *skillcat.SkillDescriptor
	Tree       *skillcat.Node // Descriptor's values as decoded, or nil
	Published  []byte         // the descriptor as written to routes.descriptor
	Digest     string         // "sha256:<hex>" of Published
	Summary    string
}

// parsed is the outcome of parsing one source: its index row when valid,
// and its violations (warnings included).
type parsed struct {
	row      *store.Row
	vs       skillcat.Violations
	idLine   int
	idColumn int
	cached   bool  // taken from the cache, not parsed
	cacheErr error // the cache could not be read
	// desc and tree are the descriptor as decoded from its source and
	// that source's tree, for the worker that parsed it (eagerRun.make),
	// which clears them: they are not carried on to the index.
	desc *skillcat.SkillDescriptor
	tree *skillcat.Node
}

// parseSources parses and validates every source in parallel, reusing the
// cache's result for a source whose identity or bytes are unchanged,
// and hands each result to x in source order as soon as its turn comes (so
// which of two sources claiming one id is the duplicate never depends on
// timing). With e (a cold build's eagerRun, else nil), the worker that
// parsed a listed skill makes its own files at once.
func parseSources(ctx context.Context, fsys fs.FS, files []SourceFile, display func(string) string,
	workers int, cache *store.CacheTx, x *indexer, e *eagerRun) error {
	return orderedMap(ctx, len(files), workerCount(workers),
		func(i int) parsed {
			p := parseCached(ctx, fsys, &files[i], display(files[i].Path), cache)
			e.make(i, &p)
			return p
		},
		func(i int, p parsed) error {
			err := x.add(ctx, files[i].Path, display(files[i].Path), p)
			if x.failed {
				e.stop() // the build fails: nothing more is worth making
			}
			return err
		})
}

// orderedMap calls work(i) for every i below n, on up to workers goroutines
// at once, and emit(i, result) on the calling goroutine in the order of i,
// each as soon as every result before it is in. It stops at emit's first
// error, or when ctx is done, and returns that error. The workers live for
// the whole run (a goroutine per item would grow a fresh stack for each of
// them, a few percent of a cold build's CPU).
func orderedMap[T any](ctx context.Context, n, workers int, work func(int) T, emit func(int, T) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		i int
		v T
	}
	results := make(chan result, ahead*workers)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				results <- result{i, work(i)}
			}
		}()
	}
	go func() {
		wg.Wait()
		close(results)
	}()
	// Hold the results that arrive early; drain everything, even after an
	// error, so that no worker is left blocked.
	pending := map[int]T{}
	emitted := 0
	var err error
	for r := range results {
		pending[r.i] = r.v
		for v, ok := pending[emitted]; ok; v, ok = pending[emitted] {
			delete(pending, emitted)
			if err == nil {
				if err = emit(emitted, v); err != nil {
					cancel()
				}
			}
			emitted++
		}
	}
	if err == nil {
		err = ctx.Err()
	}
	return err
}

// ahead is how many results a channel between a pool of workers and the
// one goroutine at its other end holds per worker: about what a worker of
// a cold build makes in one of the scheduler's time slices (10 ms, at
// ~0.3 ms a skill). A goroutine woken by a channel operation waits in the
// waker's run queue until the running goroutine blocks or its slice ends.
// With room for one result per worker, the parse's workers waited on the
// full channel for that: 11 % of their time in a cold build of 10,000
// skills (0.33 s, a trace's blocking profile), which kept 1.72 of 2 cores
// busy instead of 1.83.
const ahead = 32

// workerCount is the number of parallel workers for Config.Workers n: n,
// or GOMAXPROCS when n is 0.
func workerCount(n int) int {
	if n <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return n
}

// onWorkers calls fn(i) for each i in [0, count) on workerCount(0)
// goroutines, and returns the first error a call returned (a worker stops
// at its own error, the others go on). Each worker claims the next block
// of indexes in turn: neighbouring indexes go to one worker (their slots,
// written by fn, share cache lines), and a worker that finishes early
// takes more. A block is small enough that each worker gets eight or
// more, so that a few costly calls (folders to remove) are spread too.
func onWorkers(count int, fn func(i int) error) error {
	var g errgroup.Group
	n := workerCount(0)
	block := max(1, min(64, count/(8*n)))
	var next atomic.Int64
	for range n {
		g.Go(func() error {
			for {
				start := int(next.Add(int64(block))) - block
				if start >= count {
					return nil
				}
				for i := start; i < min(start+block, count); i++ {
					if err := fn(i); err != nil {
						return err
					}
				}
			}
		})
	}
	return g.Wait()
}

// parseCached returns the cache's result for an unchanged source (the same
// identity, or the same bytes), and otherwise parses it, recording a valid
// result in the cache. A failure to read the cache is p.cacheErr.
func parseCached(ctx context.Context, fsys fs.FS, f *SourceFile, name string, cache *store.CacheTx) parsed {
	var prev store.CachedSource
	var have bool
	if cache != nil {
		var err error
		if prev, have, err = cache.Source(ctx, f.Path); err != nil {
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
	if cache == nil {
		return parseSource(ctx, *f, name) // nothing keeps the source's hash
	}
	sum := sha256.Sum256(f.Data)
	hash := hex.EncodeToString(sum[:])
	if have && prev.Hash == hash {
		prev.Stat = f.stat
		_ = cache.PutSource(ctx, &prev)
		return fromCache(prev, name)
	}
	p := parseSource(ctx, *f, name)
	if p.row != nil {
		warnings, _ := json.Marshal(p.vs)
		_ = cache.PutSource(ctx, &store.CachedSource{Path: f.Path, Stat: f.stat, Hash: hash,
			Row: *p.row, Warnings: warnings, IDLine: p.idLine, IDColumn: p.idColumn})
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
	row := c.Row
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
	row := &store.Row{
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
	p := parsed{row: row, vs: vs, desc: d, tree: root}
	p.idLine, p.idColumn = src.Position(root.Get("id"))
	return p
}
