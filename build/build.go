// Package build turns a directory of skill sources into a static catalog
// site, in stages that each hand a plain value to the next:
//
//	read    content fs.FS      readSources    → []SourceFile (path, file identity; bytes read by parse)
//	parse   SourceFile         parseCached    → parsed (index row or nil, violations, id position),
//	                                             in parallel, handed on in source order (orderedMap)
//	index   parsed             indexer.add    → rows in SQLite (UNIQUE id finds duplicates);
//	                           indexer.finish → violations (duplicates, paths both file and folder)
//	                                          → *catalog (the index, the site settings, the sources)
//	render  ListedEntries      render         → one output.write(path, bytes, key) per file, at the
//	                                             paths routes gives; skill pages from descriptors
//	                                             streamed out of the index (EachDescriptor)
//	write   output             output.finish  → catalog.sqlite (exported by render once it has
//	                                             read the index), then the new tree exchanged whole
//
// routes (routes.go) is the one owner of the site's layout: every path and
// every link comes from it. Every violation of every source is collected
// before the build fails, and a failed build leaves the previous output
// untouched. Private skills are parsed, validated and indexed (so their ids
// stay unique) but nothing of them is rendered. The same sources give the
// same bytes; dates come only from Config.Time (SOURCE_DATE_EPOCH).
package build

import (
	"context"
	"errors"
	"fmt"
	htmltemplate "html/template"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"text/template"
	"time"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/jose"
	"github.com/skillcat/skillcat/store"
)

// Config is everything a build needs; flags enter in cmd/ and travel here.
type Config struct {
	// Content is the content directory the sources are read from.
	Content fs.FS
	// ContentLabel is how messages name the content directory ("content"):
	// each source's path is joined to it, as in content/weather.md:3:1.
	ContentLabel string
	// ContentPath, when Content is a directory on disk (as on the command
	// line), is that directory's path: Build refuses an Out that is or
	// holds it, and skips an Out inside it when reading sources. Empty
	// means Content is not on disk, or Out cannot be inside it.
	ContentPath string
	// Out is the output directory; it is replaced whole on success.
	Out string
	// BaseURL, when set, makes every published URL absolute and adds
	// sitemap.xml and robots.txt. It must be an absolute http(s) URL.
	BaseURL string
	// Strict turns warnings into errors.
	Strict bool
	// Templates, when set, overrides templates and assets by file name.
	Templates fs.FS
	// Time is the build's date (from SOURCE_DATE_EPOCH); zero means the
	// output carries no date at all.
	Time time.Time
	// Workers bounds parallel parsing; 0 means GOMAXPROCS.
	Workers int
	// Signer, when set, signs /.well-known/skills.json and each
	// /types/<type>.json (a detached JWS beside each, <document>.jws) and
	// publishes its public key in /.well-known/jwks.json. The private key
	// is never written anywhere.
	Signer *jose.Signer
	// PublishKeys are more public keys for /.well-known/jwks.json, such as
	// the next key of a rotation.
	PublishKeys []jose.PublicKey
	// Previous holds the change feed this build continues (changes/index.json
	// and its pages); nil means the feed in Out, if any.
	Previous fs.FS
	// ResetChanges starts a new change-feed history (a new epoch) instead
	// of continuing the previous one.
	ResetChanges bool
	// Dev adds the live-reload script to every page (skillcat serve only).
	Dev bool
	// Cache, when set, is the rebuild cache file: an unchanged source is not
	// parsed again, an unchanged page not rendered again, and an unchanged
	// output file not written again. A missing or damaged cache means a
	// cold build (Result.Notice says so); a file there that is not a
	// skillcat cache is an ErrConfig error and is left untouched. Empty
	// means no cache.
	Cache string
	// Host names the host the site is deployed to (one of Hosts, such as
	// "netlify"); the build warns when the output crosses its limits. It
	// overrides the "host" setting of the content's _index.md.
	Host string
	// Sized, when set, is told how many sources the build found, as soon
	// as it has read them (skillcat build sizes its collector by it).
	Sized func(sources int)
}

