// Package build turns a directory of skill sources into a static catalog
// site, in phases that each hand a plain value to the next:
//
//	read      content fs.FS            → []SourceFile (path + bytes)
//	parse     []SourceFile             → []*Skill + Violations   (parallel)
//	index     []*Skill                 → SQLite (UNIQUE id finds duplicates)
//	render    SQLite queries           → []File (path + bytes)
//	write     []File                   → a fresh directory, swapped in whole
//
// Every violation of every source is collected before the build fails, and a
// failed build leaves the previous output untouched. Private skills are
// parsed, validated and indexed (so their ids stay unique) but nothing of
// them is rendered. The same sources give the same bytes; dates come only
// from Config.Time (SOURCE_DATE_EPOCH).
package build

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"path/filepath"
	"strings"
	"time"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/store"
)

// Config is everything a build needs; flags enter in cmd/ and travel here.
type Config struct {
	// Content is the content directory; ContentDir is its name for messages
	// ("content"), joined with each source path. When ContentDir is the
	// directory's path, as on the command line, Build refuses an Out that
	// is or holds it, and skips an Out inside it when reading sources.
	Content    fs.FS
	ContentDir string
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
	// Dev adds the live-reload script to every page (skillcat serve only).
	Dev bool
}

// Result summarizes a build or validation run.
type Result struct {
	Sources   int                 // skill sources read
	Published int                 // skills listed in the index
	Private   int                 // valid private skills withheld
	Files     int                 // files written
	Warnings  skillcat.Violations // warnings that did not fail the run
	Duration  time.Duration
	Phases    []Phase // how long each phase took, in order
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

// Unwrap returns ErrInvalidContent.
func (e *InvalidError) Unwrap() error { return ErrInvalidContent }

// Validate reads, parses and indexes the content without writing anything.
// It returns every violation; the error is an *InvalidError when the
// content is invalid.
func Validate(ctx context.Context, cfg Config) (*Result, error) {
	start := time.Now()
	cat, res, err := load(ctx, cfg)
	if cat != nil {
		cat.db.Close()
	}
	res.Duration = time.Since(start)
	return res, err
}

// Build runs every phase and replaces cfg.Out with the new site. On any
// error the previous output is left as it was.
func Build(ctx context.Context, cfg Config) (*Result, error) {
	start := time.Now()
	if err := checkConfig(&cfg); err != nil {
		return &Result{}, err
	}
	cat, res, err := load(ctx, cfg)
	if err != nil {
		return res, err
	}
	defer cat.db.Close()
	mark := time.Now()
	files, err := render(ctx, cfg, cat)
	if err != nil {
		return res, fmt.Errorf("render: %w", ctxErr(ctx, err))
	}
	res.timed("render", &mark)
	n, err := write(ctx, cfg, cat, files, res)
	if err != nil {
		return res, fmt.Errorf("write %s: %w", cfg.Out, ctxErr(ctx, err))
	}
	res.Files = n
	res.Duration = time.Since(start)
	return res, nil
}

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
	if _, holds := outputWithin(*cfg); holds {
		return fmt.Errorf("%w: --out %q would replace the content directory %q; choose an output folder outside it", ErrConfig, cfg.Out, cfg.ContentDir)
	}
	if cfg.BaseURL == "" {
		return nil
	}
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || u.User != nil {
		return fmt.Errorf("%w: --base-url %q: must be an absolute http or https URL such as https://skills.example.com/, without user, query or fragment", ErrConfig, cfg.BaseURL)
	}
	cfg.BaseURL = u.String() // escaped: every URL made from it is a valid URI
	if !strings.HasSuffix(cfg.BaseURL, "/") {
		cfg.BaseURL += "/"
	}
	return nil
}

// outputWithin places cfg.Out against the content directory cfg.ContentDir:
// rel is Out's slash-separated path inside the content directory ("" when
// it is not inside), and holds reports whether Out is the content directory
// or one of its parents, which the swap would delete.
func outputWithin(cfg Config) (rel string, holds bool) {
	if cfg.ContentDir == "" || cfg.Out == "" {
		return "", false
	}
	content, out := realPath(cfg.ContentDir), realPath(cfg.Out)
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

// catalog is what the render phase reads: the index in SQLite, the valid
// skills by id, and the site's settings.
type catalog struct {
	db     *store.DB
	skills map[string]*Skill
	site   Site
}

// load runs read → parse → index and fails with every violation.
func load(ctx context.Context, cfg Config) (*catalog, *Result, error) {
	res := &Result{}
	mark := time.Now()
	display := func(p string) string {
		if cfg.ContentDir == "" {
			return p
		}
		return filepath.ToSlash(path.Join(filepath.ToSlash(cfg.ContentDir), p))
	}
	skip, _ := outputWithin(cfg)
	files, vs := readSources(cfg.Content, display, skip)
	res.Sources = len(files) + len(vs)
	res.timed("read", &mark)
	site, svs := readSite(cfg.Content, display)
	vs = append(vs, svs...)
	skills, pvs := parseSources(files, display, cfg.Workers)
	vs = append(vs, pvs...)
	res.timed("parse", &mark)
	if err := ctx.Err(); err != nil {
		return nil, res, err
	}
	db, err := store.Open(ctx, ":memory:")
	if err != nil {
		return nil, res, fmt.Errorf("index: %w", ctxErr(ctx, err))
	}
	rows := make([]store.Skill, len(skills))
	byID := make(map[string]*Skill, len(skills))
	bySource := make(map[string]*Skill, len(skills))
	for i, s := range skills {
		rows[i] = s.row()
		bySource[s.Source] = s
	}
	dups, err := db.Load(ctx, rows)
	if err != nil {
		db.Close()
		return nil, res, fmt.Errorf("index: %w", ctxErr(ctx, err))
	}
	res.timed("index", &mark)
	for _, d := range dups {
		s := bySource[d.Source]
		vs = append(vs, skillcat.Violation{
			File: s.Display, Line: s.IDLine, Column: s.IDColumn, Pointer: "/id", Field: "id",
			Reason:   fmt.Sprintf("id %q is already used by %s; ids must be unique", d.ID, display(d.Other)),
			Severity: skillcat.SeverityError,
		})
	}
	for _, s := range skills {
		if _, dup := byID[s.Descriptor.ID]; !dup {
			byID[s.Descriptor.ID] = s
		}
		if s.Descriptor.Access == skillcat.Private {
			res.Private++
		} else {
			res.Published++
		}
	}
	if cfg.Strict {
		for i := range vs {
			vs[i].Severity = skillcat.SeverityError
		}
	}
	vs.Sort()
	if vs.HasErrors() {
		db.Close()
		res.Published, res.Private = 0, 0
		return nil, res, &InvalidError{Violations: vs}
	}
	res.Warnings = vs
	return &catalog{db: db, skills: byID, site: site}, res, nil
}
