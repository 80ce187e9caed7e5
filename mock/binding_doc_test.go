package mock_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/client"
	"github.com/skillcat/skillcat/mock"
)

// docMessage is an HTTP request or response written out in
// docs/protocol.md.
type docMessage struct {
	line   int    // where its block opens
	start  string // "POST /forecast HTTP/1.1", "HTTP/1.1 200 OK"
	header http.Header
	body   []byte
}

// docExchange is a request of the page and the response after it.
type docExchange struct {
	req, resp docMessage
}

// bindingDoc reads the section "Invocation over HTTP" of docs/protocol.md:
// its descriptor and its exchanges, in order.
func bindingDoc(t *testing.T) (*skillcat.SkillDescriptor, []docExchange) {
	t.Helper()
	data, err := os.ReadFile("../docs/protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	var d *skillcat.SkillDescriptor
	var msgs []docMessage
	var kinds []string
	in, fence, start := false, "", 0
	var text strings.Builder
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			in = line == "## Invocation over HTTP"
		case !in:
		case fence == "" && strings.HasPrefix(line, "```"):
			fence, start = strings.TrimPrefix(line, "```"), n
			text.Reset()
		case fence != "" && line == "```":
			switch fence {
			case "json descriptor":
				var vs skillcat.Violations
				if d, vs = skillcat.ParseDescriptor("docs/protocol.md:"+strconv.Itoa(start), []byte(text.String())); vs.HasErrors() {
					t.Fatal(vs)
				}
			case "http request", "http response":
				msgs = append(msgs, parseMessage(t, start, text.String()))
				kinds = append(kinds, fence)
			}
			fence = ""
		case fence != "":
			text.WriteString(line + "\n")
		}
	}
	if d == nil {
		t.Fatal("docs/protocol.md: no json descriptor in \"Invocation over HTTP\"")
	}
	var xs []docExchange
	for i := 0; i+1 < len(msgs); i += 2 {
		if kinds[i] != "http request" || kinds[i+1] != "http response" {
			t.Fatalf("docs/protocol.md:%d: want an http request block followed by an http response block", msgs[i].line)
		}
		xs = append(xs, docExchange{msgs[i], msgs[i+1]})
	}
	if len(msgs)%2 != 0 || len(xs) < 4 {
		t.Fatalf("docs/protocol.md: got %d http blocks, want request/response pairs, at least 4", len(msgs))
	}
	return d, xs
}