// Result summarizes a build or validation run.
type Result struct {
	Sources   int    // skill sources read
	Parsed    int    // sources parsed (the rest came from the cache)
	Published int    // skills listed in the index
	Private   int    // valid private skills withheld
	Files     int    // files written (unchanged ones are not rewritten)
	UpToDate  bool   // nothing changed since the cached build
	Notice    string // one line about the rebuild cache, such as that it was damaged and dropped
	// FeedRestarted says the change feed began a new history (a new
	// epoch): it named a skill that is private now, and its pages never
	// change. Followers see the new epoch and start again from the index.
	FeedRestarted bool
	Warnings      skillcat.Violations // warnings that did not fail the run
	Output        OutputStats         // the size of the whole output, written or kept
	// HostWarnings says which limits of the chosen host (Config.Host or
	// _index.md) the output crosses, and what to do.
	HostWarnings []string
	Duration     time.Duration
	Phases       []Phase // how long each phase took, in order

	// PrivateSources are the names (as in Warnings) of the private
	// skills' sources, so that a log which may be public can leave out
	// their warnings.
	PrivateSources map[string]bool
}

// Phase is the name and duration of one phase of a run.
type Phase struct {
	Name     string
	Duration time.Duration
}

// timed records how long the phase since the last call took.
func (r *Result) timed(name string, since *time.Time) {
	now := time.Now()
	r.Phases = append(r.Phases, Phase{name, now.Sub(*since)})
	*since = now
}

// ErrConfig is wrapped by errors in the Config itself, such as a base URL
// that is not absolute.
var ErrConfig = errors.New("invalid configuration")

// ErrInvalidContent is wrapped by the error of a run that failed because
// of the content; errors.As with skillcat.Violations yields every problem.
var ErrInvalidContent = errors.New("content is invalid")

// InvalidError carries every violation of a failed run.
type InvalidError struct {
	Violations skillcat.Violations
}

// Error summarizes the count; the violations themselves are listed by the
// caller.
func (e *InvalidError) Error() string {
	n := 0
	for _, v := range e.Violations {
		if v.Severity == skillcat.SeverityError {
			n++
		}
	}
	return fmt.Sprintf("%s: %d problem(s)", ErrInvalidContent, n)
}

// Unwrap returns ErrInvalidContent and the violations, so that errors.Is
// finds the one and errors.As with a skillcat.Violations the other.
func (e *InvalidError) Unwrap() []error { return []error{ErrInvalidContent, e.Violations} }

// Validate reads, parses and indexes the content without writing anything.
// It returns every violation; the error is an *InvalidError when the
// content is invalid.
func Validate(ctx context.Context, cfg Config) (*Result, error) {
	start := time.Now()
	cat, res, err := load(ctx, cfg, nil, nil, nil, buildKeys{})
	if cat != nil {
		if cerr := cat.committed(ctx, res); cerr != nil && err == nil {
			err = cerr
		}
		cat.close()
	}
	res.Duration = time.Since(start)
	return res, err
}

// Build runs every phase and replaces cfg.Out with the new site. On any
// error the previous output is left as it was, except for an error
// wrapping ErrOutputPartial (an output that could not be exchanged, see
// output). A foreign file at cfg.Cache is refused (ErrConfig) and left
// untouched; a damaged cache is removed and the build runs cold, saying so
// in Result.Notice.
func Build(ctx context.Context, cfg Config) (*Result, error) {
	start := time.Now()
	if err := checkConfig(&cfg); err != nil {
		return &Result{}, err
	}
	// The sources are read beside the opening of the cache (which may
	// hash the executable, versionFor).
	sources := readSourcesAside(cfg)
	rc, notice, err := openCache(ctx, cfg.Cache)
	if err != nil {
		sources()
		return &Result{}, err
	}
	defer func() { rc.close() }() // the cache of the retry below, when there is one
	res, err := build(ctx, cfg, rc.tx, sources)
	if rc.tx != nil && isCacheErr(err) && ctx.Err() == nil {
		// Whatever the cache gave is suspect: start it afresh, build cold.
		notice = fmt.Sprintf("rebuild cache %s is damaged (%v); removed it and built from scratch", cfg.Cache, err)
		rc.close()
		if rerr := store.RemoveCache(cfg.Cache); rerr == nil {
			rc, _, _ = openCache(ctx, cfg.Cache)
		} else {
			rc = &runCache{}
		}
		res, err = build(ctx, cfg, rc.tx, readSourcesAside(cfg))
		if err != nil && !isCacheErr(err) {
			notice = "" // the build fails without the cache too: its error is the build's own
		}
	}
	if err == nil && rc.tx != nil {
		if cerr := rc.tx.Commit(ctx); cerr != nil {
			// The site is built; only the next build's head start is lost.
			rc.close()
			store.RemoveCache(cfg.Cache)
			notice = fmt.Sprintf("could not update the rebuild cache %s (%v); removed it, the next build starts cold", cfg.Cache, cerr)
		}
	}
	res.Notice = notice
	res.Duration = time.Since(start)
	return res, err
}

