package browsertest

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/skillcat/skillcat/build"
	"github.com/skillcat/skillcat/preview"
)

// hostileBroken is a JSON source whose syntax error stands on a line full
// of markup meant to run.
const hostileBroken = `{
  "id": "evil.broken",
  "name": "<script>window.__pwned='src-name'</script>" "<img src=x onerror=window.__pwned='src-img'>",
  "x": 1
}
`

// hostileWarned is a valid Markdown source with an unknown member whose
// name is markup: a warning that quotes it.
const hostileWarned = `---
protocol: {version: "1.0.0"}
id: evil.warned
name: Warned
version: "1.0.0"
capability_type: api
provider: {name: Acme}
endpoint: {url: "https://api.acme.example/w"}
inputs: {type: object}
output: true
auth: {type: none}
access: public
"<svg onload=window.__pwned='key'>": 1
---
Warned <b>skill</b>.
`

// servePreview builds content with the preview server once and serves it
// on 127.0.0.1.
func servePreview(t *testing.T, dir string) (*preview.Server, string) {
	t.Helper()
	s, err := preview.New(preview.Config{Build: build.Config{Content: os.DirFS(dir), ContentLabel: dir, ContentPath: dir}, Watch: []string{dir}, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	s.Build(context.Background())
	srv := httptest.NewServer(s)
	// Cleanups run last first: closing the preview ends its event streams,
	// which the test server's Close waits for.
	t.Cleanup(srv.Close)
	t.Cleanup(func() { s.Close() })
	return s, srv.URL
}

// TestPreviewErrorPage loads the preview's error page for a build broken
// by hostile sources: every error and warning is listed and linked to its
// entry, each entry quotes its source with the column marked, nothing of
// the sources runs, and the page breaks no policy.
func TestPreviewErrorPage(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "broken.json"), []byte(hostileBroken), 0o644)
	os.WriteFile(filepath.Join(dir, "warned.md"), []byte(hostileWarned), 0o644)
	_, origin := servePreview(t, dir)

	ctx := newTab(t)
	w := watch(t, ctx, origin)
	// The page answers 500 on purpose.
	w.allow = func(p string) bool {
		return strings.HasPrefix(p, "HTTP 500 for "+origin+"/") || strings.Contains(p, "status of 500 (Internal Server Error)") || strings.Contains(p, "/favicon.ico")
	}
	load(t, ctx, origin+"/")
	waitFor(t, ctx, `document.querySelectorAll("main section").length === 2`)

	if got := eval[bool](t, ctx, `window.__pwned === undefined`); !got {
		t.Fatalf("a source's markup ran: window.__pwned = %v", eval[string](t, ctx, `String(window.__pwned)`))
	}
	if n := eval[int](t, ctx, `document.querySelectorAll("img, svg, main script").length`); n != 0 {
		t.Errorf("the page holds %d elements from the sources", n)
	}
	// Each line of the list reads as the terminal prints it.
	list := eval[[]string](t, ctx, `Array.from(document.querySelectorAll("ol.list li")).map(li => li.textContent)`)
	wantList := []string{
		filepath.Join(dir, "broken.json") + `:3:56: (file): invalid JSON: unexpected '"', expected ',' or '}' after object member`,
		filepath.Join(dir, "warned.md") + `:13:1: warning: ["<svg onload=window.__pwned='key'>"]: "<svg onload=window.__pwned='key'>" is not a descriptor member in protocol 1.0.0; if it is an extension of your own, name it "x-<svg onload=window.__pwned='key'>"`,
	}
	if strings.Join(list, "\n") != strings.Join(wantList, "\n") {
		t.Errorf("problem list:\ngot  %q\nwant %q", list, wantList)
	}
	// The failing line is shown as text, the character at the column marked.
	line := eval[string](t, ctx, `document.querySelector("#p1 .failing").textContent`)
	if want := `3  "name": "<script>window.__pwned='src-name'</script>" "<img src=x onerror=window.__pwned='src-img'>",`; line != want {
		t.Errorf("failing line: got %q, want %q", line, want)
	}
	if got := eval[string](t, ctx, `document.querySelector("#p1 mark").textContent`); got != `"` {
		t.Errorf("marked character: got %q, want the quote at column 56", got)
	}
	caret := eval[string](t, ctx, `document.querySelector("#p1 .caret").textContent`)
	if strings.TrimRight(caret, "^") != strings.Repeat(" ", 55) {
		t.Errorf("caret line: got %q, want 55 spaces and ^", caret)
	}
	// The list links to the entries, and each entry back and on.
	do(t, ctx, chromedp.Click(chromedp.CSS(`ol.list li:nth-child(2) a`)))
	waitFor(t, ctx, `location.hash === "#p2" && document.querySelector("section:target").id === "p2"`)
	do(t, ctx, chromedp.Click(chromedp.CSS(`#p2 nav a[href="#p1"]`)))
	waitFor(t, ctx, `location.hash === "#p1"`)
	do(t, ctx, chromedp.Click(chromedp.CSS(`#p1 nav a[href="#problems"]`)))
	waitFor(t, ctx, `location.hash === "#problems"`)
	if p := w.problems(); len(p) > 0 {
		t.Errorf("the error page broke something:\n%s", strings.Join(p, "\n"))
	}
}

// TestPreviewWarnings checks that a good build's warnings reach the
// browser: every page shows a link to them, and the warnings page quotes
// the source, escaped.
func TestPreviewWarnings(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "warned.md"), []byte(hostileWarned), 0o644)
	_, origin := servePreview(t, dir)

	ctx := newTab(t)
	w := watch(t, ctx, origin)
	w.allow = func(p string) bool { return strings.Contains(p, "/favicon.ico") } // the browser's own guess
	load(t, ctx, origin+"/skills/evil.warned/")
	waitFor(t, ctx, `document.getElementById("skillcat-warnings") !== null`)
	if got := eval[string](t, ctx, `document.getElementById("skillcat-warnings").textContent`); got != "1 warning in this build: show" {
		t.Errorf("banner: got %q", got)
	}
	if !eval[bool](t, ctx, `getComputedStyle(document.getElementById("skillcat-warnings")).position === "fixed"`) {
		t.Error("the banner's style was blocked")
	}
	do(t, ctx, chromedp.Click(chromedp.CSS(`#skillcat-warnings`)))
	waitFor(t, ctx, `location.pathname === "/_skillcat/problems" && document.querySelector("#p1 .failing") !== null`)
	if got := eval[string](t, ctx, `document.querySelector("#p1 .failing").textContent`); got != `13"<svg onload=window.__pwned='key'>": 1` {
		t.Errorf("failing line: got %q", got)
	}
	if !eval[bool](t, ctx, `window.__pwned === undefined && document.querySelectorAll("svg").length === 0`) {
		t.Error("a source's markup ran on the warnings page")
	}
	if p := w.problems(); len(p) > 0 {
		t.Errorf("the pages broke something:\n%s", strings.Join(p, "\n"))
	}
}
