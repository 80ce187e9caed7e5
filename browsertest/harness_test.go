// Package browsertest proves the catalog's pages in a real browser: it builds
// a catalog with build.Build, serves it from 127.0.0.1 with the production
// Content-Security-Policy, and drives headless Chromium through chromedp.
// It also runs the Nu HTML Checker over every page and axe-core inside each
// page.
//
// The tools come from outside Go: Debian's chromium, java, and the npm
// packages in package.json (vnu-jar, axe-core; `npm ci` here). .ci/browser-deps
// installs all of them. When one is missing a test fails if the environment
// variable CI is set, and skips with a loud message otherwise.
//
// Screenshots go to testdata/artifacts/ (git-ignored) or $SKILLCAT_ARTIFACTS.
package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/build"
)

// tmpRoot holds the sites built for the whole run.
var tmpRoot string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "skillcat-browsertest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	tmpRoot = dir
	code := m.Run()
	stopBrowser()
	os.RemoveAll(dir)
	os.Exit(code)
}

// missing reports a tool the test needs and does not have: a failure on CI,
// a loud skip elsewhere.
func missing(t *testing.T, what, install string) {
	t.Helper()
	msg := fmt.Sprintf("\n\n    *** %s is not available: %s ***\n    Install it with: %s\n    (or run: bash .ci/browser-deps)\n", what, "this test cannot run", install)
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// chromePath finds Chromium: $SKILLCAT_CHROME, or one of the usual names.
func chromePath() string {
	if p := os.Getenv("SKILLCAT_CHROME"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// A site is a built catalog served over HTTP on 127.0.0.1.
type site struct {
	Dir    string // the output directory
	URL    string // the server's origin with a trailing slash: http://127.0.0.1:PORT/
	Origin string // http://127.0.0.1:PORT
	Index  skillcat.SkillIndex
}

var (
	sitesMu sync.Mutex
	sites   = map[string]*site{}
)

// builtSite builds the content directory (relative to this package) once
// per run and serves it; csp says whether responses carry the production
// Content-Security-Policy.
func builtSite(t *testing.T, content string, csp bool) *site {
	t.Helper()
	key := fmt.Sprint(content, csp)
	sitesMu.Lock()
	defer sitesMu.Unlock()
	if s, ok := sites[key]; ok {
		return s
	}
	out := filepath.Join(tmpRoot, strings.NewReplacer("/", "_", ".", "_").Replace(key))
	_, err := build.Build(context.Background(), build.Config{
		Content:      os.DirFS(content),
		ContentLabel: content,
		ContentPath:  content,
		Out:          out,
	})
	if err != nil {
		t.Fatalf("build %s: %v", content, err)
	}
	s := &site{Dir: out}
	readJSON(t, filepath.Join(out, ".well-known", "skills.json"), &s.Index)
	srv := httptest.NewServer(siteHandler(out, csp))
	// The server lives for the whole run; TestMain's exit ends it.
	s.Origin = srv.URL
	s.URL = srv.URL + "/"
	sites[key] = s
	return s
}

func readJSON(t *testing.T, name string, v any) {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// siteHandler serves a built site as a static host does: index.html for a
// directory, 404.html with status 404 for anything missing, and the
// production security headers.
func siteHandler(dir string, csp bool) http.Handler {
	files := http.FileServer(http.Dir(dir))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if csp {
			w.Header().Set("Content-Security-Policy", build.ContentSecurityPolicy)
		}
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Cache-Control", "no-store")
		name := filepath.Join(dir, filepath.FromSlash(r.URL.Path))
		if strings.HasSuffix(r.URL.Path, "/") {
			name = filepath.Join(name, "index.html")
		}
		if _, err := os.Stat(name); err != nil {
			data, err := os.ReadFile(filepath.Join(dir, "404.html"))
			if err != nil {
				http.Error(w, "not found", http.StatusNotFound)
				return
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(http.StatusNotFound)
			w.Write(data)
			return
		}
		if strings.HasSuffix(name, ".json") {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
		}
		files.ServeHTTP(w, r)
	})
}

// pages lists every HTML page of a built site as URL paths ("", "skills/x/",
// "types/api/"), sorted.
func (s *site) pages(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(s.Dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "index.html" {
			return err
		}
		rel, _ := filepath.Rel(s.Dir, filepath.Dir(p))
		if rel == "." {
			out = append(out, "")
		} else {
			out = append(out, filepath.ToSlash(rel)+"/")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// The browser is started once and shared; each test opens its own tabs.
var (
	browserOnce   sync.Once
	browserCtx    context.Context
	browserCancel context.CancelFunc
	browserErr    error
)

func stopBrowser() {
	if browserCancel != nil {
		browserCancel()
	}
}

// newTab opens a tab in the shared headless Chromium, sized 1280×900 in the
// light color scheme. The tab closes when the test ends.
func newTab(t *testing.T) context.Context {
	t.Helper()
	exe := chromePath()
	if exe == "" {
		missing(t, "Chromium", "apt-get update && apt-get install -y chromium")
	}
	browserOnce.Do(func() {
		opts := append(chromedp.DefaultExecAllocatorOptions[:],
			chromedp.ExecPath(exe),
			chromedp.Headless,
			chromedp.NoSandbox,
			chromedp.DisableGPU,
			chromedp.NoFirstRun,
			chromedp.UserDataDir(filepath.Join(tmpRoot, "chromium-profile")),
			chromedp.WindowSize(1280, 900),
			// Without these Chromium reaches for the network on its own.
			chromedp.Flag("disable-quic", true),
			chromedp.Flag("disable-background-networking", true),
			chromedp.Flag("disable-component-update", true),
			chromedp.Flag("disable-sync", true),
			chromedp.Flag("disable-domain-reliability", true),
			chromedp.Flag("no-pings", true),
			chromedp.Flag("hide-scrollbars", true),
			chromedp.Flag("font-render-hinting", "none"),
		)
		allocCtx, allocCancel := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancel := chromedp.NewContext(allocCtx)
		browserCtx = ctx
		browserCancel = func() { cancel(); allocCancel() }
		browserErr = chromedp.Do(ctx)
	})
	if browserErr != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("start Chromium (%s): %v", exe, browserErr)
		}
		t.Skipf("\n\n    *** cannot start Chromium (%s): %v ***\n    Install it with: apt-get update && apt-get install -y chromium\n    (or run: bash .ci/browser-deps)\n", exe, browserErr)
	}
	tab, cancel := chromedp.NewContext(browserCtx)
	t.Cleanup(cancel)
	if err := chromedp.Do(tab); err != nil {
		t.Fatalf("open tab: %v", err)
	}
	ctx, cancelTimeout := context.WithTimeout(tab, 90*time.Second)
	t.Cleanup(cancelTimeout)
	return ctx
}

// scheme emulates prefers-color-scheme: "light" or "dark".
func scheme(s string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: s}},
		})
		return err
	})
}