// runCache is the rebuild cache of one build: nil fields without one.
type runCache struct {
	c  *store.Cache
	tx *store.CacheTx
}

func (r *runCache) close() {
	if r.tx != nil {
		r.tx.Rollback()
	}
	if r.c != nil {
		r.c.Close()
	}
	*r = runCache{}
}

// openCache opens the rebuild cache at path ("" for none) and begins this
// build's update of it. A foreign file is a configuration error; any other
// problem means a build without the cache (a damaged one is started
// afresh), told in notice.
func openCache(ctx context.Context, path string) (rc *runCache, notice string, err error) {
	rc = &runCache{}
	if path == "" {
		return rc, "", nil
	}
	version, keep := versionFor(path)
	c, err := store.OpenCache(ctx, path, version)
	if errors.Is(err, store.ErrCorrupt) {
		notice = fmt.Sprintf("rebuild cache %s is damaged (%v); started a new one and built from scratch", path, errors.Unwrap(err))
		if err = store.RemoveCache(path); err == nil {
			c, err = store.OpenCache(ctx, path, version)
		}
	}
	switch {
	case ctx.Err() != nil:
		return rc, "", ctx.Err()
	case errors.Is(err, store.ErrForeign):
		return rc, "", fmt.Errorf("%w: --cache %q is not a skillcat rebuild cache (%v), so it was left untouched; choose another file, or build with --no-cache",
			ErrConfig, path, strings.TrimPrefix(err.Error(), "open cache "+path+": "+store.ErrForeign.Error()+": "))
	case err != nil:
		return rc, fmt.Sprintf("cannot open the rebuild cache (%v); built from scratch without it", err), nil
	}
	rc.c = c
	keep()
	if rc.tx, err = c.Begin(ctx); err != nil {
		c.Close()
		if ctx.Err() != nil {
			return &runCache{}, "", ctx.Err()
		}
		return &runCache{}, fmt.Sprintf("cannot use the rebuild cache %s (%v); built from scratch without it", path, err), nil
	}
	return rc, notice, nil
}

// isCacheErr reports whether err came from reading the rebuild cache or
// from using what it gave.
func isCacheErr(err error) bool {
	return errors.Is(err, errCache) || errors.Is(err, store.ErrCorrupt)
}

