package client_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/client"
	"github.com/skillcat/skillcat/mock"
)

func TestCheckRequest(t *testing.T) {
	d := descriptor("weather.forecast", skillcat.API, skillcat.Public)
	request := func(edit func(r *skillcat.InvocationRequest)) *skillcat.InvocationRequest {
		r := &skillcat.InvocationRequest{
			Caller:  skillcat.Caller{ID: "agent-7", Type: skillcat.CallerAgent},
			SkillID: d.ID,
			Inputs:  json.RawMessage(`{"q": "Berlin"}`),
		}
		if edit != nil {
			edit(r)
		}
		return r
	}
	t.Run("OK", func(t *testing.T) {
		if err := client.CheckRequest(d, request(nil)); err != nil {
			t.Errorf("got %v, want none", err)
		}
	})
	for _, c := range []struct {
		name string
		edit func(r *skillcat.InvocationRequest)
		want []string
	}{
		{"ErrInputs", func(r *skillcat.InvocationRequest) { r.Inputs = json.RawMessage(`{"q": ""}`) }, []string{"inputs.q"}},
		{"ErrMissingInput", func(r *skillcat.InvocationRequest) { r.Inputs = json.RawMessage(`{}`) }, []string{"inputs"}},
		{"ErrSkillID", func(r *skillcat.InvocationRequest) { r.SkillID = "geocode" }, []string{"skill_id", `"weather.forecast"`, `"geocode"`}},
		{"ErrCaller", func(r *skillcat.InvocationRequest) { r.Caller = skillcat.Caller{} }, []string{"caller"}},
		{"ErrNoInputs", func(r *skillcat.InvocationRequest) { r.Inputs = nil }, []string{"inputs"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := client.CheckRequest(d, request(c.edit))
			if err == nil {
				t.Fatal("got no error")
			}
			if _, ok := skillcat.AsViolations(err); !ok {
				t.Errorf("got %T, want skillcat.Violations", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("got %q, want it to mention %s", err, w)
				}
			}
		})
	}
	t.Run("ErrNil", func(t *testing.T) {
		if err := client.CheckRequest(nil, request(nil)); err == nil {
			t.Error("got no error for a nil descriptor")
		}
	})
}

// weather is a skill with one example, answered by the mock.
func weather(endpoint string, auth skillcat.Auth, method string) *skillcat.SkillDescriptor {
	d := descriptor("weather.forecast", skillcat.API, skillcat.Public)
	d.Auth = auth
	d.Endpoint = skillcat.Endpoint{URL: endpoint, Method: method}
	d.Output = json.RawMessage(`{"type":"object","properties":{"temp_c":{"type":"number"}},"required":["temp_c"]}`)
	d.Examples = []skillcat.Example{{Title: "Berlin", Inputs: json.RawMessage(`{"q": "Berlin"}`), Output: json.RawMessage(`{"temp_c": 3.5}`)}}
	return d
}

// recorded is what an endpoint saw of one request.
type recorded struct {
	method, path string
	query        url.Values
	header       http.Header
	body         []byte
}

// endpoint is a real HTTP server on 127.0.0.1 that records every request
// and answers with the mock, or with its own handler when set.
type endpoint struct {
	srv  *httptest.Server
	mock *mock.Handler

	mu      sync.Mutex
	seen    []recorded
	handler http.HandlerFunc
}

func newEndpoint(t *testing.T, skills ...*skillcat.SkillDescriptor) *endpoint {
	t.Helper()
	e := &endpoint{mock: mock.New(skills...)}
	e.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		e.mu.Lock()
		e.seen = append(e.seen, recorded{r.Method, r.URL.Path, r.URL.Query(), r.Header.Clone(), body})
		h := e.handler
		e.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		if h != nil {
			h(w, r)
			return
		}
		e.mock.ServeHTTP(w, r)
	}))
	t.Cleanup(e.srv.Close)
	return e
}

func (e *endpoint) url(id string) string { return e.srv.URL + mock.SkillPath(id) }

func (e *endpoint) requests() []recorded {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.seen)
}

