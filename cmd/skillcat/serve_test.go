package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"html"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// serveWait bounds every wait for the server to notice a change.
const serveWait = 10 * time.Second

// serveOutput is a buffer the server writes to while the test reads it.
type serveOutput struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (o *serveOutput) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.Write(p)
}

func (o *serveOutput) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

// servedSite is a running "skillcat serve".
type servedSite struct {
	url            string // "http://127.0.0.1:PORT/"
	skills         int    // the count in the "Serving" line
	stdout, stderr *serveOutput
	tempDir        string // where serve makes its private build directory
	cancel         context.CancelFunc
	done           chan int // receives run's exit code
}

// startServe runs "skillcat serve --addr 127.0.0.1:0 args..." in the
// background with a fast poll, and waits for its "Serving" line. The
// server is stopped when the test ends, if the test has not stopped it.
func startServe(t *testing.T, args ...string) *servedSite {
	t.Helper()
	poll, tmp := servePoll, serveTempDir
	t.Cleanup(func() { servePoll, serveTempDir = poll, tmp })
	servePoll = 20 * time.Millisecond
	serveTempDir = t.TempDir()

	ctx, cancel := context.WithCancel(context.Background())
	s := &servedSite{stdout: &serveOutput{}, stderr: &serveOutput{}, tempDir: serveTempDir, cancel: cancel, done: make(chan int, 1)}
	e := &env{stdout: s.stdout, stderr: s.stderr, getenv: func(string) string { return "" }}
	go func() { s.done <- run(ctx, e, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-s.done:
		case <-time.After(serveWait):
			t.Error("serve did not stop")
		}
	})

	re := regexp.MustCompile(`Serving (\d+) skills? at (http://127\.0\.0\.1:\d+/) — Ctrl-C to stop`)
	deadline := time.Now().Add(serveWait)
	for {
		if m := re.FindStringSubmatch(s.stdout.String()); m != nil {
			s.skills, _ = strconv.Atoi(m[1])
			s.url = m[2]
			return s
		}
		select {
		case code := <-s.done:
			t.Fatalf("serve exited with %d before serving; stderr:\n%s", code, s.stderr)
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no Serving line after %s; stdout:\n%s\nstderr:\n%s", serveWait, s.stdout, s.stderr)
		}
	}
}

// stop cancels the server and returns its exit code.
func (s *servedSite) stop(t *testing.T) int {
	t.Helper()
	s.cancel()
	select {
	case code := <-s.done:
		s.done <- code // for the cleanup
		return code
	case <-time.After(serveWait):
		t.Fatal("serve did not stop after cancel")
		return -1
	}
}

// noRedirect is a client that reports redirects instead of following them.
var noRedirect = &http.Client{
	Timeout:       5 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// get fetches a path of the site.
func (s *servedSite) get(t *testing.T, path string) (*http.Response, string) {
	t.Helper()
	resp, err := noRedirect.Get(s.url + strings.TrimPrefix(path, "/"))
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: read body: %v", path, err)
	}
	return resp, string(body)
}

// waitFor polls path until ok accepts the response, and fails the test
// after serveWait.
func (s *servedSite) waitFor(t *testing.T, what, path string, ok func(*http.Response, string) bool) string {
	t.Helper()
	deadline := time.Now().Add(serveWait)
	for {
		resp, body := s.get(t, path)
		if ok(resp, body) {
			return body
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: GET %s still %s after %s; stderr:\n%s", what, path, resp.Status, serveWait, s.stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// sseClient reads "event:" names from an event stream.
type sseClient struct {
	events chan string
	resp   *http.Response
}

func openEvents(t *testing.T, url string) *sseClient {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url+"_skillcat/events", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("open event stream: %v", err)
	}
	if got := resp.Header.Get("Content-Type"); !strings.HasPrefix(got, "text/event-stream") {
		t.Fatalf("event stream Content-Type: got %q, want text/event-stream", got)
	}
	c := &sseClient{events: make(chan string, 100), resp: resp}
	go func() {
		defer close(c.events)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if name, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
				c.events <- name
			}
		}
	}()
	return c
}

// expect waits for the next event and checks its name.
func (c *sseClient) expect(t *testing.T, want string) {
	t.Helper()
	select {
	case got, ok := <-c.events:
		if !ok {
			t.Fatalf("event stream ended; want event %q", want)
		}
		if got != want {
			t.Fatalf("event: got %q, want %q", got, want)
		}
	case <-time.After(serveWait):
		t.Fatalf("no %q event after %s", want, serveWait)
	}
}

// drain discards the events already received.
func (c *sseClient) drain() {
	for {
		select {
		case <-c.events:
		default:
			return
		}
	}
}

