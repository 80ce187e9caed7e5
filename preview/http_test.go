package preview

import (
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

func TestMatchPath(t *testing.T) {
	for _, tc := range []struct {
		pattern, path string
		want          bool
	}{
		{"/*", "/", true},
		{"/*", "/skills/a/", true},
		{"/skills/*.json", "/skills/a.json", true},
		{"/skills/*.json", "/skills/a/", false},
		{"/skills/*.json", "/skills/x/y.json", true},
		{"/.well-known/skills.json", "/.well-known/skills.json", true},
		{"/.well-known/skills.json", "/.well-known/skills.jsonx", false},
		{"/schemas/v1/*", "/schemas/v1/", true},
		{"/a*b*c", "/aXbYc", true},
		{"/a*b*c", "/aXcYb", false},
	} {
		if got := matchPath(tc.pattern, tc.path); got != tc.want {
			t.Errorf("matchPath(%q, %q): got %v, want %v", tc.pattern, tc.path, got, tc.want)
		}
	}
}

func TestReadHeaders(t *testing.T) {
	fsys := fstest.MapFS{"_headers": {Data: []byte("# comment\n/*\n  X-A: 1\n\n/skills/*.json\n  Content-Type: application/json\n  Bad line\n\tX-B: two: parts\n")}}
	rules := readHeaders(fsys)
	if len(rules) != 2 {
		t.Fatalf("rules: got %d, want 2: %v", len(rules), rules)
	}
	if rules[0].pattern != "/*" || len(rules[0].fields) != 1 || rules[0].fields[0] != [2]string{"X-A", "1"} {
		t.Errorf("rule 0: got %v", rules[0])
	}
	if rules[1].pattern != "/skills/*.json" || len(rules[1].fields) != 2 || rules[1].fields[1] != [2]string{"X-B", "two: parts"} {
		t.Errorf("rule 1: got %v", rules[1])
	}
	if got := readHeaders(fstest.MapFS{}); got != nil {
		t.Errorf("no _headers: got %v, want no rules", got)
	}
}

func TestResolve(t *testing.T) {
	site := t.TempDir()
	for name, data := range map[string]string{
		"index.html":          "home",
		"skills/a/index.html": "a",
		"skills/a.json":       "{}",
		"empty/.keep":         "",
		"_headers":            "/*\n",
	} {
		p := filepath.Join(site, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ path, name, redirect string }{
		{"/", "index.html", ""},
		{"", "index.html", ""},
		{"/index.html", "index.html", ""},
		{"/skills/a/", "skills/a/index.html", ""},
		{"/skills/a", "", "/skills/a/"},
		{"//skills//a", "", "/skills/a/"},
		{"/skills/a.json", "skills/a.json", ""},
		{"/skills/b.json", "", ""},
		{"/empty/", "", ""},
		{"/_headers", "", ""},
		{"/../../etc/passwd", "", ""},
		{"/skills/../index.html", "index.html", ""},
	} {
		name, redirect := resolve(site, tc.path)
		if name != tc.name || redirect != tc.redirect {
			t.Errorf("resolve(%q): got (%q, %q), want (%q, %q)", tc.path, name, redirect, tc.name, tc.redirect)
		}
	}
	if name, redirect := resolve("", "/"); name != "" || redirect != "" {
		t.Errorf("resolve with no site: got (%q, %q), want nothing", name, redirect)
	}
}

// TestRebindingRefused: a web page the developer has open can point its
// own host name at 127.0.0.1 (DNS rebinding) and then read the preview as
// same-origin, the problems page, which quotes private skills' sources,
// included. On a loopback listener, a request whose Host is not a
// loopback name is refused; localhost, *.localhost and loopback addresses
// are served.
func TestRebindingRefused(t *testing.T) {
	_, srv := mockSample(t)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	get := func(host, path string) int {
		t.Helper()
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		req.Host = host
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	for _, path := range []string{"/", ProblemsPath, StatusPath, "/.well-known/skills.json", "/_mock/skills/weather.alerts"} {
		for _, host := range []string{"rebind.attacker.example:" + port, "attacker.example", "127.0.0.1.nip.io:" + port} {
			if code := get(host, path); code != http.StatusForbidden {
				t.Errorf("Host %s, %s: got %d, want 403", host, path, code)
			}
		}
	}
	for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port, "LocalHost.:" + port, "app.localhost:" + port, "[::1]:" + port, "127.0.0.2"} {
		if code := get(host, "/"); code != http.StatusOK {
			t.Errorf("Host %s: got %d, want 200", host, code)
		}
	}
}