// build is one attempt of Build; sources gives the sources it reads
// (readSourcesAside).
func build(ctx context.Context, cfg Config, cache *store.CacheTx, sources func() ([]SourceFile, skillcat.Violations)) (*Result, error) {
	keys, err := siteKeys(cfg)
	if err != nil {
		return &Result{}, fmt.Errorf("templates: %w", err)
	}
	var prev map[string]store.CachedOutput
	// The sources are read, and the cache's record of the output decoded,
	// beside the rest: the record is waited for only where it is used.
	var prevOf func() (map[string]store.CachedOutput, error)
	// fresh says that no file of a previous build is taken: there is no
	// cache, or its record is of no output (a new cache: a first build,
	// CI's without a restored cache) or of one stamped otherwise.
	fresh := cache == nil
	if cache != nil {
		prevOf = cache.OutputsAside(ctx)
		if when, err := cache.Meta(ctx, "time"); err != nil {
			prevOf()
			return &Result{}, err
		} else if when != stampKey(cfg) {
			// A new date or umask stamps every file (a new cache has no
			// date): write them all.
			if _, err := prevOf(); err != nil {
				return &Result{}, err
			}
			prevOf, fresh = nil, true
		}
	}
	// live answers, once the look made beside the sources' read is done,
	// whether every file of the previous output is as recorded: the
	// up-to-date check and a rebuild's output (reuse) both ask.
	var live func() bool
	if !fresh {
		if live = liveFilesAside(ctx, cfg.Out, prevOf); live != nil {
			defer live() // no look outlives the build
		}
		res, ok, err := upToDate(ctx, cfg, cache, keys, prevOf, sources, live)
		if err != nil || ok {
			if ok {
				site, _ := readSite(cfg.Content, func(p string) string { return p })
				res.HostWarnings = hostWarnings(cfg, site, res.Output)
			} else {
				prevOf()
				res = &Result{}
			}
			return res, err
		}
	}
	// A rebuild brings the spare up to date (read whole first) while the
	// sources load; a failed load gives it back. When catalog.sqlite's
	// export reads on a connection of its own (store.DB.ExportsAside), the
	// same goroutine then exports it into the new tree as soon as the
	// spare and the load are both done (early), beside the listing's read
	// and all of render: it is the longest piece of work of a rebuild, on
	// one core.
	var made chan error
	var o *output
	var aside chan *catalog // the loaded catalog, when the export starts early
	var early struct {
		done   chan struct{}
		cancel context.CancelFunc
		tmp    string // the export, not yet in its place (placeCatalog)
		err    error
	}
	if prevOf != nil {
		made, aside, early.done = make(chan error, 1), make(chan *catalog, 1), make(chan struct{})
		ectx, cancel := context.WithCancel(ctx)
		early.cancel = cancel
		go func() {
			defer close(early.done)
			var err error
			var mine *output
			if prev, err = prevOf(); err == nil && len(prev) > 0 {
				if o, err = newOutput(cfg, prev); err == nil {
					o.track = true
					o.liveSame = live
					mine = o
				}
			}
			made <- err
			if c, ok := <-aside; ok && mine != nil {
				early.tmp, early.err = mine.exportAside(ectx, c)
			}
		}()
	}
	// eager is the tree made before the load, or nil: in a rebuild, o is
	// the goroutine's above until made says it is done.
	var eager *output
	if fresh {
		// Nothing of a previous build is taken: the new tree is made
		// before the load, for each listed skill's own files to be made
		// as soon as it is parsed (eagerRun). Where it cannot be made,
		// the load runs without it: the catalog's violations come first,
		// the error of making the tree (tried again below) after them.
		if eager, err = newOutput(cfg, nil); err == nil {
			defer eager.abandon()
			eager.track = cache != nil
			o = eager
		}
	}
	cat, res, err := load(ctx, cfg, cache, sources, eager, keys)
	mark := time.Now()
	exportsEarly := aside != nil && err == nil && cat.db.ExportsAside()
	if aside != nil {
		if exportsEarly {
			aside <- cat
		}
		close(aside)
	}
	var listed []store.Row
	var counts map[string]int
	if err == nil {
		defer cat.close()
		cat.cache = cache
		// The listing is read once, while the spare may still be read;
		// render and the export of catalog.sqlite both work from it. A
		// load into the temporary index kept it as it loaded the rows,
		// and a rebuild's read it from the kept index (indexer.flush).
		if listed, cat.listing = cat.listing, nil; listed == nil {
			if listed, err = cat.db.ListedEntries(ctx, ""); err != nil {
				err = fmt.Errorf("render: query listed skills: %w", ctxErr(ctx, err))
			}
		}
		counts = store.CountByType(listed)
		if err == nil && cache != nil {
			err = cache.Unmap(ctx)
		}
	}
	if made != nil {
		oerr := <-made
		exportsEarly = exportsEarly && oerr == nil && o != nil
		if oerr == nil && o != nil {
			defer o.abandon()
		}
		// Before the tree is abandoned: the export writes into it.
		defer func() { early.cancel(); <-early.done }()
		if oerr != nil && err == nil {
			err = oerr
			if !errors.Is(oerr, store.ErrCorrupt) {
				err = fmt.Errorf("write %s: %w", cfg.Out, oerr)
			}
		}
	}
	if err != nil {
		return res, err
	}
	if o == nil {
		if o, err = newOutput(cfg, prev); err != nil {
			return res, fmt.Errorf("write %s: %w", cfg.Out, err)
		}
		o.track = cache != nil
		defer o.abandon()
	}
	// catalog.sqlite is exported beside render: since the load when the
	// export reads on a connection of its own (store.DB.ExportsAside, a
	// rebuild that changed few rows) and the spare was there (early; put
	// in its place, or dropped for the previous build's, once its key is
	// known), from render's start without a spare, otherwise once render
	// has read the index, beside the last aggregate exports. finish then
	// finds it made.
	catalogKey := store.ListedKey(listed)
	keys.listed = catalogKey
	var exported error
	afterReads, exportDone := func() { exported = o.exportCatalog(ctx, cat, catalogKey) }, make(chan struct{})
	if exportsEarly {
		defer func() { early.cancel(); <-exportDone }()
		go func() {
			defer close(exportDone)
			<-early.done
			if exported = early.err; exported == nil {
				exported = o.placeCatalog(early.tmp, catalogKey)
			}
		}()
		afterReads = func() {}
	} else if cat.db.ExportsAside() || cat.eager.madeAll(listed) {
		// On a connection of its own, or on the index's one that render
		// no longer reads (every skill's files made at its parse).
		ectx, cancel := context.WithCancel(ctx)
		defer func() { cancel(); <-exportDone }()
		go func() {
			defer close(exportDone)
			exported = o.exportCatalog(ectx, cat, catalogKey)
		}()
		afterReads = func() {}
	} else {
		close(exportDone)
	}
	err = render(ctx, cfg, cat, listed, counts, o, keys, afterReads)
	if cerr := cat.committed(ctx, res); cerr != nil {
		return res, cerr // what render read may be an index rolled back
	}
	if err == nil {
		<-exportDone
		res.FeedRestarted = cat.feedRestarted
	}
	if err != nil {
		var pe *fs.PathError
		if cache != nil && ctx.Err() == nil && !errors.As(err, &pe) && !templateFault(err) && !errors.Is(err, ErrPreviousFeed) {
			return res, fmt.Errorf("%w: render: %v", errCache, err) // rendering what the cache gave failed
		}
		return res, fmt.Errorf("render: %w", ctxErr(ctx, err))
	}
	if exported != nil {
		return res, fmt.Errorf("write %s: %w", cfg.Out, ctxErr(ctx, exported))
	}
	res.timed("render and write", &mark)
	res.Phases = append(res.Phases, Phase{"  of which search", cat.searchTime})
	if err := o.finish(ctx, cat, catalogKey); err != nil {
		return res, fmt.Errorf("write %s: %w", cfg.Out, ctxErr(ctx, err))
	}
	res.timed("export and swap", &mark)
	res.Files = o.written
	// The site is measured (a pass over every file's record) beside the
	// cache's update, which only reads the same records.
	measured := make(chan OutputStats, 1)
	go func() { measured <- statOutput(o.records.all()) }()
	if cache != nil {
		if err := recordBuild(ctx, cache, o, keys, cat, res); err != nil {
			cache.Rollback() // the site is built; the next build starts cold
		}
	}
	res.Output = <-measured
	res.HostWarnings = hostWarnings(cfg, cat.site, res.Output)
	return res, nil
}