// copyTree copies the directory src to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatalf("copy %s: %v", src, err)
	}
}

// writeLater writes a file with a modification time a second ahead of
// the last one, so the change shows on file systems with coarse times.
func writeLater(t *testing.T, name string, data []byte) {
	t.Helper()
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Duration(writes.Add(1)) * time.Second)
	if err := os.Chtimes(name, later, later); err != nil {
		t.Fatal(err)
	}
}

// writes counts writeLater's writes.
var writes atomic.Int64

func TestServe(t *testing.T) {
	content := filepath.Join(t.TempDir(), "content")
	copyTree(t, filepath.Join("..", "..", "content"), content)
	source := filepath.Join(content, "geocode.json")
	original, err := os.ReadFile(source)
	if err != nil {
		t.Fatal(err)
	}
	var skill struct{ ID, Name string }
	if err := json.Unmarshal(original, &skill); err != nil {
		t.Fatal(err)
	}
	page := "/skills/" + skill.ID + "/"

	s := startServe(t, "--content", content)

	t.Run("Pages", func(t *testing.T) {
		resp, body := s.get(t, "/")
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
			t.Fatalf("GET /: got %s %q, want 200 text/html", resp.Status, resp.Header.Get("Content-Type"))
		}
		if !strings.Contains(body, "assets/livereload.js") {
			t.Error("GET /: the page does not load assets/livereload.js")
		}
		resp, body = s.get(t, page)
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, html.EscapeString(skill.Name)) {
			t.Fatalf("GET %s: got %s, want 200 with %q", page, resp.Status, skill.Name)
		}
		if resp, _ := s.get(t, "/assets/livereload.js"); resp.StatusCode != http.StatusOK {
			t.Errorf("GET /assets/livereload.js: got %s, want 200", resp.Status)
		}
	})

	t.Run("SkillCount", func(t *testing.T) {
		_, body := s.get(t, "/.well-known/skills.json")
		var index struct{ Skills []json.RawMessage }
		if err := json.Unmarshal([]byte(body), &index); err != nil {
			t.Fatal(err)
		}
		if s.skills == 0 || s.skills != len(index.Skills) {
			t.Errorf("Serving line: got %d skills, want %d (the index)", s.skills, len(index.Skills))
		}
	})

	t.Run("JSONHeaders", func(t *testing.T) {
		for _, p := range []string{"/.well-known/skills.json", "/skills/" + skill.ID + ".json", "/types/api.json"} {
			resp, body := s.get(t, p)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("GET %s: got %s, want 200", p, resp.Status)
			}
			if got := resp.Header.Get("Content-Type"); got != "application/json; charset=utf-8" {
				t.Errorf("GET %s: Content-Type: got %q, want application/json; charset=utf-8", p, got)
			}
			if got := resp.Header.Get("Access-Control-Allow-Origin"); got != "*" {
				t.Errorf("GET %s: Access-Control-Allow-Origin: got %q, want *", p, got)
			}
			if !json.Valid([]byte(body)) {
				t.Errorf("GET %s: body is not JSON", p)
			}
		}
	})

	t.Run("NotFound", func(t *testing.T) {
		resp, body := s.get(t, "/no/such/page/")
		if resp.StatusCode != http.StatusNotFound || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
			t.Fatalf("GET /no/such/page/: got %s %q, want 404 text/html", resp.Status, resp.Header.Get("Content-Type"))
		}
		if !strings.Contains(body, "livereload.js") {
			t.Error("the 404 page is not 404.html (no live reload)")
		}
		if resp, _ := s.get(t, "/_headers"); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET /_headers: got %s, want 404", resp.Status)
		}
		if resp, _ := s.get(t, "/../../../etc/passwd"); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET /../../../etc/passwd: got %s, want 404", resp.Status)
		}
	})

	t.Run("DirectoryRedirect", func(t *testing.T) {
		resp, _ := s.get(t, strings.TrimSuffix(page, "/"))
		if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != page {
			t.Errorf("GET %s: got %s to %q, want 302 to %q", strings.TrimSuffix(page, "/"), resp.Status, resp.Header.Get("Location"), page)
		}
	})

	events := openEvents(t, s.url)
	renamed := skill.Name + " Renamed"
	fixed := bytes.Replace(original, []byte(`"name": "`+skill.Name+`"`), []byte(`"name": "`+renamed+`"`), 1)
	if bytes.Equal(fixed, original) {
		t.Fatalf("cannot find the name member in %s", source)
	}

	t.Run("Rebuild", func(t *testing.T) {
		writeLater(t, source, fixed)
		s.waitFor(t, "rename", page, func(r *http.Response, body string) bool {
			return r.StatusCode == http.StatusOK && strings.Contains(body, html.EscapeString(renamed))
		})
		events.expect(t, "reload")
		if !strings.Contains(s.stdout.String(), "Rebuilt") {
			t.Errorf("stdout: no Rebuilt line:\n%s", s.stdout)
		}
	})

	t.Run("Broken", func(t *testing.T) {
		events.drain()
		writeLater(t, source, []byte("{\n  \"id\": \"geocode.address\",\n  \"name\": \n}\n"))
		body := s.waitFor(t, "break", "/", func(r *http.Response, _ string) bool {
			return r.StatusCode == http.StatusInternalServerError
		})
		events.expect(t, "reload")
		line := regexp.MustCompile(`(?m)^\S*geocode\.json:\d+:\d+: \(file\): .*$`).FindString(s.stderr.String())
		if line == "" {
			t.Fatalf("stderr: no geocode.json:line:col violation:\n%s", s.stderr)
		}
		if !strings.Contains(html.UnescapeString(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(body, "")), line) {
			t.Errorf("error page lacks %q:\n%s", line, body)
		}
		if !strings.Contains(body, "_skillcat/events") {
			t.Error("the error page does not reload itself")
		}
		if !strings.Contains(s.stderr.String(), "build failed") {
			t.Errorf("stderr: no build failed line:\n%s", s.stderr)
		}
		resp, page := s.get(t, page)
		if resp.StatusCode != http.StatusInternalServerError || !strings.Contains(page, "Build failed") {
			t.Errorf("GET skill page while broken: got %s, want 500 with the error page", resp.Status)
		}
		if resp, body := s.get(t, "/favicon.ico"); resp.StatusCode != http.StatusNotFound || strings.Contains(body, "Build failed") {
			t.Errorf("GET /favicon.ico while broken: got %s, want 404 without the error page", resp.Status)
		}
		resp, index := s.get(t, "/.well-known/skills.json")
		if resp.StatusCode != http.StatusOK || !strings.Contains(index, renamed) {
			t.Errorf("GET /.well-known/skills.json while broken: got %s, want 200 with the last good index (%q)", resp.Status, renamed)
		}
	})

	t.Run("Recovered", func(t *testing.T) {
		events.drain()
		writeLater(t, source, fixed)
		s.waitFor(t, "fix", "/", func(r *http.Response, _ string) bool { return r.StatusCode == http.StatusOK })
		events.expect(t, "reload")
		if !strings.Contains(s.stdout.String(), "Fixed") {
			t.Errorf("stdout: no Fixed line after recovery:\n%s", s.stdout)
		}
	})

	t.Run("NewFolder", func(t *testing.T) {
		dir := filepath.Join(content, "brand", "new")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		var out, errOut bytes.Buffer
		e := &env{stdout: &out, stderr: &errOut, getenv: func(string) string { return "" }}
		if code := run(context.Background(), e, []string{"new", "fresh.skill", "--content", dir}); code != exitOK {
			t.Fatalf("new: exit %d: %s", code, errOut.String())
		}
		s.waitFor(t, "new folder", "/skills/fresh.skill/", func(r *http.Response, _ string) bool { return r.StatusCode == http.StatusOK })
	})

	t.Run("Stop", func(t *testing.T) {
		if code := s.stop(t); code != exitOK {
			t.Fatalf("exit code: got %d, want 0; stderr:\n%s", code, s.stderr)
		}
		entries, err := os.ReadDir(s.tempDir)
		if err != nil || len(entries) != 0 {
			t.Errorf("temporary build directory left behind: %v %v", entries, err)
		}
		select {
		case _, ok := <-events.events:
			for ok {
				_, ok = <-events.events
			}
		case <-time.After(serveWait):
			t.Error("the event stream did not end")
		}
		if _, err := os.Stat("public"); err == nil {
			t.Error("serve wrote a public directory")
		}
		if _, err := os.Stat(filepath.Join(filepath.Dir(content), "public")); err == nil {
			t.Error("serve wrote a public directory beside the content")
		}
	})
}

