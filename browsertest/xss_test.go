package browsertest

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillcat/skillcat/build"
)

// xssFixture is a catalog whose every text carries markup meant to run:
// <script>, </script> breakouts, event-handler attributes, javascript: links.
const xssFixture = "../testdata/xss"

// xssText is, per page, text that must show literally: nothing of it
// interpreted, nothing of it dropped.
var xssText = map[string][]string{
	"": {
		"<script>window.__pwned='site-title'</script> Catalog",
		"</title><script>window.__pwned='site-description'</script> tagline",
		`<img src=x onerror="window.__pwned='intro'">`,
		"bad link",
		"<script>window.__pwned='name'</script> Evil name",
		"</script><img src=x onerror=window.__pwned='provider'>",
		`Quotes " and ' and & ampersands <i onmouseover=x>`,
		"Provider <iframe src=javascript:window.__pwned='iframe'>",
	},
	"skills/xss.script-name/": {
		"<script>window.__pwned='name'</script> Evil name",
		"<script>window.__pwned='desc-script'</script>",
		"</script><script>window.__pwned='desc-breakout'</script>",
		`<img src=x onerror="window.__pwned='desc-img'">`,
		`<div onmouseover="window.__pwned='desc-div'">a raw block</div>`,
		"click me", "upper", "tabbed",
		"javascript:window.__pwned='desc-autolink'",
		"pic",
		"<script>window.__pwned='desc-code'</script>",
		"</script><script>window.__pwned='desc-fence'</script>",
		`<b onclick="window.__pwned='desc-table'">x</b>`,
		"</script><img src=x onerror=window.__pwned='provider'>",
		`https://evil.example/run?x="><script>window.__pwned='endpoint'</script>`,
		"<script>window.__pwned='inputs-root'</script> root",
		`<img src=x onerror="window.__pwned='schema-desc'"> described`,
		`"<svg onload=window.__pwned='enum'>"`,
		`"</script><script>window.__pwned='default'</script>"`,
		"^(<|</script>|plain).*$",
		"<b onclick=x>member</b>",
		"javascript:window.__pwned='title'",
		"</td></tr></table><script>window.__pwned='output-desc'</script>",
		"Send <script>window.__pwned='auth'</script> in the header.",
		"Second line </script>.",
		`<img src=x onerror="window.__pwned='example-title'">`,
		`"echo": "</script><script>window.__pwned='example-output'</script>"`,
	},
	"skills/xss.oauth/": {
		`Quotes " and ' and & ampersands <i onmouseover=x>`,
		"2.0.0-beta.1+exp.7",
		"Provider <iframe src=javascript:window.__pwned='iframe'>",
		"https://evil.example/token?<script>",
		"read:<script>",
		`<img src=x onerror="window.__pwned='scope'"> read things`,
		"Heading <script>window.__pwned='heading'</script>",
		"<style>body{display:none}</style>",
		`<iframe src="javascript:window.__pwned='body-iframe'"></iframe>`,
		"window.__pwned = 'body-script-block';",
		"<!-- a comment <script>window.__pwned='comment'</script> -->",
		`done <img src=x onerror="window.__pwned='task'">`,
		"data link", "vbscript link", "fine link",
		"{{ .Site }} template syntax is text too",
	},
}

// encodedTargets is how many encoded javascript:, data: and vbscript:
// targets testdata/xss/encoded.md holds, each as a link, an image and a
// reference definition.
const encodedTargets = 42

// inlineProbe is the inline script that the pages' <meta> policy must block.
const inlineProbe = "window.__inline = true"

func init() {
	page := "skills/xss.encoded/"
	for i := range encodedTargets {
		for _, kind := range []string{"link", "image", "ref"} {
			xssText[page] = append(xssText[page], fmt.Sprintf("enc-%s-%d", kind, i))
		}
	}
}