// templateFault reports whether err is a template's own: one failing to
// parse or to execute, or html/template refusing to escape it. A cold
// build fails the same way, so the rebuild cache is not to blame.
func templateFault(err error) bool {
	var exec template.ExecError
	var escape *htmltemplate.Error
	var parse parseError
	return errors.As(err, &exec) || errors.As(err, &escape) || errors.As(err, &parse)
}

// errCache marks a failure to use what the rebuild cache gave; the build
// is then run again without it.
var errCache = errors.New("rebuild cache unreadable")

// ctxErr returns the context's error once it is done, and err otherwise:
// work cut short reports that it was, not a symptom such as a rolled-back
// transaction.
func ctxErr(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	return err
}

func checkConfig(cfg *Config) error {
	if _, ok := LookupHost(cfg.Host); cfg.Host != "" && !ok {
		return fmt.Errorf("%w: --host %q: unknown host; one of %s", ErrConfig, cfg.Host, HostNames())
	}
	if strings.TrimSpace(cfg.Out) == "" {
		return fmt.Errorf("%w: --out is empty; name the output folder, such as public", ErrConfig)
	}
	if !cfg.Time.IsZero() && (cfg.Time.Year() > 9999 || cfg.Time.Before(time.Unix(0, 0))) {
		return fmt.Errorf("%w: the build date %d (SOURCE_DATE_EPOCH) is outside 1970 to 9999, which dates in the output can express", ErrConfig, cfg.Time.Unix())
	}
	if _, holds := outputWithin(*cfg); holds {
		return fmt.Errorf("%w: --out %q would replace the content directory %q, which it contains; choose an output folder outside it", ErrConfig, cfg.Out, cfg.ContentPath)
	}
	if cfg.Cache != "" && inside(realPath(cfg.Out), realPath(cfg.Cache)) {
		return fmt.Errorf("%w: --cache %q lies inside the output %q, which each build replaces whole, and a host would serve it, private skills and all; keep it outside (by default it is .cache/skillcat/ beside the output)", ErrConfig, cfg.Cache, cfg.Out)
	}
	if cfg.Cache != "" && cfg.ContentPath != "" && readAsSource(realPath(cfg.ContentPath), realPath(cfg.Cache)) {
		return fmt.Errorf("%w: --cache %q lies inside the content directory %q with a source's name, so the next build would read it as a skill source; keep it outside (by default it is .cache/skillcat/ beside the output)", ErrConfig, cfg.Cache, cfg.ContentPath)
	}
	if info, err := os.Lstat(cfg.Out); err == nil && info.Mode()&os.ModeSymlink != 0 {
		// Replace the folder the link points to; the link stays.
		real, err := filepath.EvalSymlinks(cfg.Out)
		if err != nil {
			return fmt.Errorf("%w: --out %q is a broken symbolic link", ErrConfig, cfg.Out)
		}
		cfg.Out = real
	}
	for dir := filepath.Clean(cfg.Out); ; dir = filepath.Dir(dir) {
		if info, err := os.Stat(dir); err == nil && !info.IsDir() {
			return fmt.Errorf("%w: --out %q: %q is a file, not a folder; name a folder for the site", ErrConfig, cfg.Out, dir)
		} else if err == nil || filepath.Dir(dir) == dir {
			break
		}
	}
	if foreign(cfg.Out) {
		return fmt.Errorf("%w: --out %q already holds files that are not a skillcat site (no %s), and a build replaces the folder whole; choose a new or empty folder", ErrConfig, cfg.Out, routes{}.index())
	}
	if cfg.BaseURL == "" {
		return nil
	}
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || u.User != nil {
		shown := cfg.BaseURL
		if err == nil && u.User != nil {
			shown = u.Redacted() // a password must not reach the log
		}
		return fmt.Errorf("%w: --base-url %q: must be an absolute http or https URL such as https://skills.example.com/, without user, query or fragment", ErrConfig, shown)
	}
	if u.Path != "" {
		u.Path = path.Clean(u.Path) // no "." or ".." segments in published URLs
		u.RawPath = ""
	}
	cfg.BaseURL = u.String() // escaped: every URL made from it is a valid URI
	if !strings.HasSuffix(cfg.BaseURL, "/") {
		cfg.BaseURL += "/"
	}
	return nil
}

