package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
	"time"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/build"
	"github.com/skillcat/skillcat/store"
)

func init() {
	commands["build"] = command{summary: "validate the content and write the static site", run: runBuild}
}

func runBuild(ctx context.Context, e *env, args []string) int {
	fs := newFlags(e, "build", "[--content DIR] [--out DIR] [--base-url URL] [--templates DIR] [--cache FILE | --no-cache] [--sign-key FILE] [--publish-key FILE]... [--previous DIR|URL] [--reset-changes] [--host NAME] [--strict] [--quiet] [-v]")
	content := fs.String("content", "content", "the content `directory` of skill sources")
	out := fs.String("out", "public", "the output `directory`, replaced whole on success")
	baseURL := fs.String("base-url", "", "absolute `URL` the site is served at; makes URLs absolute and adds sitemap.xml")
	strict := fs.Bool("strict", false, "treat warnings as errors")
	quiet := fs.Bool("quiet", false, "print nothing but problems")
	templates := fs.String("templates", "", "a `directory` of templates and assets overriding the built-in ones")
	cache := fs.String("cache", "", "the rebuild cache `file` (default .cache/skillcat/<out>.sqlite beside the output)")
	noCache := fs.Bool("no-cache", false, "build everything from scratch and keep no cache")
	verbose := fs.Bool("v", false, "print how long each phase took")
	signKey := fs.String("sign-key", "", "sign the indexes with the Ed25519 private key in this PEM `file` (or set SKILLCAT_SIGN_KEY to the PEM itself)")
	var publish, previous stringList
	fs.Var(&publish, "publish-key", "also publish this public key `file` (JWK, JWK Set or PEM) in /.well-known/jwks.json, e.g. the next key of a rotation; repeatable")
	fs.Var(&previous, "previous", "continue the change feed of this `DIR or URL` (a copy of the site, or the live site) instead of the output's")
	resetChanges := fs.Bool("reset-changes", false, "start a new change-feed history (a new epoch) instead of continuing the previous one")
	host := fs.String("host", "", "warn when the output crosses the limits of this `host`: "+build.HostNames()+" (default: the host setting of _index.md)")
	if code := parseFlags(e, fs, args); code >= 0 {
		return code
	}
	cfg, code := contentConfig(e, fs, *content, *strict)
	if code >= 0 {
		return code
	}
	cfg.Out, cfg.BaseURL, cfg.ResetChanges, cfg.Host = *out, *baseURL, *resetChanges, *host
	if code := signing(e, &cfg, *signKey, publish); code >= 0 {
		return code
	}
	if code := previousFeed(ctx, e, &cfg, previous); code >= 0 {
		return code
	}
	cfg.Sized = tuneGC(e)
	if !*noCache {
		cfg.Cache = *cache
		if cfg.Cache == "" {
			clean := filepath.Clean(*out)
			cfg.Cache = filepath.Join(filepath.Dir(clean), ".cache", "skillcat", filepath.Base(clean)+".sqlite")
		}
	}
	if *templates != "" {
		if _, err := os.Stat(*templates); err != nil {
			fmt.Fprintf(e.stderr, "skillcat: --templates %q: not found\n", *templates)
			return exitUsage
		}
		cfg.Templates = os.DirFS(*templates)
	}
	store.OnFault = func(error) {
		// The build read a cache cut short under it, before putting any
		// file in place; its SQLite connection cannot be used again.
		fmt.Fprintf(e.stderr, "skillcat: build failed: rebuild cache %s was cut short by another program while the build read it; %s; the next build finds the cache damaged and builds from scratch\n", cfg.Cache, unchanged(*out, nil))
		os.Exit(exitInternal)
	}
	defer func() { store.OnFault = nil }()
	res, err := build.Build(ctx, cfg)
	if res != nil && res.Notice != "" {
		fmt.Fprintln(e.stderr, "skillcat: note:", res.Notice)
	}
	if err == nil && res.FeedRestarted {
		fmt.Fprintln(e.stderr, "skillcat: note: the change feed begins a new epoch: it named a skill that is private now, and its pages never change; followers start again from the index")
	}
	var invalid *build.InvalidError
	switch {
	case errors.As(err, &invalid):
		printViolations(e, "text", invalid.Violations)
		fmt.Fprintf(e.stderr, "skillcat: build failed: %s, %s in %s; %s\n",
			plural(countSeverity(invalid.Violations, "error"), "error"),
			plural(countSeverity(invalid.Violations, "warning"), "warning"),
			plural(res.Sources, "source"), unchanged(*out, err))
		return exitInvalid
	case errors.Is(err, build.ErrPreviousFeed):
		fmt.Fprintf(e.stderr, "skillcat: build failed: %v; %s\n", err, unchanged(*out, err))
		return exitInvalid
	case isUsage(err):
		fmt.Fprintln(e.stderr, "skillcat:", err)
		return exitUsage
	case errors.Is(err, context.Canceled):
		fmt.Fprintf(e.stderr, "skillcat: build interrupted; %s\n", unchanged(*out, err))
		return exitInternal
	case err != nil:
		fmt.Fprintf(e.stderr, "skillcat: build failed: %v; %s\n", err, unchanged(*out, err))
		return exitInternal
	}
	printViolations(e, "text", logWarnings(e, res))
	for _, w := range res.HostWarnings {
		fmt.Fprintln(e.stderr, "skillcat: warning:", w)
	}
	if *verbose {
		for _, p := range res.Phases {
			fmt.Fprintf(e.stderr, "  %-18s %s\n", p.Name, p.Duration.Round(time.Millisecond))
		}
	}
	if !*quiet && res.UpToDate {
		sources := plural(res.Sources, "source") + ", "
		if publicLog(e) {
			sources = ""
		}
		fmt.Fprintf(e.stdout, "skillcat: %s is up to date (%s%s published; checked in %s); the site is %s\n",
			*out, sources, plural(res.Published, "skill"), res.Duration.Round(time.Millisecond), siteSize(res.Output))
	} else if !*quiet {
		read := fmt.Sprintf("%s read (%d parsed), ", plural(res.Sources, "source"), res.Parsed)
		withheld := ", " + plural(res.Private, "private skill") + " withheld"
		if publicLog(e) {
			read, withheld = "", "" // a public CI log says nothing of private skills, not even by subtraction
		}
		fmt.Fprintf(e.stdout, "skillcat: built %s in %s: %s%s published%s, %s written; the site is %s\n",
			*out, res.Duration.Round(time.Millisecond), read, plural(res.Published, "skill"),
			withheld, plural(res.Files, "file"), siteSize(res.Output))
	}
	return exitOK
}