// newServeContent writes a content directory holding one new skill.
func newServeContent(t *testing.T) (dir, source string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "content")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	e := &env{stdout: &out, stderr: &errOut, getenv: func(string) string { return "" }}
	if code := run(context.Background(), e, []string{"new", "demo.skill", "--content", dir, "--name", "Demo Skill"}); code != exitOK {
		t.Fatalf("new: exit %d: %s", code, errOut.String())
	}
	return dir, filepath.Join(dir, "demo.skill.json")
}

func TestServeBrokenAtStart(t *testing.T) {
	content, source := newServeContent(t)
	good, err := os.ReadFile(source)
	if err != nil {
		t.Fatal(err)
	}
	writeLater(t, source, []byte(`{"id": "demo.skill", "name": "Demo Skill"}`))
	s := startServe(t, "--content", content)
	if s.skills != 0 {
		t.Errorf("Serving line: got %d skills, want 0", s.skills)
	}
	resp, body := s.get(t, "/")
	if resp.StatusCode != http.StatusInternalServerError || !strings.Contains(body, "demo.skill.json") {
		t.Fatalf("GET / with broken content: got %s, want 500 naming demo.skill.json:\n%s", resp.Status, body)
	}
	if resp, _ := s.get(t, "/.well-known/skills.json"); resp.StatusCode == http.StatusOK {
		t.Errorf("GET /.well-known/skills.json before any good build: got %s, want an error", resp.Status)
	}
	writeLater(t, source, good)
	s.waitFor(t, "fix", "/skills/demo.skill/", func(r *http.Response, body string) bool {
		return r.StatusCode == http.StatusOK && strings.Contains(body, "Demo Skill")
	})
	if code := s.stop(t); code != exitOK {
		t.Errorf("exit code: got %d, want 0", code)
	}
}