// foreign reports whether the folder out exists, is not empty and is not a
// site skillcat built: replacing it would destroy someone's files.
func foreign(out string) bool {
	entries, err := os.ReadDir(out)
	if err != nil || len(entries) == 0 {
		return false
	}
	return !routes{}.isBuiltSite(os.DirFS(out), ".")
}

// readAsSource reports whether the file at path, inside the content
// directory content, would be read as a skill source by the source rule.
func readAsSource(content, path string) bool {
	if !inside(content, path) {
		return false
	}
	rel, err := filepath.Rel(content, path)
	return err == nil && isSourcePath(filepath.ToSlash(rel))
}

// outputWithin places cfg.Out against the content directory cfg.ContentPath:
// rel is Out's slash-separated path inside the content directory ("" when
// it is not inside), and holds reports whether Out is the content directory
// or one of its parents, which the swap would delete.
func outputWithin(cfg Config) (rel string, holds bool) {
	if cfg.ContentPath == "" || cfg.Out == "" {
		return "", false
	}
	content, out := realPath(cfg.ContentPath), realPath(cfg.Out)
	outside := func(r string) bool { return r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) }
	r, err := filepath.Rel(content, out)
	switch {
	case err != nil:
		return "", false
	case r == ".":
		return "", true
	case outside(r):
		back, err := filepath.Rel(out, content)
		return "", err == nil && !outside(back)
	}
	return filepath.ToSlash(r), false
}

