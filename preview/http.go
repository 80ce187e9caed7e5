package preview

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net"
	"net/http"
	"os"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/skillcat/skillcat/mock"
)

// rebound reports a request that reached a loopback listener under a host
// name that is not a loopback one. A web page the developer has open can
// point its own name at 127.0.0.1 (DNS rebinding) and then read the
// preview as same-origin: the problems page quotes the sources of private
// skills too. A listener on another address (--addr 0.0.0.0:1313) was
// opened to the network on purpose, and answers any Host.
func rebound(r *http.Request) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(*net.TCPAddr)
	if !ok || !local.IP.IsLoopback() {
		return false
	}
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return false
	}
	ip := net.ParseIP(host)
	return ip == nil || !ip.IsLoopback()
}

// keepAlive is how often an idle event stream gets a comment, so proxies
// and browsers do not time it out.
const keepAlive = 15 * time.Second

// ServeHTTP serves the event stream at EventsPath and the site everywhere
// else. On a loopback listener it refuses a request whose Host is not a
// loopback name (see rebound).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if rebound(r) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprintf(w, "skillcat serve answers on this machine's loopback names only (localhost, 127.0.0.1, [::1]), not %q\n", r.Host)
		return
	}
	switch r.URL.Path {
	case EventsPath:
		s.events(w, r)
		return
	case ProblemsPath:
		if st := s.current(); st.fail != nil {
			overlay(w, st.fail, contentSource(s.cfg.Build))
		} else {
			warningsPage(w, st.warnings, contentSource(s.cfg.Build))
		}
		return
	case StatusPath:
		st := s.current()
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		fmt.Fprintf(w, "{\"failed\": %t, \"warnings\": %d}\n", st.fail != nil, len(st.warnings))
		return
	}
	if s.mock != nil && strings.HasPrefix(r.URL.Path, mock.MountPath+"/") {
		s.serveMock(w, r)
		return
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
	case http.MethodOptions:
		h := w.Header()
		h.Set("Allow", "GET, HEAD, OPTIONS")
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
		h.Set("Access-Control-Max-Age", "600")
		w.WriteHeader(http.StatusNoContent)
		return
	default:
		w.Header().Set("Allow", "GET, HEAD, OPTIONS")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	st := s.current()
	name, redirect := resolve(st.site, r.URL.Path)
	switch {
	case redirect != "":
		if r.URL.RawQuery != "" {
			redirect += "?" + r.URL.RawQuery
		}
		http.Redirect(w, r, redirect, http.StatusFound)
	case name == "":
		s.notFound(w, r, st)
	case st.fail != nil && path.Ext(name) == ".html":
		overlay(w, st.fail, contentSource(s.cfg.Build))
	default:
		s.serveFile(w, r, st, name, http.StatusOK)
	}
}

// resolve maps a URL path to the file of the site that serves it, or to
// the path to redirect to when a directory is asked for without its
// trailing slash. Both are empty when nothing serves the path.
func resolve(site, urlPath string) (name, redirect string) {
	if site == "" {
		return "", ""
	}
	if !strings.HasPrefix(urlPath, "/") {
		urlPath = "/" + urlPath
	}
	clean := path.Clean(urlPath)
	name = strings.TrimPrefix(clean, "/")
	if name == "" {
		name = "."
	}
	if !fs.ValidPath(name) || name == "_headers" {
		return "", ""
	}
	fsys := os.DirFS(site)
	info, err := fs.Stat(fsys, name)
	if err != nil {
		return "", ""
	}
	if info.IsDir() {
		if !strings.HasSuffix(urlPath, "/") {
			return "", strings.TrimSuffix(clean, "/") + "/"
		}
		name = path.Join(name, "index.html")
		if info, err = fs.Stat(fsys, name); err != nil {
			return "", ""
		}
	}
	if !info.Mode().IsRegular() {
		return "", ""
	}
	return name, ""
}

// notFound serves 404.html with status 404, or the error page while the
// content is broken and a page was asked for (a browser's own request for
// /favicon.ico, say, gets the plain 404).
func (s *Server) notFound(w http.ResponseWriter, r *http.Request, st state) {
	if st.fail != nil && wantsPage(r) {
		overlay(w, st.fail, contentSource(s.cfg.Build))
		return
	}
	if st.site != "" {
		if info, err := os.Stat(st.site + "/404.html"); err == nil && info.Mode().IsRegular() {
			s.serveFile(w, r, st, "404.html", http.StatusNotFound)
			return
		}
	}
	w.Header().Set("Cache-Control", "no-store")
	http.NotFound(w, r)
}

