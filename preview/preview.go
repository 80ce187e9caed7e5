// Package preview serves a live preview of a catalog while its author edits
// it: the site is built with live reload into a private temporary directory
// (never the deploy output), served over HTTP, and rebuilt whenever a
// watched directory changes.
//
// # Builds
//
// Every build goes into a fresh generation directory under the server's
// temporary directory; a successful build becomes the one served and the
// previous generation is removed. A failed build changes nothing that is
// served except HTML: while the content is broken, every HTML response is
// replaced by an error page (status 500, problems.go) that lists every
// error and warning, each linked to an entry quoting its source lines with
// the column marked, and JSON documents, scripts and styles stay those of
// the last good build. A good build's warnings are at ProblemsPath, and
// pages show a link to them (livereload.js asks StatusPath).
//
// # Watching
//
// The watched directories are polled (Config.Interval, 300 ms by default)
// for a fingerprint of every path below them, new folders included, and of
// each file's size, mode and modification time; names beginning with "."
// (version control, editor swap files) are left out, as the build leaves
// them out. A change starts a rebuild once the fingerprint
// has stayed the same for one more interval, so an editor's burst of
// writes gives one build. Polling needs no platform support and no
// dependency, and costs one stat per file per interval.
//
// # Live reload
//
// Pages built with build.Config.Dev load assets/livereload.js, which opens
// an EventSource on EventsPath; after every build, good or failed, the
// server sends each open page an event named "reload".
//
// # Serving
//
// Paths are served as a static host would serve the output: a directory
// serves its index.html (a directory path without its trailing slash is
// redirected to it), an unknown path serves 404.html with status 404, and
// JSON documents carry "Content-Type: application/json; charset=utf-8" and
// "Access-Control-Allow-Origin: *". The headers the build writes to
// _headers (Netlify and Cloudflare Pages syntax) are applied too, so a
// page that breaks the production Content-Security-Policy breaks in the
// preview as well; _headers itself is not served. Nothing is cached.
//
// # Mock endpoints
//
// With Config.Mock, package mock answers invocations of every listed skill
// under mock.MountPath (/_mock/skills/<id>), and the JSON documents served
// point there: each descriptor's endpoint.url is rewritten, and the digests
// of the indexes listing it are those of the rewritten bytes, so a consumer
// discovers, verifies and invokes the local catalog as a deployed one.
package preview

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/build"
)

// EventsPath is the URL path of the Server-Sent Events stream that tells
// open pages to reload.
const EventsPath = "/_skillcat/events"

// DefaultInterval is how often the watched directories are polled when
// Config.Interval is zero.
const DefaultInterval = 300 * time.Millisecond

// Config is what a preview server builds, watches and reports to.
type Config struct {
	// Build is the build's configuration. Out is ignored (the server
	// builds into its own temporary directory) and Dev is always set.
	Build build.Config
	// Watch lists the directories whose changes start a rebuild: the
	// content directory and, when set, the templates directory.
	Watch []string
	// Interval is how often Watch is polled; zero means DefaultInterval.
	Interval time.Duration
	// TempDir is where the server's temporary directory is made; empty
	// means os.TempDir().
	TempDir string
	// OnBuild, when set, is called after every build with its outcome,
	// from one goroutine at a time.
	OnBuild func(Report)
	// Mock serves a mock endpoint of every listed skill under
	// mock.MountPath and points the served descriptors at it (see mock.go).
	Mock bool
}

// Report is the outcome of one build.
type Report struct {
	// Result is the build's summary; never nil.
	Result *build.Result
	// Err is nil for a good build, a *build.InvalidError when the content
	// is invalid, or another error (a template that does not parse, a
	// file that cannot be written).
	Err error
	// Recovered is true for a good build that follows a failed one.
	Recovered bool
}

// Server builds, watches and serves one catalog. Its zero value is not
// usable; call New.
type Server struct {
	cfg      Config
	root     string // the private temporary directory
	instance string // tells this server's event ids from a previous one's
	gen      int    // builds attempted; names the next generation directory
	seen     uint64 // the fingerprint of the watched files the last build read

	mu    sync.RWMutex
	site  string              // the directory of the last good build, or ""
	fail  *Report             // the last build's failure, or nil
	warns skillcat.Violations // the warnings of the build served
	built int                 // the last build that was published
	subs  map[chan string]struct{}
	done  chan struct{} // closed when the server stops
	close sync.Once

	mock http.Handler // the mock endpoint, with Config.Mock
}

// New makes the server's temporary directory. Call Run to build, watch and
// serve, or Close to remove the directory without serving.
func New(cfg Config) (*Server, error) {
	if cfg.Interval <= 0 {
		cfg.Interval = DefaultInterval
	}
	cfg.Build.Dev = true
	root, err := os.MkdirTemp(cfg.TempDir, "skillcat-serve-")
	if err != nil {
		return nil, fmt.Errorf("make preview directory: %w", err)
	}
	var id [4]byte
	rand.Read(id[:])
	s := &Server{
		cfg: cfg, root: root, instance: hex.EncodeToString(id[:]),
		subs: map[chan string]struct{}{}, done: make(chan struct{}),
	}
	if cfg.Mock {
		s.mock = s.newMock()
	}
	return s, nil
}