func TestInvokeAuth(t *testing.T) {
	const secret = "s3cret-value"
	for _, c := range []struct {
		name string
		auth skillcat.Auth
		cred client.Credential
		// where tells whether the request carries the credential where
		// the auth type puts it, and nowhere else.
		where func(r recorded) string
	}{
		{"APIKeyHeader", skillcat.Auth{Type: skillcat.AuthAPIKey, In: "header", Name: "X-Api-Key"}, client.Credential{Secret: secret},
			func(r recorded) string {
				if r.header.Get("X-Api-Key") != secret {
					return "no X-Api-Key header"
				}
				if r.query.Has("X-Api-Key") || r.header.Get("Authorization") != "" {
					return "the key is also elsewhere"
				}
				return ""
			}},
		{"APIKeyQuery", skillcat.Auth{Type: skillcat.AuthAPIKey, In: "query", Name: "key"}, client.Credential{Secret: secret},
			func(r recorded) string {
				if r.query.Get("key") != secret {
					return "no key query parameter"
				}
				if r.header.Get("key") != "" || r.header.Get("Authorization") != "" {
					return "the key is also in a header"
				}
				return ""
			}},
		{"OAuth2", skillcat.Auth{Type: skillcat.AuthOAuth2, TokenURL: "https://auth.example.com/token"}, client.Credential{Secret: secret},
			func(r recorded) string {
				if r.header.Get("Authorization") != "Bearer "+secret {
					return "no bearer token"
				}
				return ""
			}},
		{"Custom", skillcat.Auth{Type: skillcat.AuthCustom, Instructions: "Send X-Installation and sign the body."},
			client.Credential{Header: http.Header{"X-Installation": {secret}}, Sign: func(req *http.Request, body []byte) error {
				sum := sha256.Sum256(append([]byte(secret), body...))
				req.Header.Set("X-Signature", hex.EncodeToString(sum[:]))
				return nil
			}},
			func(r recorded) string {
				if r.header.Get("X-Installation") != secret {
					return "no X-Installation header"
				}
				sum := sha256.Sum256(append([]byte(secret), r.body...))
				if r.header.Get("X-Signature") != hex.EncodeToString(sum[:]) {
					return "no valid X-Signature of the body"
				}
				return ""
			}},
		{"None", skillcat.Auth{Type: skillcat.AuthNone}, client.Credential{Secret: secret, Header: http.Header{"X-Installation": {secret}}},
			func(r recorded) string {
				for name, vals := range r.header {
					if slices.Contains(vals, secret) || slices.Contains(vals, "Bearer "+secret) {
						return "a credential was sent in " + name + " to a skill that takes none"
					}
				}
				if strings.Contains(r.query.Encode(), secret) {
					return "a credential was sent in the query"
				}
				return ""
			}},
	} {
		for _, method := range []string{"POST", "GET", "PUT", "DELETE"} {
			t.Run(c.name+"/"+method, func(t *testing.T) {
				e := newEndpoint(t)
				d := weather("", c.auth, method)
				d.Endpoint.URL = e.url(d.ID)
				e.mock = mock.New(d)
				e.mock.Credential = secret
				resp, err := (&client.Client{}).Invoke(context.Background(), d, json.RawMessage(`{"q":"Berlin"}`), client.InvokeOptions{Credential: c.cred})
				if err != nil {
					t.Fatal(err)
				}
				if resp.Status != skillcat.StatusSucceeded || string(resp.Output) != `{"temp_c":3.5}` {
					t.Fatalf("got %s %s (%v), want succeeded with the example's output", resp.Status, resp.Output, resp.Error)
				}
				reqs := e.requests()
				if len(reqs) != 1 {
					t.Fatalf("got %d requests, want 1", len(reqs))
				}
				if reqs[0].method != method {
					t.Errorf("got method %s, want %s", reqs[0].method, method)
				}
				if msg := c.where(reqs[0]); msg != "" {
					t.Error(msg)
				}
			})
		}
	}
	t.Run("ErrMissing", func(t *testing.T) {
		for _, a := range []skillcat.Auth{
			{Type: skillcat.AuthAPIKey, In: "header", Name: "X-Api-Key"},
			{Type: skillcat.AuthOAuth2, TokenURL: "https://auth.example.com/token"},
			{Type: skillcat.AuthCustom, Instructions: "Ask us."},
		} {
			d := weather("http://127.0.0.1:1/never", a, "POST")
			_, err := (&client.Client{}).Invoke(context.Background(), d, json.RawMessage(`{"q":"Berlin"}`), client.InvokeOptions{})
			if !errors.Is(err, client.ErrCredential) {
				t.Errorf("%s: got %v, want ErrCredential", a.Type, err)
			}
		}
	})
	t.Run("ErrWrongCredential", func(t *testing.T) {
		e := newEndpoint(t)
		d := weather("", skillcat.Auth{Type: skillcat.AuthOAuth2, TokenURL: "https://auth.example.com/token"}, "POST")
		d.Endpoint.URL = e.url(d.ID)
		e.mock = mock.New(d)
		e.mock.Credential = secret
		resp, err := (&client.Client{}).Invoke(context.Background(), d, json.RawMessage(`{"q":"Berlin"}`), client.InvokeOptions{Credential: client.Credential{Secret: "other"}})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Status != skillcat.StatusFailed || resp.Error.Code != "unauthorized" {
			t.Errorf("got %s %+v, want failed unauthorized", resp.Status, resp.Error)
		}
	})
}