// wantsPage reports whether r asks for a page rather than a resource: its
// path names a folder or an HTML file, or it accepts HTML.
func wantsPage(r *http.Request) bool {
	switch path.Ext(r.URL.Path) {
	case "", ".html", ".htm":
		return true
	}
	return strings.Contains(r.Header.Get("Accept"), "text/html")
}

// serveFile writes the site's file name with status code, with the headers
// a static host would send for the request's path.
func (s *Server) serveFile(w http.ResponseWriter, r *http.Request, st state, name string, code int) {
	fsys := os.DirFS(st.site)
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		// Removed by a newer build since it was resolved; the page reloads.
		http.Error(w, "the site is being rebuilt; reload", http.StatusServiceUnavailable)
		return
	}
	h := w.Header()
	for _, rule := range readHeaders(fsys) {
		if matchPath(rule.pattern, r.URL.Path) {
			for _, f := range rule.fields {
				h.Set(f[0], f[1])
			}
		}
	}
	switch ext := path.Ext(name); ext {
	case ".json":
		if s.mock != nil {
			data = mockJSON(fsys, name, data, r)
		}
		h.Set("Content-Type", "application/json; charset=utf-8")
		h.Set("Access-Control-Allow-Origin", "*")
	default:
		if h.Get("Content-Type") == "" {
			ct := mime.TypeByExtension(ext)
			if ct == "" {
				ct = http.DetectContentType(data)
			}
			h.Set("Content-Type", ct)
		}
	}
	h.Set("Cache-Control", "no-store")
	if code != http.StatusOK {
		h.Set("Content-Length", strconv.Itoa(len(data)))
		w.WriteHeader(code)
		if r.Method != http.MethodHead {
			w.Write(data)
		}
		return
	}
	// A zero time: no Last-Modified, so no stale 304 after a rebuild.
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(data))
}

// headerRule is one path pattern of a _headers file and its fields.
type headerRule struct {
	pattern string
	fields  [][2]string
}

// readHeaders parses the site's _headers file (Netlify and Cloudflare
// Pages syntax: a path pattern on its own line, then indented "Name:
// value" lines; "*" matches any run of characters). A missing file has no
// rules; lines it cannot read are skipped.
func readHeaders(fsys fs.FS) []headerRule {
	data, err := fs.ReadFile(fsys, "_headers")
	if err != nil {
		return nil
	}
	var rules []headerRule
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		text := strings.TrimSpace(line)
		switch {
		case text == "" || strings.HasPrefix(text, "#"):
		case line[0] != ' ' && line[0] != '\t':
			rules = append(rules, headerRule{pattern: text})
		case len(rules) > 0:
			name, value, ok := strings.Cut(text, ":")
			if ok {
				r := &rules[len(rules)-1]
				r.fields = append(r.fields, [2]string{strings.TrimSpace(name), strings.TrimSpace(value)})
			}
		}
	}
	return rules
}

// matchPath reports whether a URL path matches a _headers pattern, in
// which "*" matches any run of characters, slashes included.
func matchPath(pattern, p string) bool {
	star := strings.IndexByte(pattern, '*')
	if star < 0 {
		return pattern == p
	}
	prefix, rest := pattern[:star], pattern[star+1:]
	if !strings.HasPrefix(p, prefix) {
		return false
	}
	for i := len(prefix); i <= len(p); i++ {
		if matchPath(rest, p[i:]) {
			return true
		}
	}
	return false
}

// events streams Server-Sent Events: a "reload" event after every build,
// until the client goes away or the server stops.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	ch, id := s.subscribe()
	defer s.unsubscribe(ch)
	w.WriteHeader(http.StatusOK)
	// retry: how long a browser waits before reconnecting after the
	// stream ends, as it does when the server restarts. id: the build the
	// page has seen; a browser that reconnects with another one (the
	// server restarted, or rebuilt while it was away) reloads at once.
	if last := r.Header.Get("Last-Event-ID"); last != "" && last != id {
		fmt.Fprintf(w, "retry: 1000\nevent: reload\nid: %s\ndata: %[1]s\n\n", id)
	} else {
		fmt.Fprintf(w, "retry: 1000\nid: %s\n\n", id)
	}
	if err := rc.Flush(); err != nil {
		return
	}
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	for {
		var err error
		select {
		case <-r.Context().Done():
			return
		case <-s.done:
			return
		case id := <-ch:
			_, err = fmt.Fprintf(w, "event: reload\nid: %s\ndata: %[1]s\n\n", id)
		case <-tick.C:
			_, err = io.WriteString(w, ": keep-alive\n\n")
		}
		if err == nil {
			err = rc.Flush()
		}
		if err != nil {
			return
		}
	}
}

// plural formats n with a noun, adding "s" unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
