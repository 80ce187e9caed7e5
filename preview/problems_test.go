package preview

import (
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/build"
)

func TestOverlay(t *testing.T) {
	content := fstest.MapFS{
		"a.json": {Data: []byte("{\n  \"name\": \"<script>alert(1)</script>\",\n\t\"x\": 1\n}\n")},
		"b.md":   {Data: []byte("---\nid: b\n")},
	}
	read := contentSource(build.Config{Content: content, ContentLabel: "./content"})
	t.Run("Violations", func(t *testing.T) {
		w := httptest.NewRecorder()
		overlay(w, &Report{Result: &build.Result{Sources: 3}, Err: &build.InvalidError{Violations: skillcat.Violations{
			{File: "content/a.json", Line: 2, Column: 11, Field: "name", Reason: `must not be "<script>alert(1)</script>"`, Severity: skillcat.SeverityError},
			{File: "content/b.md", Line: 7, Column: 1, Field: "capabilty_type", Reason: "did you mean capability_type?", Severity: skillcat.SeverityWarning},
			{File: "content/a.json", Line: 3, Column: 2, Field: "x", Reason: "after a tab", Severity: skillcat.SeverityWarning},
		}}}, read)
		body := w.Body.String()
		if w.Code != 500 {
			t.Errorf("status: got %d, want 500", w.Code)
		}
		if strings.Contains(body, "<script>alert") {
			t.Error("a reason's or a source's HTML reached the page unescaped")
		}
		for _, want := range []string{
			`1 error and 2 warnings in 3 sources`,
			// The list links to each entry, each entry to its neighbours.
			`<li class="error"><a href="#p1">content/a.json:2:11</a>: name: must not be &#34;&lt;script&gt;alert(1)&lt;/script&gt;&#34;</li>`,
			`<section id="p2" class="warning">`,
			`<a href="#p1">← previous</a><a href="#problems">↑ all problems</a><a href="#p3">next →</a>`,
			// The failing line with the column marked, and a caret under it.
			`<span class="line failing"><span class="num">2</span>  &#34;name&#34;: <mark>&#34;</mark>&lt;script&gt;alert(1)&lt;/script&gt;&#34;,</span>`,
			`<span class="line caret"><span class="num"></span>          ^</span>`,
			`<span class="line"><span class="num">1</span>{</span>`,
			// A tab shows as four spaces, and the column counts it as one.
			`<span class="line failing"><span class="num">3</span>    <mark>&#34;</mark>x&#34;: 1</span><span class="line caret"><span class="num"></span>    ^</span>`,
			"/_skillcat/events",
		} {
			if !strings.Contains(body, want) {
				t.Errorf("body lacks %s:\n%s", want, body)
			}
		}
		// A line past the end of the source quotes nothing.
		if strings.Contains(body, `<section id="p2" class="warning">`+"\n"+`<h2><a href="#p2">content/b.md:7:1</a> <span class="sev">warning</span></h2>`+"\n"+`<p class="reason"><code>capabilty_type</code>: did you mean capability_type?</p>`+"\n<pre>") {
			t.Error("an excerpt was shown for a line the source does not have")
		}
		csp := w.Header().Get("Content-Security-Policy")
		if !strings.Contains(csp, "script-src 'nonce-") || strings.Contains(csp, "unsafe-inline") {
			t.Errorf("Content-Security-Policy: got %q, want a nonce and no unsafe-inline", csp)
		}
	})
	t.Run("OtherError", func(t *testing.T) {
		w := httptest.NewRecorder()
		overlay(w, &Report{Result: &build.Result{}, Err: errors.New(`parse template "home.html": unexpected <EOF>`)}, read)
		if body := w.Body.String(); !strings.Contains(body, "home.html&#34;: unexpected &lt;EOF&gt;") {
			t.Errorf("body lacks the escaped error:\n%s", body)
		}
	})
	t.Run("SourceOutsideContent", func(t *testing.T) {
		for _, file := range []string{"other/a.json", "content/../a.json", "content/missing.json"} {
			if got := read(file); got != nil {
				t.Errorf("read(%q): got %q, want nothing", file, got)
			}
		}
		if got := string(read("content/b.md")); got != "---\nid: b\n" {
			t.Errorf("read(content/b.md): got %q", got)
		}
	})
}

func TestWarningsPage(t *testing.T) {
	w := httptest.NewRecorder()
	warningsPage(w, skillcat.Violations{{File: "x.json", Line: 1, Column: 2, Field: "a", Reason: "<b>bold</b>", Severity: skillcat.SeverityWarning}},
		contentSource(build.Config{Content: fstest.MapFS{"x.json": {Data: []byte("{\"a\": 1}\n")}}}))
	body := w.Body.String()
	if w.Code != 200 || !strings.Contains(body, "1 warning in the last build") || !strings.Contains(body, "&lt;b&gt;bold&lt;/b&gt;") ||
		!strings.Contains(body, `<span class="num">1</span>{<mark>&#34;</mark>a&#34;: 1}</span>`) {
		t.Errorf("got %d:\n%s", w.Code, body)
	}
}