// countingListener counts the connections made to it.
type countingListener struct {
	net.Listener
	n atomic.Int32
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.n.Add(1)
	}
	return c, err
}

func TestInvokeInvalidRequestSendsNothing(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cl := &countingListener{Listener: ln}
	srv := &http.Server{Handler: http.NotFoundHandler()}
	go srv.Serve(cl)
	t.Cleanup(func() { srv.Close() })
	base := "http://" + ln.Addr().String()

	for _, c := range []struct {
		name   string
		inputs string
		opts   client.InvokeOptions
		method string
		want   string
	}{
		{"ErrInputs", `{"q": ""}`, client.InvokeOptions{}, "POST", "inputs.q"},
		{"ErrMissingInput", `{}`, client.InvokeOptions{}, "POST", "inputs"},
		{"ErrNotObject", `[1]`, client.InvokeOptions{}, "POST", "inputs"},
		{"ErrCaller", `{"q": "Berlin"}`, client.InvokeOptions{Caller: skillcat.Caller{ID: "me", Type: "robot"}}, "POST", "caller.type"},
		{"ErrURLTooLong", `{"q": "` + strings.Repeat("x", 9000) + `"}`, client.InvokeOptions{}, "GET", "8000"},
		{"ErrQueryMember", `{"q": "Berlin"}`, client.InvokeOptions{Endpoint: base + "/x?inputs=1"}, "GET", `"inputs"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := weather(base+"/skills/weather.forecast", skillcat.Auth{Type: skillcat.AuthNone}, c.method)
			_, err := (&client.Client{}).Invoke(context.Background(), d, json.RawMessage(c.inputs), c.opts)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error naming %s", err, c.want)
			}
			if n := cl.n.Load(); n != 0 {
				t.Errorf("got %d connections, want none: an invalid request must not be sent", n)
			}
		})
	}
	t.Run("ErrHTTPSRequired", func(t *testing.T) {
		d := weather("http://api.example.com/weather", skillcat.Auth{Type: skillcat.AuthNone}, "POST")
		_, err := (&client.Client{}).Invoke(context.Background(), d, json.RawMessage(`{"q":"Berlin"}`), client.InvokeOptions{})
		if !errors.Is(err, client.ErrHTTPSRequired) {
			t.Errorf("got %v, want ErrHTTPSRequired", err)
		}
	})
}

func TestInvokeInvalidResponse(t *testing.T) {
	const created, started, completed = "2026-01-02T03:04:05Z", "2026-01-02T03:04:06Z", "2026-01-02T03:04:07Z"
	ok := func(edit func(m map[string]any)) []byte {
		m := map[string]any{
			"execution_id": "e1", "status": "succeeded", "skill_id": "weather.forecast",
			"timestamps": map[string]any{"created_at": created, "started_at": started, "completed_at": completed},
			"output":     map[string]any{"temp_c": 3.5},
		}
		edit(m)
		data, _ := json.Marshal(m)
		return data
	}
	for _, c := range []struct {
		name   string
		ctype  string
		status int
		body   []byte
		want   []string
		is     error
	}{
		{"ErrNotJSON", "application/json", 200, []byte(`{"execution_id": `), []string{"invalid JSON"}, client.ErrInvalidResponse},
		{"ErrHTML", "text/html", 200, []byte(`<html></html>`), []string{"HTML"}, client.ErrContentType},
		{"ErrSkillID", "application/json", 200, ok(func(m map[string]any) { m["skill_id"] = "geocode" }), []string{"skill_id", `"geocode"`}, client.ErrInvalidResponse},
		{"ErrNoOutput", "application/json", 200, ok(func(m map[string]any) { delete(m, "output") }), []string{"output"}, client.ErrInvalidResponse},
		{"ErrOutputSchema", "application/json", 200, ok(func(m map[string]any) { m["output"] = map[string]any{"temp_c": "warm"} }), []string{"output.temp_c"}, client.ErrInvalidResponse},
		{"ErrTimestamps", "application/json", 200, ok(func(m map[string]any) {
			m["timestamps"] = map[string]any{"created_at": completed, "started_at": started, "completed_at": created}
		}), []string{"timestamps.started_at", "earlier"}, client.ErrInvalidResponse},
		{"ErrFailedWithoutError", "application/json", 200, ok(func(m map[string]any) { m["status"] = "failed"; delete(m, "output") }), []string{"error"}, client.ErrInvalidResponse},
		{"ErrRunningWithoutLocation", "application/json", 200, ok(func(m map[string]any) { m["status"] = "running"; delete(m, "output") }), []string{"Location"}, client.ErrInvalidResponse},
		{"ErrStatusHTML", "text/html", 502, []byte(`<html>bad gateway</html>`), []string{"502"}, client.ErrHTTPStatus},
		{"ErrStatusSucceeded", "application/json", 500, ok(func(m map[string]any) {}), []string{"500", "failed"}, client.ErrHTTPStatus},
		{"ErrRedirectStatus", "application/json", 204, nil, []string{"204"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEndpoint(t)
			e.handler = func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", c.ctype)
				w.WriteHeader(c.status)
				w.Write(c.body)
			}
			d := weather(e.url("weather.forecast"), skillcat.Auth{Type: skillcat.AuthNone}, "POST")
			resp, err := (&client.Client{}).Invoke(context.Background(), d, json.RawMessage(`{"q":"Berlin"}`), client.InvokeOptions{})
			if err == nil {
				t.Fatalf("got %s, want an error", resp.Status)
			}
			var re *client.ResponseError
			if !errors.As(err, &re) {
				t.Fatalf("got %T %v, want a *client.ResponseError", err, err)
			}
			if c.is != nil && !errors.Is(err, c.is) {
				t.Errorf("got %v, want it to match %v", err, c.is)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("got %q, want it to mention %s", err, w)
				}
			}
		})
	}
	t.Run("FailedWithErrorStatus", func(t *testing.T) {
		e := newEndpoint(t)
		d := weather("", skillcat.Auth{Type: skillcat.AuthNone}, "POST")
		d.Endpoint.URL = e.url(d.ID)
		e.mock = mock.New(d)
		resp, err := (&client.Client{}).Invoke(context.Background(), d, json.RawMessage(`{"q":"Paris"}`), client.InvokeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Status != skillcat.StatusFailed || resp.Error.Code != "no_matching_example" {
			t.Errorf("got %s %+v, want failed no_matching_example", resp.Status, resp.Error)
		}
	})
}

// slowJob answers 202 and then running to the first polls, with
// Retry-After, before it succeeds.
func slowJob(t *testing.T, e *endpoint, running int, retryAfter string) *atomic.Int32 {
	t.Helper()
	var polls atomic.Int32
	e.handler = func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method == "POST" && r.URL.Path == "/skills/weather.forecast":
			w.Header().Set("Location", "/jobs/e1?view=status")
			w.Header().Set("Retry-After", retryAfter)
			w.WriteHeader(http.StatusAccepted)
			io.WriteString(w, `{"execution_id":"e1","status":"accepted","skill_id":"weather.forecast","timestamps":{"created_at":"2026-01-02T03:04:05Z"}}`)
		case r.Method == "GET" && r.URL.Path == "/jobs/e1" && r.URL.Query().Get("view") == "status":
			if int(polls.Add(1)) <= running {
				w.Header().Set("Retry-After", retryAfter)
				io.WriteString(w, `{"execution_id":"e1","status":"running","skill_id":"weather.forecast","timestamps":{"created_at":"2026-01-02T03:04:05Z","started_at":"2026-01-02T03:04:06Z"}}`)
				return
			}
			io.WriteString(w, `{"execution_id":"e1","status":"succeeded","skill_id":"weather.forecast","timestamps":{"created_at":"2026-01-02T03:04:05Z","started_at":"2026-01-02T03:04:06Z","completed_at":"2026-01-02T03:09:00Z"},"output":{"temp_c":4}}`)
		default:
			http.NotFound(w, r)
		}
	}
	return &polls
}

func TestInvokePolling(t *testing.T) {
	t.Run("SlowJob", func(t *testing.T) {
		e := newEndpoint(t)
		polls := slowJob(t, e, 4, "0")
		d := weather(e.url("weather.forecast"), skillcat.Auth{Type: skillcat.AuthAPIKey, In: "header", Name: "X-Api-Key"}, "POST")
		var seen []skillcat.Status
		resp, err := (&client.Client{}).Invoke(context.Background(), d, json.RawMessage(`{"q":"Berlin"}`), client.InvokeOptions{
			Credential:   client.Credential{Secret: "k"},
			PollInterval: 5 * time.Millisecond,
			OnResponse:   func(r *skillcat.InvocationResponse, _ string) { seen = append(seen, r.Status) },
		})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Status != skillcat.StatusSucceeded || string(resp.Output) != `{"temp_c":4}` {
			t.Fatalf("got %s %s, want succeeded", resp.Status, resp.Output)
		}
		if got := polls.Load(); got != 5 {
			t.Errorf("got %d polls, want 5", got)
		}
		want := []skillcat.Status{"accepted", "running", "running", "running", "running", "succeeded"}
		if !slices.Equal(seen, want) {
			t.Errorf("got statuses %v, want %v", seen, want)
		}
		for _, r := range e.requests()[1:] {
			if r.header.Get("X-Api-Key") != "k" {
				t.Errorf("poll %s without the credential", r.path)
			}
		}
	})
	t.Run("Mock", func(t *testing.T) {
		e := newEndpoint(t)
		d := weather("", skillcat.Auth{Type: skillcat.AuthNone}, "PATCH")
		d.Endpoint.URL = e.url(d.ID)
		e.mock = mock.New(d)
		e.mock.Polls = 3
		resp, err := (&client.Client{}).Invoke(context.Background(), d, json.RawMessage(`{"q":"Berlin"}`), client.InvokeOptions{PollInterval: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Status != skillcat.StatusSucceeded || string(resp.Output) != `{"temp_c":3.5}` {
			t.Fatalf("got %s %s, want succeeded", resp.Status, resp.Output)
		}
		if n := len(e.requests()); n != 4 {
			t.Errorf("got %d requests, want 4 (invoke, 2 running, succeeded)", n)
		}
	})
	t.Run("ErrStillRunning", func(t *testing.T) {
		e := newEndpoint(t)
		slowJob(t, e, 1000, "1")
		d := weather(e.url("weather.forecast"), skillcat.Auth{Type: skillcat.AuthNone}, "POST")
		resp, err := (&client.Client{}).Invoke(context.Background(), d, json.RawMessage(`{"q":"Berlin"}`), client.InvokeOptions{Wait: 1500 * time.Millisecond})
		if !errors.Is(err, client.ErrStillRunning) {
			t.Fatalf("got %v, want ErrStillRunning", err)
		}
		if resp == nil || resp.Status != skillcat.StatusRunning || !strings.Contains(err.Error(), "/jobs/e1") {
			t.Errorf("got %v and %v, want the last running response and the status URL", resp, err)
		}
	})
	t.Run("Poll", func(t *testing.T) {
		e := newEndpoint(t)
		slowJob(t, e, 2, "0")
		d := weather(e.url("weather.forecast"), skillcat.Auth{Type: skillcat.AuthNone}, "POST")
		resp, err := (&client.Client{}).Poll(context.Background(), d, e.srv.URL+"/jobs/e1?view=status", client.InvokeOptions{PollInterval: time.Millisecond})
		if err != nil || resp.Status != skillcat.StatusSucceeded {
			t.Fatalf("got %v, %v; want succeeded", resp, err)
		}
	})
	t.Run("ErrStatusURLOrigin", func(t *testing.T) {
		e := newEndpoint(t)
		other := newEndpoint(t)
		e.handler = func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Location", other.srv.URL+"/jobs/e1")
			w.WriteHeader(http.StatusAccepted)
			io.WriteString(w, `{"execution_id":"e1","status":"accepted","skill_id":"weather.forecast","timestamps":{"created_at":"2026-01-02T03:04:05Z"}}`)
		}
		d := weather(e.url("weather.forecast"), skillcat.Auth{Type: skillcat.AuthOAuth2, TokenURL: "https://a.example.com/t"}, "POST")
		_, err := (&client.Client{}).Invoke(context.Background(), d, json.RawMessage(`{"q":"Berlin"}`), client.InvokeOptions{Credential: client.Credential{Secret: "tok"}})
		if !errors.Is(err, client.ErrInvalidResponse) || !strings.Contains(err.Error(), "origin") {
			t.Errorf("got %v, want a refused status URL on another origin", err)
		}
		if n := len(other.requests()); n != 0 {
			t.Errorf("the other origin got %d requests, want none", n)
		}
	})
}

func TestInvokeRedirectCredential(t *testing.T) {
	const secret = "do-not-leak"
	for _, c := range []struct {
		name string
		auth skillcat.Auth
		cred client.Credential
	}{
		{"APIKeyHeader", skillcat.Auth{Type: skillcat.AuthAPIKey, In: "header", Name: "X-Api-Key"}, client.Credential{Secret: secret}},
		{"APIKeyQuery", skillcat.Auth{Type: skillcat.AuthAPIKey, In: "query", Name: "key"}, client.Credential{Secret: secret}},
		{"OAuth2", skillcat.Auth{Type: skillcat.AuthOAuth2, TokenURL: "https://a.example.com/t"}, client.Credential{Secret: secret}},
		{"Custom", skillcat.Auth{Type: skillcat.AuthCustom, Instructions: "X-Token"}, client.Credential{Header: http.Header{"X-Token": {secret}}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			// Another port of the same host is another origin.
			other := newEndpoint(t)
			d := weather(other.url("weather.forecast"), c.auth, "POST")
			other.mock = mock.New(d)
			e := newEndpoint(t)
			e.handler = func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, other.url("weather.forecast"), http.StatusTemporaryRedirect)
			}
			d.Endpoint.URL = e.url(d.ID)
			_, err := (&client.Client{}).Invoke(context.Background(), d, json.RawMessage(`{"q":"Berlin"}`), client.InvokeOptions{Credential: c.cred})
			if err != nil {
				t.Fatal(err)
			}
			reqs := other.requests()
			if len(reqs) != 1 {
				t.Fatalf("the redirect target got %d requests, want 1", len(reqs))
			}
			r := reqs[0]
			if strings.Contains(r.query.Encode(), secret) {
				t.Errorf("the other origin got the credential in the query %q", r.query.Encode())
			}
			for name, vals := range r.header {
				for _, v := range vals {
					if strings.Contains(v, secret) {
						t.Errorf("the other origin got the credential in header %s", name)
					}
				}
			}
			if !strings.Contains(string(r.body), `"q":"Berlin"`) {
				t.Errorf("got body %q, want the request carried by the 307", r.body)
			}
		})
	}
	t.Run("SameOriginKeeps", func(t *testing.T) {
		e := newEndpoint(t)
		d := weather("", skillcat.Auth{Type: skillcat.AuthAPIKey, In: "header", Name: "X-Api-Key"}, "POST")
		d.Endpoint.URL = e.srv.URL + "/old"
		m := mock.New(d)
		m.Credential = secret
		e.handler = func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/old" {
				http.Redirect(w, r, mock.SkillPath(d.ID), http.StatusPermanentRedirect)
				return
			}
			m.ServeHTTP(w, r)
		}
		resp, err := (&client.Client{}).Invoke(context.Background(), d, json.RawMessage(`{"q":"Berlin"}`), client.InvokeOptions{Credential: client.Credential{Secret: secret}})
		if err != nil || resp.Status != skillcat.StatusSucceeded {
			t.Fatalf("got %v, %v; want succeeded with the credential kept on the same origin", resp, err)
		}
	})
}

func TestInvokeTooLarge(t *testing.T) {
	const total = 100 << 20
	var written atomic.Int64
	e := newEndpoint(t)
	e.handler = func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, `{"execution_id":"e1","status":"succeeded","skill_id":"weather.forecast","output":"`)
		chunk := bytes.Repeat([]byte("x"), 64<<10)
		for written.Load() < total {
			n, err := w.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				return
			}
		}
	}
	d := weather(e.url("weather.forecast"), skillcat.Auth{Type: skillcat.AuthNone}, "POST")
	_, err := (&client.Client{}).Invoke(context.Background(), d, json.RawMessage(`{"q":"Berlin"}`), client.InvokeOptions{})
	if !errors.Is(err, client.ErrTooLarge) {
		t.Fatalf("got %v, want ErrTooLarge", err)
	}
	e.srv.CloseClientConnections()
	time.Sleep(50 * time.Millisecond)
	t.Logf("the server wrote %d of %d bytes before the client hung up", written.Load(), total)
	// The client reads MaxBytes+1 and hangs up; what the kernel buffered
	// besides is a few MiB at most.
	if n := written.Load(); n >= 4*client.DefaultMaxBytes {
		t.Errorf("the server wrote %d bytes; want the client to hang up soon after %d", n, client.DefaultMaxBytes)
	}
}

func TestInvokeTransport(t *testing.T) {
	d := func(u string) *skillcat.SkillDescriptor {
		return weather(u, skillcat.Auth{Type: skillcat.AuthOAuth2, TokenURL: "https://a.example.com/t"}, "POST")
	}
	cred := client.InvokeOptions{Credential: client.Credential{Secret: "tok-secret"}}
	t.Run("TLS", func(t *testing.T) {
		var m *mock.Handler
		srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { m.ServeHTTP(w, r) }))
		defer srv.Close()
		sk := d(srv.URL + mock.SkillPath("weather.forecast"))
		m = mock.New(sk)
		c := &client.Client{HTTPClient: srv.Client()}
		resp, err := c.Invoke(context.Background(), sk, json.RawMessage(`{"q":"Berlin"}`), cred)
		if err != nil || resp.Status != skillcat.StatusSucceeded {
			t.Fatalf("got %v, %v; want succeeded over https", resp, err)
		}
	})
	t.Run("ErrDowngrade", func(t *testing.T) {
		plain := newEndpoint(t)
		srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, plain.url("weather.forecast"), http.StatusTemporaryRedirect)
		}))
		defer srv.Close()
		c := &client.Client{HTTPClient: srv.Client()}
		_, err := c.Invoke(context.Background(), d(srv.URL+"/x"), json.RawMessage(`{"q":"Berlin"}`), cred)
		if !errors.Is(err, client.ErrRedirect) {
			t.Errorf("got %v, want ErrRedirect", err)
		}
		if n := len(plain.requests()); n != 0 {
			t.Errorf("the http target got %d requests, want none", n)
		}
	})
	t.Run("ErrTimeout", func(t *testing.T) {
		e := newEndpoint(t)
		release := make(chan struct{})
		defer close(release)
		e.handler = func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusOK)
			io.WriteString(w, `{"execution_id":`) // then nothing until the client gives up
			w.(http.Flusher).Flush()
			<-release
		}
		c := &client.Client{Timeout: 200 * time.Millisecond}
		start := time.Now()
		_, err := c.Invoke(context.Background(), d(e.url("weather.forecast")), json.RawMessage(`{"q":"Berlin"}`), cred)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("got %v, want a timeout", err)
		}
		if el := time.Since(start); el > 5*time.Second {
			t.Errorf("took %v, want about the 200ms Timeout", el)
		}
		if strings.Contains(fmt.Sprint(err), "tok-secret") {
			t.Errorf("the error shows the credential: %v", err)
		}
	})
	t.Run("QueryKeyNotShown", func(t *testing.T) {
		e := newEndpoint(t)
		e.handler = func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, "<html>")
		}
		sk := weather(e.url("weather.forecast"), skillcat.Auth{Type: skillcat.AuthAPIKey, In: "query", Name: "key"}, "GET")
		_, err := (&client.Client{}).Invoke(context.Background(), sk, json.RawMessage(`{"q":"Berlin"}`), client.InvokeOptions{Credential: client.Credential{Secret: "query-secret"}})
		if err == nil || strings.Contains(err.Error(), "query-secret") || strings.Contains(err.Error(), "inputs=") {
			t.Errorf("got %v, want an error without the key or the request's parameters", err)
		}
	})
}