// Dir returns the server's private temporary directory, which Run and
// Close remove.
func (s *Server) Dir() string { return s.root }

// Build builds the site once into a new generation directory and, when it
// succeeds, serves it; either way Config.OnBuild hears of it, and then
// open pages are told to reload. A build cut short by ctx changes nothing and
// is not reported. Build is not safe for concurrent use; Run calls it from
// one goroutine.
func (s *Server) Build(ctx context.Context) Report {
	s.gen++
	// Taken before reading, so that an edit made during the build starts
	// another one.
	s.seen = fingerprint(s.cfg.Watch)
	cfg := s.cfg.Build
	cfg.Out = filepath.Join(s.root, "site-"+strconv.Itoa(s.gen))
	res, err := build.Build(ctx, cfg)
	if res == nil {
		res = &build.Result{}
	}
	rep := Report{Result: res, Err: err}
	if ctx.Err() != nil {
		os.RemoveAll(cfg.Out)
		return rep
	}
	s.mu.Lock()
	old := s.site
	if err == nil {
		rep.Recovered = s.fail != nil
		s.site, s.fail, s.warns = cfg.Out, nil, res.Warnings
	} else {
		s.fail = &rep
	}
	s.mu.Unlock()
	if err == nil && old != "" {
		// A request still reading the old generation keeps its open file
		// on Unix; elsewhere what cannot be removed now goes with Close.
		os.RemoveAll(old)
	}
	// Report first, then tell the pages: whoever sees a page reload can
	// read the build's report already.
	if s.cfg.OnBuild != nil {
		s.cfg.OnBuild(rep)
	}
	s.publish(s.gen)
	return rep
}

// Run serves the site on ln and rebuilds it on every change until ctx is
// done; then it stops the HTTP server gracefully, ends the event streams
// and removes the temporary directory. It does not build first: call
// Build before Run to serve a site from the start. It returns nil after a
// clean stop.
func (s *Server) Run(ctx context.Context, ln net.Listener) (err error) {
	defer func() {
		if cerr := s.Close(); err == nil {
			err = cerr
		}
	}()
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		s.watch(ctx)
	}()

	select {
	case <-ctx.Done():
	case err = <-served:
		err = fmt.Errorf("serve: %w", err)
	}
	s.stop()
	shutCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if serr := srv.Shutdown(shutCtx); serr != nil && err == nil {
		err = fmt.Errorf("shut down: %w", serr)
	}
	<-watched
	if err == nil {
		if serr := <-served; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
			err = fmt.Errorf("serve: %w", serr)
		}
	}
	return err
}

// stop ends the event streams and the watcher.
func (s *Server) stop() {
	s.close.Do(func() { close(s.done) })
}

// Close stops the server's event streams and removes its temporary
// directory. It is safe to call more than once.
func (s *Server) Close() error {
	s.stop()
	s.mu.Lock()
	s.site, s.fail = "", nil
	s.mu.Unlock()
	if err := os.RemoveAll(s.root); err != nil {
		return fmt.Errorf("remove preview directory: %w", err)
	}
	return nil
}

// watch polls the watched directories and rebuilds after each change has
// settled, until ctx is done or the server stops. It compares with the
// fingerprint the last Build took, so an edit made between that build
// and the first poll is not missed.
func (s *Server) watch(ctx context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-s.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	t := time.NewTicker(s.cfg.Interval)
	defer t.Stop()
	prev := s.seen
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		// Build when the files differ from what the last build read and
		// have stayed the same since the previous poll.
		fp := fingerprint(s.cfg.Watch)
		if fp != s.seen && fp == prev {
			s.Build(ctx)
		}
		prev = fp
	}
}

// state is what one request is served from.
type state struct {
	site string  // the last good build's directory, or ""
	fail *Report // the current failure, or nil

	warnings skillcat.Violations // the warnings of the build served
}

func (s *Server) current() state {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return state{site: s.site, fail: s.fail, warnings: s.warns}
}

// subscribe registers an event stream. It returns the event id of the
// last build, and a channel that receives the event id of each build
// after it.
func (s *Server) subscribe() (chan string, string) {
	ch := make(chan string, 1)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.subs[ch] = struct{}{}
	return ch, s.eventID(s.built)
}

// eventID names build gen in the event stream. A browser sends the last
// id it saw when it reconnects, so a page that saw another server's (or an
// older build's) id is told to reload at once.
func (s *Server) eventID(gen int) string { return s.instance + "-" + strconv.Itoa(gen) }

func (s *Server) unsubscribe(ch chan string) {
	s.mu.Lock()
	delete(s.subs, ch)
	s.mu.Unlock()
}

// publish tells every event stream that build gen is done. A stream that
// has not yet sent the previous event sends that one: one reload is enough.
func (s *Server) publish(gen int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.built = gen
	id := s.eventID(gen)
	for ch := range s.subs {
		select {
		case ch <- id:
		default:
		}
	}
}