func parseMessage(t *testing.T, line int, text string) docMessage {
	t.Helper()
	head, body, _ := strings.Cut(text, "\n\n")
	lines := strings.Split(strings.TrimRight(head, "\n"), "\n")
	m := docMessage{line: line, start: lines[0], header: http.Header{}, body: []byte(strings.TrimSpace(body))}
	for _, l := range lines[1:] {
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			t.Fatalf("docs/protocol.md:%d: header line %q", line, l)
		}
		m.header.Add(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	return m
}

func (m docMessage) method() string { return strings.Fields(m.start)[0] }
func (m docMessage) target() string { return strings.Fields(m.start)[1] }
func (m docMessage) status() int {
	n, _ := strconv.Atoi(strings.Fields(m.start)[1])
	return n
}

// request decodes the InvocationRequest a documented request carries.
func (m docMessage) request(t *testing.T) *skillcat.InvocationRequest {
	t.Helper()
	data := m.body
	if !skillcat.HasBody(m.method()) {
		u, err := url.Parse(m.target())
		if err != nil {
			t.Fatal(err)
		}
		if data, err = skillcat.RequestFromQuery(u.Query()); err != nil {
			t.Fatal(err)
		}
	}
	r := new(skillcat.InvocationRequest)
	if err := json.Unmarshal(data, r); err != nil {
		t.Fatalf("docs/protocol.md:%d: %v", m.line, err)
	}
	return r
}

// docServer serves the mock with the page's endpoint path mapped to it,
// and records every request it gets.
type docServer struct {
	srv  *httptest.Server
	mock *mock.Handler

	mu   sync.Mutex
	seen []*http.Request
	body [][]byte
}

func newDocServer(t testing.TB, d *skillcat.SkillDescriptor) *docServer {
	s := &docServer{mock: mock.New(d)}
	s.mock.Credential = "demo-key-123"
	s.mock.RetryAfter = 1
	endpoint, _ := url.Parse(d.Endpoint.URL)
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.seen = append(s.seen, r.Clone(context.Background()))
		s.body = append(s.body, body)
		s.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		if r.URL.Path == endpoint.Path {
			r.URL.Path = mock.SkillPath(d.ID)
		}
		s.mock.ServeHTTP(w, r)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

// TestBindingDocMock sends each request of the page to the mock and
// checks that the answer is the one the page shows (execution ids and
// times aside).
func TestBindingDocMock(t *testing.T) {
	d, xs := bindingDoc(t)
	servers := map[string]*docServer{} // one per method, for the test's whole run
	var last *docServer                // the server that answered with a Location
	location := ""
	parent := t
	for _, x := range xs {
		t.Run("line"+strconv.Itoa(x.req.line), func(t *testing.T) {
			target := x.req.target()
			s := last
			if strings.HasPrefix(target, "/executions/") {
				if location == "" {
					t.Fatal("a poll with no Location before it")
				}
				target = location
			} else {
				if servers[x.req.method()] == nil {
					dd := *d
					dd.Endpoint.Method = x.req.method()
					servers[x.req.method()] = newDocServer(parent, &dd)
				}
				s = servers[x.req.method()]
				s.mock.Polls = 0
				if x.resp.status() == http.StatusAccepted {
					s.mock.Polls = 1
				}
			}
			req, err := http.NewRequest(x.req.method(), s.srv.URL+target, bytes.NewReader(x.req.body))
			if err != nil {
				t.Fatal(err)
			}
			for k, vs := range x.req.header {
				if k != "Host" {
					req.Header[k] = vs
				}
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != x.resp.status() {
				t.Fatalf("docs/protocol.md:%d: got %s %s, want %s", x.resp.line, resp.Status, body, x.resp.start)
			}
			for k := range x.resp.header {
				got, want := resp.Header.Get(k), x.resp.header.Get(k)
				switch k {
				case "Location":
					if got == "" {
						t.Errorf("docs/protocol.md:%d: no Location header", x.resp.line)
					}
					loc, _ := url.Parse(got)
					location, last = req.URL.ResolveReference(loc).Path, s
				case "Content-Type":
					gm, _, _ := mime.ParseMediaType(got)
					wm, _, _ := mime.ParseMediaType(want)
					if gm != wm {
						t.Errorf("docs/protocol.md:%d: got Content-Type %q, want %q", x.resp.line, got, want)
					}
				default:
					if got != want {
						t.Errorf("docs/protocol.md:%d: got %s %q, want %q", x.resp.line, k, got, want)
					}
				}
			}
			compareResponse(t, x.resp, body)
		})
	}
}

// compareResponse checks an actual response body against the page's,
// execution id and timestamps aside.
func compareResponse(t *testing.T, doc docMessage, body []byte) {
	t.Helper()
	if _, vs := skillcat.ParseResponse("response", body); vs.HasErrors() {
		t.Fatalf("the mock answered an invalid response: %v", vs)
	}
	var got, want map[string]json.RawMessage
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(doc.body, &want); err != nil {
		t.Fatalf("docs/protocol.md:%d: %v", doc.line, err)
	}
	got["execution_id"], got["timestamps"] = want["execution_id"], want["timestamps"]
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	diffs, err := skillcat.DiffJSON("response", g, w, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, df := range diffs {
		t.Errorf("docs/protocol.md:%d: %s", doc.line, df)
	}
}

// TestBindingDocClient invokes the skill with the inputs of each request
// of the page and checks that the client sends what the page shows, or
// refuses what the page marks as invalid before sending anything.
func TestBindingDocClient(t *testing.T) {
	d, xs := bindingDoc(t)
	for i := 0; i < len(xs); i++ {
		x := xs[i]
		if strings.HasPrefix(x.req.target(), "/executions/") {
			continue
		}
		var polls []docExchange
		if x.resp.status() == http.StatusAccepted {
			for j := i + 1; j < len(xs) && strings.HasPrefix(xs[j].req.target(), "/executions/"); j++ {
				polls = append(polls, xs[j])
			}
		}
		t.Run("line"+strconv.Itoa(x.req.line), func(t *testing.T) {
			dd := *d
			dd.Endpoint.Method = x.req.method()
			s := newDocServer(t, &dd)
			s.mock.Polls = len(polls)
			want := x.req.request(t)
			resp, err := (&client.Client{}).Invoke(context.Background(), &dd, want.Inputs, client.InvokeOptions{
				Caller: want.Caller, RequestID: want.RequestID, Credential: client.Credential{Secret: "demo-key-123"},
				Endpoint: s.srv.URL + dd.Endpoint.URL[strings.Index(dd.Endpoint.URL, "/forecast"):], Wait: 10 * time.Second,
			})
			if x.resp.status() == http.StatusBadRequest {
				if _, ok := skillcat.AsViolations(err); !ok {
					t.Fatalf("got %v, want the client to refuse the invalid request", err)
				}
				if len(s.seen) != 0 {
					t.Errorf("the client sent %d requests; want none", len(s.seen))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if resp.Status != skillcat.StatusSucceeded {
				t.Fatalf("got %s, want succeeded", resp.Status)
			}
			if len(s.seen) != 1+len(polls) {
				t.Fatalf("got %d requests, want %d", len(s.seen), 1+len(polls))
			}
			compareRequest(t, x.req, s.seen[0], s.body[0], true)
			for k, p := range polls {
				compareRequest(t, p.req, s.seen[k+1], s.body[k+1], false)
			}
		})
	}
}

// compareRequest checks a request the client sent against the page's.
func compareRequest(t *testing.T, doc docMessage, got *http.Request, body []byte, target bool) {
	t.Helper()
	at := "docs/protocol.md:" + strconv.Itoa(doc.line)
	if got.Method != doc.method() {
		t.Errorf("%s: got method %s, want %s", at, got.Method, doc.method())
	}
	want, _ := url.Parse(doc.target())
	if target {
		if got.URL.Path != want.Path {
			t.Errorf("%s: got path %s, want %s", at, got.URL.Path, want.Path)
		}
		if got.URL.RawQuery != want.RawQuery {
			t.Errorf("%s: got query\n%s\nwant\n%s", at, got.URL.RawQuery, want.RawQuery)
		}
	}
	for k := range doc.header {
		if k == "Host" {
			continue
		}
		if g, w := got.Header.Get(k), doc.header.Get(k); g != w {
			t.Errorf("%s: got %s %q, want %q", at, k, g, w)
		}
	}
	if len(doc.body) == 0 {
		if len(body) != 0 {
			t.Errorf("%s: got a body %q, want none", at, body)
		}
		return
	}
	diffs, err := skillcat.DiffJSON("body", body, doc.body, false)
	if err != nil {
		t.Fatalf("%s: %v", at, err)
	}
	for _, df := range diffs {
		t.Errorf("%s: %s", at, df)
	}
}