// TestXSS serves the fixture without a Content-Security-Policy header, so
// the escaping alone (and the policy each page carries in a <meta>) must
// keep every payload inert, and checks that each one is shown as the text
// it is.
func TestXSS(t *testing.T) {
	s := builtSite(t, xssFixture, false)
	ctx := newTab(t)
	w := watch(t, ctx, s.Origin)
	pages := append(s.pages(t), "no/such/page/")
	for _, p := range pages {
		t.Run(pageName(p), func(t *testing.T) {
			load(t, ctx, s.URL+p)
			checkInert(t, ctx)
			body := eval[string](t, ctx, `document.body.textContent`)
			for _, want := range xssText[p] {
				if !strings.Contains(body, want) {
					t.Errorf("text %q is missing from the page", want)
				}
			}
		})
	}
	t.Run("TitleElement", func(t *testing.T) {
		load(t, ctx, s.URL)
		if got, want := eval[string](t, ctx, `document.title`), "<script>window.__pwned='site-title'</script> Catalog"; got != want {
			t.Errorf("document.title = %q, want %q", got, want)
		}
	})
	t.Run("SearchForPayload", func(t *testing.T) {
		payload := `<img src=x onerror="window.__pwned='query'">`
		load(t, ctx, s.URL+"?q="+url.QueryEscape(payload))
		// The search index loads in shards: wait until the query is applied.
		js, _ := json.Marshal(payload)
		waitFor(t, ctx, `document.getElementById("status").textContent.includes(`+string(js)+`)`)
		checkInert(t, ctx)
		typeQuery(t, ctx, "</script><script>window.__pwned='typed'</script>")
		checkInert(t, ctx)
	})
	t.Run("NoJavaScriptLinks", func(t *testing.T) {
		for _, p := range pages {
			load(t, ctx, s.URL+p)
			if n := eval[int](t, ctx, `Array.from(document.querySelectorAll("[href],[src],[action],[formaction]")).filter(e => /^\s*(javascript|vbscript|data):/i.test(e.getAttribute("href") || e.getAttribute("src") || e.getAttribute("action") || e.getAttribute("formaction") || "")).length`); n != 0 {
				t.Errorf("/%s: %d links to javascript:, vbscript: or data:", p, n)
			}
			// As the browser resolves them: every link goes to http(s),
			// mailto, or this site.
			bad := eval[[]string](t, ctx, `Array.from(document.querySelectorAll("a[href], area[href]")).map(a => a.protocol + " " + a.getAttribute("href")).filter(h => !/^(https?|mailto):/.test(h))`)
			for _, h := range bad {
				t.Errorf("/%s: a live link %q", p, h)
			}
		}
	})
	t.Run("MetaPolicyInForce", func(t *testing.T) {
		// No header carries the policy here: the page's <meta> must.
		for _, p := range pages {
			load(t, ctx, s.URL+p)
			if got := eval[string](t, ctx, `(document.head.querySelector('meta[http-equiv="Content-Security-Policy"]') || {}).content || ""`); got != build.MetaContentSecurityPolicy {
				t.Errorf("/%s: meta policy %q, want %q", p, got, build.MetaContentSecurityPolicy)
			}
		}
		load(t, ctx, s.URL)
		ran := eval[bool](t, ctx, `(() => { const s = document.createElement("script"); s.textContent = "`+inlineProbe+`"; document.body.append(s); return window.__inline === true; })()`)
		if ran {
			t.Errorf("an inline script ran: the <meta> policy is not in force")
		}
	})
	t.Run("PrivateSkillNowhere", func(t *testing.T) {
		err := filepath.WalkDir(s.Dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.HasSuffix(p, ".sqlite") {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if strings.Contains(string(data), "7f3a") {
				t.Errorf("%s mentions the private skill", p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		load(t, ctx, s.URL)
		typeQuery(t, ctx, "secret")
		waitVisible(t, ctx, "search for the private skill", []string{})
	})
	// Broken image requests (src=x) would show here; nothing may be fetched
	// beyond the site's own files.
	probeHash := sha256.Sum256([]byte(inlineProbe))
	for _, p := range w.problems() {
		if strings.Contains(p, "sha256-"+base64.StdEncoding.EncodeToString(probeHash[:])) {
			continue // the probe of MetaPolicyInForce, blocked as it should be
		}
		if strings.Contains(p, "HTTP 404 for "+s.URL+"no/such/page/") || strings.Contains(p, "404 (Not Found)") && strings.Contains(p, "no/such/page") {
			continue
		}
		t.Errorf("browser problem: %s", p)
	}
}

// checkInert fails when the page ran injected code or holds elements that
// could: the sentinel is unset, no element has an on* attribute, the only
// scripts are the site's own, and there are no frames, objects, styles or
// images other than the site's.
func checkInert(t *testing.T, ctx context.Context) {
	t.Helper()
	if v := eval[string](t, ctx, `typeof window.__pwned === "undefined" ? "" : String(window.__pwned)`); v != "" {
		t.Errorf("injected script ran: window.__pwned = %q", v)
	}
	bad := eval[[]string](t, ctx, `(() => {
		const out = [];
		for (const e of document.querySelectorAll("*")) {
			for (const a of e.attributes) {
				if (/^on/i.test(a.name)) out.push("<" + e.tagName.toLowerCase() + " " + a.name + ">");
			}
		}
		for (const e of document.querySelectorAll("script")) {
			if (!/\/assets\/(app|livereload|search)\.js$/.test(e.src)) out.push("script " + (e.src || e.textContent.slice(0, 40)));
		}
		for (const e of document.querySelectorAll("iframe, frame, object, embed, style, body img:not(.brand-logo), svg:not(.brand-logo), svg *[href], base, meta[http-equiv]")) {
			// The site's own policy, first in <head>, is the one allowed.
			if (e === document.head.querySelector("meta[http-equiv]") && e.httpEquiv === "Content-Security-Policy") continue;
			out.push("element <" + e.tagName.toLowerCase() + ">");
		}
		return out;
	})()`)
	for _, b := range bad {
		t.Errorf("injected markup in the DOM: %s", b)
	}
}