// publicLog reports whether the output goes to a CI log (CI is set, as
// GitHub Actions, GitLab CI and others set it), which may be public: it
// must not tell how many private skills a catalog holds.
func publicLog(e *env) bool { return e.getenv("CI") != "" }

// logWarnings returns the warnings to print: all of them, or in a log that
// may be public (publicLog) those of listed skills only, with a line saying
// that others were left out.
func logWarnings(e *env, res *build.Result) skillcat.Violations {
	if !publicLog(e) {
		return res.Warnings
	}
	var vs skillcat.Violations
	left := false
	for _, v := range res.Warnings {
		if res.PrivateSources[v.File] {
			left = true
			continue
		}
		vs = append(vs, v)
	}
	if left {
		fmt.Fprintln(e.stderr, "skillcat: warnings of private skills are not shown in a CI log; run skillcat validate without CI set to see them")
	}
	return vs
}

// siteSize states what a host counts: the output's files and bytes.
func siteSize(st build.OutputStats) string {
	mib := float64(st.Bytes) / (1 << 20)
	return fmt.Sprintf("%s, %.1f MiB", plural(st.Files, "file"), mib)
}

// unchanged says what became of the output after the failed build that
// returned err.
func unchanged(out string, err error) string {
	if errors.Is(err, build.ErrOutputPartial) {
		return out + " holds part of the new site (every file whole, every descriptor its index lists present); build again to complete it"
	}
	if _, err := os.Stat(out); err != nil {
		return "nothing written"
	}
	return out + " left unchanged"
}