// inside reports whether path p is dir or lies under it (both cleaned and
// absolute).
func inside(dir, p string) bool {
	r, err := filepath.Rel(dir, p)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator))
}

// realPath returns p absolute, with the symbolic links of the part of it
// that exists resolved.
func realPath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	rest := ""
	for cur := abs; ; {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return abs
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// readSourcesAside starts reading cfg's sources (readSources) on a
// goroutine of its own and returns a function that waits for them.
func readSourcesAside(cfg Config) func() ([]SourceFile, skillcat.Violations) {
	var files []SourceFile
	var vs skillcat.Violations
	done := make(chan struct{})
	go func() {
		skip, _ := outputWithin(cfg)
		files, vs = readSources(cfg.Content, sourceName(cfg), skip)
		if cfg.Sized != nil {
			cfg.Sized(len(files))
		}
		close(done)
	}()
	return func() ([]SourceFile, skillcat.Violations) {
		<-done
		return files, vs
	}
}

// catalog is what the render phase reads: the index in SQLite and the
// site's settings.
type catalog struct {
	db      *store.DB // in an anonymous temporary file
	site    Site
	sources []SourceFile
	// withheld are the ids of the private skills, which the change feed
	// must not name; feedRestarted is set by render when the feed began a
	// new history for that.
	withheld      map[string]bool
	feedRestarted bool
	// searchTime is how long render spent on the search index.
	searchTime time.Duration
	// cache is the rebuild cache, or nil: render takes from it what it
	// keeps of each skill (its search tokens).
	cache *store.CacheTx
	// listing is the index's listing as the load kept it, or nil when it
	// is to be read from the index (ListedEntries).
	listing []store.Row
	// reparsed are the ids of the listed skills whose sources a rebuild
	// parsed (indexer.reparsed).
	reparsed []string
	// eager is what the load made of each listed skill as it parsed it,
	// or nil (a build with a cache).
	eager *eagerRun
	// indexed waits for the end of the index's commit, which goes on
	// beside render's start in a build without a cache (indexer.finish),
	// and returns its error; nil once waited for, or when there is none.
	indexed func() error
}

// committed waits for the index's commit, which may go on after the load
// (indexer.finish): render's reads of the index wait for it anyway (the
// index's one connection is the load's until then), but only this says
// that it failed. A failure is the run's, as any of the load's: res then
// counts no skill published or withheld.
func (c *catalog) committed(ctx context.Context, res *Result) error {
	if c.indexed == nil {
		return nil
	}
	err := c.indexed()
	c.indexed = nil
	if err != nil {
		res.Published, res.Private = 0, 0
		return fmt.Errorf("index: %w", ctxErr(ctx, err))
	}
	return nil
}

func (c *catalog) close() {
	c.eager.close()
	if c.indexed != nil {
		c.indexed() // the commit ends before the index closes
	}
	c.db.Close()
}

// load runs read → parse → index and fails with every violation; sources,
// when not nil, gives the sources as this build read them. Without
// a cache the index is an anonymous temporary SQLite file
// (store.OpenTemp), so a large catalog is not held in memory and nothing
// of it outlives the build; with one, it is the index the cache keeps
// (store.CacheTx.Index), brought up to date with the sources that changed
// (updateIndex).
//
// With o (nothing of a previous build is taken from its output), each
// listed skill's own files are made into o as soon as its source is
// parsed (eagerRun), with or without a cache; its pages are made with
// keys.
func load(ctx context.Context, cfg Config, cache *store.CacheTx, sources func() ([]SourceFile, skillcat.Violations), o *output, keys buildKeys) (*catalog, *Result, error) {
	res := &Result{}
	mark := time.Now()
	display := sourceName(cfg)
	if sources == nil {
		sources = readSourcesAside(cfg)
	}
	files, vs := sources()
	res.Sources = len(files)
	for _, v := range vs {
		if v.Severity == skillcat.SeverityError {
			res.Sources++ // a source that cannot be read
		}
	}
	if res.Sources == 0 {
		vs = append(vs, skillcat.Violation{File: display("."), Field: skillcat.FileField, Severity: skillcat.SeverityWarning,
			Reason: "no skill sources found: add *.json or *.md files (names starting with _ or . are skipped)"})
	}
	res.timed("read", &mark)
	site, svs := readSite(cfg.Content, display)
	vs = append(vs, svs...)
	vs = append(vs, site.checkLogo(display(SiteFile), templateFS(cfg))...)

	cat := &catalog{site: site}
	if cache != nil {
		// Only the cache's record needs the sources after the load: a
		// large catalog's list (~17 MB at 100,000) is not carried
		// through render otherwise.
		cat.sources = files
	}
	var err error
	if cache != nil {
		cat.db = cache.Index() // kept in the cache, brought up to date below
	} else if cat.db, err = store.OpenTemp(ctx); err != nil {
		return nil, res, fmt.Errorf("index: %w", ctxErr(ctx, err))
	}
	fail := func(err error) (*catalog, *Result, error) {
		cat.close()
		res.Published, res.Private = 0, 0
		return nil, res, err
	}
	if o != nil {
		if cat.eager, err = newEagerRun(ctx, cfg, site, o, keys); err != nil {
			return fail(fmt.Errorf("write %s: %w", cfg.Out, err))
		}
		if cat.eager != nil && cache == nil {
			// Each listed skill's descriptor is in the new tree before
			// its row is added: the temporary index keeps none of them.
			// The cache's keeps them, for the rebuilds to come.
			cat.db.KeepDescriptorsAside(cat.eager.descriptor)
		}
	}
	x, err := newIndexer(ctx, cat.db, newRoutes(cfg.BaseURL))
	if err != nil {
		return fail(fmt.Errorf("index: %w", ctxErr(ctx, err)))
	}
	defer x.close()
	if cache != nil {
		err = updateIndex(ctx, cfg, files, display, cache, x, cat.eager)
	} else {
		err = parseSources(ctx, cfg.Content, files, display, cfg.Workers, nil, x, cat.eager)
	}
	if errors.Is(err, errDuplicate) {
		// Some source claims an id another holds: the build fails. Its
		// violations are a cold load's, which decides by source order
		// which of the claimants is the duplicate.
		x.close()
		cat.close()
		cold, res, err := load(ctx, cfg, nil, nil, nil, buildKeys{})
		if err == nil {
			cold.close()
			return nil, res, fmt.Errorf("%w: the kept index found a duplicate id that the sources do not hold", errCache)
		}
		return nil, res, err
	}
	if err != nil {
		return fail(fmt.Errorf("parse and index: %w", ctxErr(ctx, err)))
	}
	pvs, committed, err := x.finish()
	if err != nil {
		return fail(fmt.Errorf("index: %w", ctxErr(ctx, err)))
	}
	cat.indexed = committed
	res.timed("parse and index", &mark)
	vs = append(vs, pvs...)
	res.Published, res.Private, res.Parsed = x.listed, x.private, x.parsed
	res.PrivateSources = map[string]bool{}
	cat.withheld = map[string]bool{}
	for _, src := range x.sources {
		if !src.listed {
			res.PrivateSources[src.display] = true
			cat.withheld[src.id] = true
		}
	}
	if cfg.Strict {
		for i := range vs {
			vs[i].Severity = skillcat.SeverityError
		}
	}
	vs.Sort()
	if vs.HasErrors() {
		return fail(&InvalidError{Violations: vs})
	}
	if cat.eager != nil {
		if err := cat.eager.finish(); err != nil {
			return fail(fmt.Errorf("render: %w", ctxErr(ctx, err)))
		}
	}
	res.Warnings = vs
	cat.listing, cat.reparsed = x.listing, x.reparsed
	return cat, res, nil
}