// viewport sets the tab's size in CSS pixels.
func viewport(w, h int64) chromedp.Action[chromedp.Void] {
	return chromedp.EmulateViewport(w, h)
}

// do runs actions and fails the test on error.
func do(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

// eval evaluates a JavaScript expression (promises awaited) and decodes its
// value.
func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, func(p *runtime.EvaluateParams) {
		p.AwaitPromise = new(true)
	}))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// waitFor polls a JavaScript expression until it is truthy. A page that
// is still replacing its document (the old JavaScript context gone, the new
// one not there yet, or the poll cut off by the navigation: "Inspected
// target navigated or closed") is waited for too.
func waitFor(t *testing.T, ctx context.Context, expr string) {
	t.Helper()
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for {
		_, err := chromedp.Run(pctx, chromedp.Poll[bool](expr))
		if err == nil {
			return
		}
		if !navigating(err) || pctx.Err() != nil {
			t.Fatalf("waiting for %s: %v", expr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// navigating reports whether err is a poll's failure because its page was
// replacing its document, not because the expression failed.
func navigating(err error) bool {
	return strings.Contains(err.Error(), "Cannot find context") || strings.Contains(err.Error(), "Inspected target navigated or closed")
}

// load navigates and waits until the page's script has set itself up (on
// the home page: the search index is loaded).
func load(t *testing.T, ctx context.Context, u string) {
	t.Helper()
	do(t, ctx, chromedp.Navigate(u))
	waitFor(t, ctx, `document.readyState === "complete" && document.body !== null`)
	waitFor(t, ctx, `!document.body.classList.contains("page-home") || document.documentElement.hasAttribute("data-search")`)
}

// A watcher collects what should never happen on a page: console errors
// and warnings (CSP violations among them), uncaught exceptions, failed
// requests, error responses and requests leaving the site's origin.
type watcher struct {
	origin string
	mu     sync.Mutex
	seen   []string // every request URL
	probs  []string
	allow  func(problem string) bool
}

func watch(t *testing.T, ctx context.Context, origin string) *watcher {
	t.Helper()
	w := &watcher{origin: origin}
	err := chromedp.Listen(ctx, func(ev any) {
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				var args []string
				for _, a := range ev.Args {
					if len(a.Value) > 0 {
						args = append(args, string(a.Value))
					} else {
						args = append(args, a.Description)
					}
				}
				w.add("console." + string(ev.Type) + ": " + strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			w.add(fmt.Sprintf("exception at %s:%d: %s", d.URL, d.LineNumber+1, msg))
		case *log.EventEntryAdded:
			e := ev.Entry
			if e.Level == log.EntryLevelError || e.Level == log.EntryLevelWarning {
				w.add(fmt.Sprintf("log %s (%s) %s: %s", e.Level, e.Source, e.URL, e.Text))
			}
		case *network.EventRequestWillBeSent:
			u := ev.Request.URL
			w.mu.Lock()
			w.seen = append(w.seen, u)
			w.mu.Unlock()
			if !strings.HasPrefix(u, "data:") && !sameOrigin(u, w.origin) {
				w.add("off-site request: " + u)
			}
		case *network.EventLoadingFailed:
			if ev.Canceled && ev.BlockedReason == "" {
				return // a navigation away cancelled it
			}
			w.add(fmt.Sprintf("request failed: %s %s %s", ev.Type, ev.ErrorText, ev.BlockedReason))
		case *network.EventResponseReceived:
			if ev.Response.Status >= 400 {
				w.add(fmt.Sprintf("HTTP %d for %s", ev.Response.Status, ev.Response.URL))
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func sameOrigin(u, origin string) bool {
	p, err := url.Parse(u)
	if err != nil {
		return false
	}
	return p.Scheme+"://"+p.Host == origin
}

func (w *watcher) add(p string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.allow != nil && w.allow(p) {
		return
	}
	w.probs = append(w.probs, p)
}

// problems returns what went wrong since the last call, and forgets it.
func (w *watcher) problems() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	p := w.probs
	w.probs = nil
	return p
}

// requests returns every request URL seen so far.
func (w *watcher) requests() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.seen)
}

// artifactsDir is where screenshots go.
func artifactsDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("SKILLCAT_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join("..", "testdata", "artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// npmTool returns the path of a file installed by `npm ci` in this
// directory, or reports it missing.
func npmTool(t *testing.T, rel, what string) string {
	t.Helper()
	p := filepath.Join("node_modules", filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		missing(t, what, "cd browsertest && npm ci")
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}