// tuneGC trades memory the build has to spare for less collector work: a
// build's heap is mostly short-lived garbage (parse trees, rendered pages)
// over a small live heap, and with the collector's default pacing it
// spends a sixth of its CPU collecting. The collector runs only at a soft
// memory limit that follows the live heap (followLiveHeap, gcLimit): at
// least a floor that grows with the catalog (gcFloorFor, set once the
// build has counted its sources: the function tuneGC returns), so that a
// small live heap is not collected each time the heap triples (a cold
// build of 10,000 skills, whose live heap stays under 30 MiB, collected
// 37 times at GOGC=200 and 21 times under a 96 MiB floor, with a lower
// peak) while a small catalog keeps a small peak; up to gcBudget, three
// times the live heap, as GOGC=200 would let it grow, so that the
// collector's work stays in proportion to the catalog; and above that the
// live heap plus as much again, at most gcHeadroom, so that a catalog
// whose live heap alone nears the budget is not collected over and over.
// The GOGC and GOMEMLIMIT environment variables, when set, win
// (gcPercent); under a GOMEMLIMIT, tuneGC returns nil.
func tuneGC(e *env) (sized func(sources int)) {
	if percent, ok := gcPercent(e); ok {
		debug.SetGCPercent(percent)
	}
	if e.getenv("GOMEMLIMIT") != "" {
		return nil
	}
	gcFloorNow.Store(gcFloor) // a small catalog lowers it once counted
	debug.SetMemoryLimit(gcLimit(0, gcFloor))
	go followLiveHeap()
	return func(sources int) {
		gcFloorNow.Store(gcFloorFor(sources))
		followed() // at once, not at the next tick
	}
}

// gcPercent is the GOGC tuneGC sets, or false to leave the environment's:
// off, where the limit follows the live heap; 200 under a GOMEMLIMIT of
// the environment's, which may be far above what the build needs.
func gcPercent(e *env) (percent int, ok bool) {
	switch {
	case e.getenv("GOGC") != "":
		return 0, false
	case e.getenv("GOMEMLIMIT") != "":
		return 200, true
	}
	return -1, true
}

// gcBase is the soft memory limit's floor for no source, gcPerSource what
// each source adds to it and gcFloor the most it grows to (gcFloorFor),
// and the floor until the sources are counted. The limit counts all the
// runtime's memory, about 10 MiB of it not heap, so the base leaves a
// small catalog some 20 MiB of heap between collections: 40 MiB at 1,024
// sources (a peak RSS near 65 MiB, as at GOGC=200), 96 MiB from 8,192
// (about 155 MiB of RSS at 10,000: the floor and what lies outside the Go
// runtime, SQLite's own and the executable's pages). gcBudget is the most
// a build's limit grows to in proportion to its live heap, and gcHeadroom
// the most a still larger build's limit lies above its live heap: a
// catalog of 100,000 skills, whose live heap peaks near 300 MiB in
// render, so stays near 540 MiB of RSS (the limit, and 40-60 MiB outside
// the Go heap), well under 600.
const (
	gcBase      = 32 << 20
	gcPerSource = 8 << 10
	gcFloor     = 96 << 20
	gcBudget    = 480 << 20
	gcHeadroom  = 128 << 20
)

// gcFloorNow is the floor of the soft memory limit (gcFloorFor).
var gcFloorNow atomic.Int64

// gcFloorFor is the floor of the soft memory limit for a catalog of
// sources sources.
func gcFloorFor(sources int) int64 {
	return min(gcFloor, gcBase+int64(sources)*gcPerSource)
}

// gcLimit is the soft memory limit for a live heap of live bytes over a
// floor of floor bytes.
func gcLimit(live, floor int64) int64 {
	return max(floor, min(gcBudget, 3*live), live+min(live, gcHeadroom))
}

// followLiveHeap keeps the soft memory limit at gcLimit of the live heap
// the last collection found, for the life of the process.
func followLiveHeap() {
	for range time.Tick(20 * time.Millisecond) {
		followed()
	}
}

// followed sets the soft memory limit for the live heap the last
// collection found and the floor of the moment.
func followed() {
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(live)
	if live[0].Value.Kind() == metrics.KindUint64 {
		debug.SetMemoryLimit(gcLimit(int64(live[0].Value.Uint64()), gcFloorNow.Load()))
	}
}

// isUsage reports whether a build error is about the command line.
func isUsage(err error) bool { return errors.Is(err, build.ErrConfig) }