func TestServeTemplates(t *testing.T) {
	content, _ := newServeContent(t)
	templates := t.TempDir()
	s := startServe(t, "--content", content, "--templates", templates)
	events := openEvents(t, s.url)

	t.Run("NewAsset", func(t *testing.T) {
		if err := os.MkdirAll(filepath.Join(templates, "assets", "img"), 0o755); err != nil {
			t.Fatal(err)
		}
		writeLater(t, filepath.Join(templates, "assets", "img", "hello.txt"), []byte("hello"))
		s.waitFor(t, "new asset", "/assets/img/hello.txt", func(r *http.Response, body string) bool {
			return r.StatusCode == http.StatusOK && body == "hello"
		})
		events.expect(t, "reload")
	})

	t.Run("BrokenTemplate", func(t *testing.T) {
		home := filepath.Join(templates, "home.html")
		writeLater(t, home, []byte(`{{define "home.html"}}{{.Nope`))
		body := s.waitFor(t, "broken template", "/", func(r *http.Response, _ string) bool {
			return r.StatusCode == http.StatusInternalServerError
		})
		if !strings.Contains(body, "home.html") {
			t.Errorf("error page does not name the template:\n%s", body)
		}
		if !strings.Contains(s.stderr.String(), "home.html") {
			t.Errorf("stderr does not name the template:\n%s", s.stderr)
		}
		if err := os.Remove(home); err != nil {
			t.Fatal(err)
		}
		s.waitFor(t, "template removed", "/", func(r *http.Response, _ string) bool { return r.StatusCode == http.StatusOK })
	})
}

func TestServeUsage(t *testing.T) {
	content, _ := newServeContent(t)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"MissingContent", []string{"--content", filepath.Join(t.TempDir(), "nope")}, "not found"},
		{"MissingTemplates", []string{"--content", content, "--templates", filepath.Join(t.TempDir(), "nope")}, "--templates"},
		{"BadAddr", []string{"--content", content, "--addr", "127.0.0.1:notaport"}, "cannot listen"},
		{"Argument", []string{"--content", content, "extra"}, "unexpected argument"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			e := &env{stdout: &out, stderr: &errOut, getenv: func(string) string { return "" }}
			if code := run(context.Background(), e, append([]string{"serve"}, tc.args...)); code != exitUsage {
				t.Errorf("exit code: got %d, want %d", code, exitUsage)
			}
			if !strings.Contains(errOut.String(), tc.want) {
				t.Errorf("stderr: got %q, want it to mention %q", errOut.String(), tc.want)
			}
		})
	}
}

// TestBuildHasNoLiveReload checks that only serve's builds carry the
// live-reload script: "skillcat build" output never mentions it.
func TestBuildHasNoLiveReload(t *testing.T) {
	out := filepath.Join(t.TempDir(), "public")
	var stdout, stderr bytes.Buffer
	e := &env{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
	if code := run(context.Background(), e, []string{"build", "--content", filepath.Join("..", "..", "content"), "--out", out}); code != exitOK {
		t.Fatalf("build: exit %d: %s", code, stderr.String())
	}
	n := 0
	err := filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		if strings.Contains(d.Name(), "livereload") {
			t.Errorf("%s: live-reload file in the build output", p)
		}
		data, err := os.ReadFile(p)
		if bytes.Contains(data, []byte("livereload")) || bytes.Contains(data, []byte("_skillcat/events")) {
			t.Errorf("%s: mentions live reload", p)
		}
		return err
	})
	if err != nil || n == 0 {
		t.Fatalf("walk %s: %d files, %v", out, n, err)
	}
}
