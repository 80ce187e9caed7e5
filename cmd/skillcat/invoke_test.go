package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/jose"
	"github.com/skillcat/skillcat/mock"
)

// callSite serves a catalog of one skill, "weather.forecast", whose
// endpoint is /endpoint on the same server: answered by the mock unless
// the test sets handler.
type callSite struct {
	srv      *httptest.Server
	d        *skillcat.SkillDescriptor
	handler  http.HandlerFunc
	requests atomic.Int32 // to /endpoint
}

func newCallSite(t *testing.T, auth skillcat.Auth) *callSite {
	t.Helper()
	s := &callSite{}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/endpoint" {
			s.requests.Add(1)
			if s.handler != nil {
				s.handler(w, r)
				return
			}
			r.URL.Path = mock.SkillPath(s.d.ID)
			mock.New(s.d).ServeHTTP(w, r)
			return
		}
		data, sum := s.files()
		switch r.URL.Path {
		case skillcat.WellKnownPath:
			x := &skillcat.SkillIndex{Protocol: skillcat.CurrentProtocol(), Skills: []skillcat.IndexEntry{{
				ID: s.d.ID, Name: s.d.Name, Version: s.d.Version, CapabilityType: s.d.CapabilityType, Access: s.d.Access,
				Summary: "Forecasts.", DescriptorURL: "../skills/" + s.d.ID + ".json", Digest: sum,
			}}}
			data, _ = x.Encode()
		case "/skills/" + s.d.ID + ".json":
		default:
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(data)
	}))
	t.Cleanup(s.srv.Close)
	s.d = &skillcat.SkillDescriptor{
		Protocol: skillcat.CurrentProtocol(), ID: "weather.forecast", Name: "Weather Forecast", Version: "1.0.0",
		CapabilityType: skillcat.API, Description: "Forecasts.", Provider: skillcat.Provider{Name: "Test"},
		Endpoint: skillcat.Endpoint{URL: s.srv.URL + "/endpoint"},
		Inputs: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string","minLength":1,"description":"Where."},` +
			`"days":{"type":"integer","minimum":1,"maximum":16}},"required":["city"],"additionalProperties":false}`),
		Output: json.RawMessage(`{"type":"object","properties":{"high_c":{"type":"number"}},"required":["high_c"]}`),
		Auth:   auth, Access: skillcat.Public,
		Examples: []skillcat.Example{{Title: "Berlin", Inputs: json.RawMessage(`{"city":"Berlin","days":2}`), Output: json.RawMessage(`{"high_c":3.5}`)}},
	}
	return s
}

func (s *callSite) files() ([]byte, string) {
	data, _ := s.d.Encode()
	sum := sha256.Sum256(data)
	return data, "sha256:" + hex.EncodeToString(sum[:])
}

func TestShowCmd(t *testing.T) {
	s := newCallSite(t, skillcat.Auth{Type: skillcat.AuthAPIKey, In: "query", Name: "key"})
	t.Run("Text", func(t *testing.T) {
		code, stdout, stderr := runSkillcat(t, nil, "show", s.srv.URL, "weather.forecast")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		_, sum := s.files()
		for _, want := range []string{
			"POST " + s.srv.URL + "/endpoint",
			`API key (api_key) in the query parameter key`,
			"city  string   yes       Where. (min length 1)",
			"days  integer  no        (≥ 1; ≤ 16)",
			"high_c  number  yes",
			sum + " (verified)",
			"Signature   the index is not signed",
			`inputs: {"city":"Berlin","days":2}`,
			`output: {"high_c":3.5}`,
		} {
			if !strings.Contains(stdout, want) {
				t.Errorf("stdout lacks %q:\n%s", want, stdout)
			}
		}
	})
	t.Run("JSON", func(t *testing.T) {
		code, stdout, stderr := runSkillcat(t, nil, "show", "--format", "json", s.srv.URL, "weather.forecast")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var got struct {
			Endpoint       skillcat.Endpoint `json:"endpoint"`
			DigestVerified bool              `json:"digest_verified"`
			Auth           map[string]any    `json:"auth"`
			Inputs         []fieldRow        `json:"inputs"`
			Descriptor     json.RawMessage   `json:"descriptor"`
		}
		if err := json.Unmarshal([]byte(stdout), &got); err != nil {
			t.Fatal(err)
		}
		if got.Endpoint.Method != "POST" || !got.DigestVerified || got.Auth["in"] != "query" || len(got.Inputs) != 2 || got.Inputs[0].Name != "city" || !got.Inputs[0].Required {
			t.Errorf("got %+v", got)
		}
		if _, vs := skillcat.ParseDescriptor("descriptor", got.Descriptor); vs.HasErrors() {
			t.Errorf("descriptor: %v", vs)
		}
	})
	t.Run("ErrNotListed", func(t *testing.T) {
		code, _, stderr := runSkillcat(t, nil, "show", s.srv.URL, "geocode")
		if code != exitUsage || !strings.Contains(stderr, `lists no skill "geocode"`) {
			t.Errorf("got exit %d %q, want 2 naming the id", code, stderr)
		}
	})
	t.Run("ErrUsage", func(t *testing.T) {
		if code, _, _ := runSkillcat(t, nil, "show", s.srv.URL); code != exitUsage {
			t.Errorf("one argument: got exit %d, want 2", code)
		}
		if code, _, _ := runSkillcat(t, nil, "show", "example.com", "x"); code != exitUsage {
			t.Errorf("no scheme: got exit %d, want 2", code)
		}
	})
	t.Run("ErrNetwork", func(t *testing.T) {
		ln, _ := net.Listen("tcp", "127.0.0.1:0")
		addr := ln.Addr().String()
		ln.Close()
		if code, _, stderr := runSkillcat(t, nil, "show", "http://"+addr+"/", "x"); code != exitNetwork {
			t.Errorf("got exit %d (%s), want 3", code, stderr)
		}
	})
}

func TestInvokeCmd(t *testing.T) {
	const key = "sk-live-0123456789"
	apiKey := skillcat.Auth{Type: skillcat.AuthAPIKey, In: "header", Name: "X-Api-Key"}
	env := map[string]string{"SKILLCAT_CREDENTIAL": key}
	t.Run("OK", func(t *testing.T) {
		s := newCallSite(t, apiKey)
		code, stdout, stderr := runSkillcat(t, env, "invoke", s.srv.URL, "weather.forecast", "--input", "city=Berlin", "--input", "days=2")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if strings.TrimSpace(stdout) != "{\n  \"high_c\": 3.5\n}" {
			t.Errorf("got stdout %q, want the example's output", stdout)
		}
		if !strings.Contains(stderr, "succeeded") {
			t.Errorf("stderr: %q", stderr)
		}
	})
	t.Run("InputsFile", func(t *testing.T) {
		s := newCallSite(t, skillcat.Auth{Type: skillcat.AuthNone})
		file := filepath.Join(t.TempDir(), "in.json")
		os.WriteFile(file, []byte(`{"city": "Bonn"}`), 0o644)
		code, stdout, _ := runSkillcat(t, nil, "invoke", s.srv.URL, "weather.forecast", "--inputs", file, "--input", "city=Berlin", "--input", "days:=2", "--format", "json")
		if code != 0 {
			t.Fatalf("exit %d", code)
		}
		if r, vs := skillcat.ParseResponse("stdout", []byte(stdout)); vs.HasErrors() || r.Status != skillcat.StatusSucceeded {
			t.Errorf("got %s %v, want the succeeded InvocationResponse", stdout, vs)
		}
	})
	t.Run("ErrInvalidInputs", func(t *testing.T) {
		s := newCallSite(t, apiKey)
		file := filepath.Join(t.TempDir(), "in.json")
		os.WriteFile(file, []byte("{\n  \"city\": \"\",\n  \"days\": 40\n}\n"), 0o644)
		code, _, stderr := runSkillcat(t, env, "invoke", s.srv.URL, "weather.forecast", "--inputs", file)
		if code != exitInvalid {
			t.Fatalf("exit %d, want 1: %s", code, stderr)
		}
		for _, want := range []string{file + ":2:11: inputs.city: must not be empty", file + ":3:11: inputs.days: must be at most 16; got 40", "nothing was sent"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, stderr)
			}
		}
		if n := s.requests.Load(); n != 0 {
			t.Errorf("the endpoint got %d requests, want none", n)
		}
	})
	t.Run("ErrNoCredential", func(t *testing.T) {
		s := newCallSite(t, apiKey)
		code, _, stderr := runSkillcat(t, nil, "invoke", s.srv.URL, "weather.forecast", "--input", "city=Berlin")
		if code != exitUsage || !strings.Contains(stderr, "$SKILLCAT_CREDENTIAL") {
			t.Errorf("got exit %d %q, want 2 naming the variable", code, stderr)
		}
	})
	t.Run("ErrSkillFailed", func(t *testing.T) {
		s := newCallSite(t, apiKey)
		code, _, stderr := runSkillcat(t, env, "invoke", s.srv.URL, "weather.forecast", "--input", "city=Rome")
		if code != exitInvalid || !strings.Contains(stderr, "failed") || !strings.Contains(stderr, "no_matching_example") {
			t.Errorf("got exit %d %q, want 1 with the error", code, stderr)
		}
	})
	t.Run("ErrResponse", func(t *testing.T) {
		s := newCallSite(t, apiKey)
		s.handler = func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"execution_id":"e","status":"succeeded","skill_id":"weather.forecast","timestamps":{"created_at":"2026-01-01T00:00:00Z","completed_at":"2026-01-01T00:00:01Z"},"output":{"high_c":"warm"}}`)
		}
		code, _, stderr := runSkillcat(t, env, "invoke", s.srv.URL, "weather.forecast", "--input", "city=Berlin")
		if code != exitInvalid || !strings.Contains(stderr, "output.high_c") {
			t.Errorf("got exit %d %q, want 1 naming output.high_c", code, stderr)
		}
		// The request went out: the skill may have acted, so saying that
		// nothing was sent would invite a second call.
		if strings.Contains(stderr, "nothing was sent") || !strings.Contains(stderr, "the request was sent, and the answer from") {
			t.Errorf("stderr %q: want it to say the request was sent and the answer is invalid", stderr)
		}
	})
	t.Run("ErrResponseNotJSON", func(t *testing.T) {
		s := newCallSite(t, apiKey)
		s.handler = func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"execution_id":`)
		}
		code, _, stderr := runSkillcat(t, env, "invoke", s.srv.URL, "weather.forecast", "--input", "city=Berlin")
		if code != exitInvalid || strings.Contains(stderr, "nothing was sent") || !strings.Contains(stderr, "invalid JSON") {
			t.Errorf("got exit %d %q, want 1 saying the answer is invalid JSON, not that nothing was sent", code, stderr)
		}
	})
	t.Run("SecretNeverPrinted", func(t *testing.T) {
		s := newCallSite(t, apiKey)
		// A hostile endpoint echoes the key in its error message.
		s.handler = func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			io.WriteString(w, `{"execution_id":"e","status":"failed","skill_id":"weather.forecast","timestamps":{"created_at":"2026-01-01T00:00:00Z","completed_at":"2026-01-01T00:00:01Z"},"error":{"code":"forbidden","message":"key `+r.Header.Get("X-Api-Key")+` is not allowed"}}`)
		}
		code, stdout, stderr := runSkillcat(t, env, "invoke", s.srv.URL, "weather.forecast", "--input", "city=Berlin", "--format", "json")
		if code != exitInvalid {
			t.Fatalf("exit %d, want 1", code)
		}
		if strings.Contains(stdout+stderr, key) {
			t.Errorf("the credential was printed:\n%s\n%s", stdout, stderr)
		}
		if !strings.Contains(stderr, "[redacted]") {
			t.Errorf("stderr: %q", stderr)
		}
	})
	t.Run("OAuth2ClientCredentials", func(t *testing.T) {
		var scope string
		token := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			id, secret, _ := r.BasicAuth()
			r.ParseForm()
			scope = r.PostForm.Get("scope")
			w.Header().Set("Content-Type", "application/json")
			if id != "app" || secret != "client-secret-42" {
				w.WriteHeader(http.StatusUnauthorized)
				io.WriteString(w, `{"error":"invalid_client"}`)
				return
			}
			io.WriteString(w, `{"access_token":"issued-token-77","token_type":"bearer"}`)
		}))
		defer token.Close()
		s := newCallSite(t, skillcat.Auth{Type: skillcat.AuthOAuth2, TokenURL: token.URL + "/token"})
		m := mock.New(s.d)
		m.Credential = "issued-token-77"
		s.handler = func(w http.ResponseWriter, r *http.Request) {
			r.URL.Path = mock.SkillPath(s.d.ID)
			m.ServeHTTP(w, r)
		}
		env := map[string]string{"SKILLCAT_CLIENT_ID": "app", "SKILLCAT_CLIENT_SECRET": "client-secret-42"}
		code, stdout, stderr := runSkillcat(t, env, "invoke", s.srv.URL, "weather.forecast", "--scope", "forecast:read",
			"--input", "city=Berlin", "--input", "days=2")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if scope != "forecast:read" {
			t.Errorf("requested scope %q, want forecast:read", scope)
		}
		if strings.Contains(stdout+stderr, "issued-token-77") || strings.Contains(stdout+stderr, "client-secret-42") {
			t.Errorf("a secret was printed:\n%s\n%s", stdout, stderr)
		}
		env["SKILLCAT_CLIENT_SECRET"] = "wrong-secret"
		code, _, stderr = runSkillcat(t, env, "invoke", s.srv.URL, "weather.forecast", "--input", "city=Berlin")
		if code != exitInvalid || !strings.Contains(stderr, "invalid_client") || strings.Contains(stderr, "wrong-secret") {
			t.Errorf("a refused client: got exit %d %q, want 1 with invalid_client", code, stderr)
		}
	})
	t.Run("PollResume", func(t *testing.T) {
		s := newCallSite(t, apiKey)
		var done atomic.Bool
		s.handler = func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			if r.Header.Get("X-Api-Key") != key {
				w.WriteHeader(http.StatusUnauthorized)
				io.WriteString(w, `{"execution_id":"e1","status":"failed","skill_id":"weather.forecast","timestamps":{"created_at":"2026-01-01T00:00:00Z","completed_at":"2026-01-01T00:00:00Z"},"error":{"code":"unauthorized","message":"no key"}}`)
				return
			}
			if r.Method == "POST" {
				w.Header().Set("Location", "/endpoint?job=e1")
				w.WriteHeader(http.StatusAccepted)
				io.WriteString(w, `{"execution_id":"e1","status":"accepted","skill_id":"weather.forecast","timestamps":{"created_at":"2026-01-01T00:00:00Z"}}`)
				return
			}
			if !done.Load() {
				w.Header().Set("Retry-After", "1")
				io.WriteString(w, `{"execution_id":"e1","status":"running","skill_id":"weather.forecast","timestamps":{"created_at":"2026-01-01T00:00:00Z","started_at":"2026-01-01T00:00:01Z"}}`)
				return
			}
			io.WriteString(w, `{"execution_id":"e1","status":"succeeded","skill_id":"weather.forecast","timestamps":{"created_at":"2026-01-01T00:00:00Z","started_at":"2026-01-01T00:00:01Z","completed_at":"2026-01-01T00:00:09Z"},"output":{"high_c":7}}`)
		}
		code, _, stderr := runSkillcat(t, env, "invoke", s.srv.URL, "weather.forecast", "--input", "city=Berlin", "--wait", "1500ms")
		if code != exitNetwork {
			t.Fatalf("exit %d, want 3:\n%s", code, stderr)
		}
		resume := "resume with: skillcat invoke " + s.srv.URL + " weather.forecast --poll '" + s.srv.URL + "/endpoint?job=e1'"
		if !strings.Contains(stderr, "running") || !strings.Contains(stderr, resume) {
			t.Errorf("stderr does not say how to resume:\n%s", stderr)
		}
		done.Store(true)
		code, stdout, stderr := runSkillcat(t, env, "invoke", s.srv.URL, "weather.forecast", "--poll", s.srv.URL+"/endpoint?job=e1")
		if code != 0 || !strings.Contains(stdout, `"high_c": 7`) {
			t.Errorf("--poll: exit %d\n%s\n%s", code, stdout, stderr)
		}
		if code, _, _ := runSkillcat(t, env, "invoke", s.srv.URL, "weather.forecast", "--poll", "http://127.0.0.2:9/x"); code == 0 {
			t.Error("--poll of a URL on another origin succeeded")
		}
	})
	t.Run("ErrNetwork", func(t *testing.T) {
		s := newCallSite(t, skillcat.Auth{Type: skillcat.AuthNone})
		ln, _ := net.Listen("tcp", "127.0.0.1:0")
		dead := "http://" + ln.Addr().String() + "/x"
		ln.Close()
		code, _, stderr := runSkillcat(t, nil, "invoke", s.srv.URL, "weather.forecast", "--input", "city=Berlin", "--endpoint", dead)
		if code != exitNetwork {
			t.Errorf("got exit %d %q, want 3", code, stderr)
		}
	})
}

func TestTestEndpointsCmd(t *testing.T) {
	srv := startServe(t, "--content", sampleContent, "--mock")
	mockURL := srv.url + "_mock/skills/{id}"
	env := map[string]string{"SKILLCAT_CREDENTIAL": "demo-key", "TRIAGE": "X-Acme-Installation: 42"}
	listed := []string{"--only", "weather.forecast", "--only", "geocode.address", "--only", "weather.alerts",
		"--only", "code.review", "--only", "github.issue-triage", "--auth-env", "github.issue-triage=TRIAGE"}
	t.Run("MockPasses", func(t *testing.T) {
		args := append([]string{"test-endpoints", "--content", sampleContent, "--endpoint", mockURL}, listed...)
		code, stdout, stderr := runSkillcat(t, env, args...)
		if code != 0 {
			t.Fatalf("exit %d:\n%s\n%s", code, stdout, stderr)
		}
		if n := strings.Count(stdout, "  ok  "); n != 10 {
			t.Errorf("got %d passing examples, want 10:\n%s", n, stdout)
		}
		if !strings.Contains(stderr, "10 examples: 10 passed, 0 failed") {
			t.Errorf("stderr: %q", stderr)
		}
	})
	t.Run("ErrWrongEndpoint", func(t *testing.T) {
		// An endpoint that answers weather.forecast with a warmer Berlin.
		wrong := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rec := httptest.NewRecorder()
			req, _ := http.NewRequest(r.Method, srv.url+"_mock/skills/weather.forecast?"+r.URL.RawQuery, r.Body)
			req.Header = r.Header
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			defer res.Body.Close()
			body, _ := io.ReadAll(res.Body)
			rec.Body.WriteString(strings.Replace(string(body), `"temperature": 21.4`, `"temperature": 25`, 1))
			w.Header().Set("Content-Type", res.Header.Get("Content-Type"))
			w.WriteHeader(res.StatusCode)
			w.Write(rec.Body.Bytes())
		}))
		defer wrong.Close()
		code, stdout, stderr := runSkillcat(t, env, "test-endpoints", "--content", sampleContent, "--endpoint", wrong.URL+"/{id}", "--only", "weather.forecast")
		if code != exitInvalid {
			t.Fatalf("exit %d, want 1:\n%s\n%s", code, stdout, stderr)
		}
		if !strings.Contains(stdout, "output.periods[0].temperature: got 25, want 21.4") {
			t.Errorf("stdout does not name the differing field:\n%s", stdout)
		}
		code, stdout, _ = runSkillcat(t, env, "test-endpoints", "--content", sampleContent, "--endpoint", wrong.URL+"/{id}", "--only", "weather.forecast", "--format", "github")
		if code != exitInvalid || !strings.Contains(stdout, "::error file=") || !strings.Contains(stdout, "weather/forecast.json,line=") ||
			!strings.Contains(stdout, "::output.periods[0].temperature: got 25, want 21.4") {
			t.Errorf("github format: exit %d\n%s", code, stdout)
		}
		code, stdout, _ = runSkillcat(t, env, "test-endpoints", "--content", sampleContent, "--endpoint", wrong.URL+"/{id}", "--only", "weather.forecast", "--match", "shape")
		if code != 0 {
			t.Errorf("--match shape: exit %d, want 0 (same shape):\n%s", code, stdout)
		}
	})
	t.Run("JSON", func(t *testing.T) {
		code, stdout, stderr := runSkillcat(t, env, "test-endpoints", "--content", sampleContent, "--endpoint", mockURL, "--only", "weather.alerts", "--format", "json")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var rs []exampleResult
		if err := json.Unmarshal([]byte(stdout), &rs); err != nil || len(rs) != 2 || !rs[0].Passed || rs[0].File != filepath.ToSlash(sampleContent)+"/weather/alerts.md" || rs[0].Line == 0 {
			t.Errorf("got %v %+v", err, rs)
		}
	})
	t.Run("ErrNoCredential", func(t *testing.T) {
		code, stdout, _ := runSkillcat(t, nil, "test-endpoints", "--content", sampleContent, "--endpoint", mockURL, "--only", "weather.forecast")
		if code != exitInvalid || !strings.Contains(stdout, "set $SKILLCAT_CREDENTIAL") {
			t.Errorf("got exit %d:\n%s", code, stdout)
		}
	})
	t.Run("ErrUnreachable", func(t *testing.T) {
		ln, _ := net.Listen("tcp", "127.0.0.1:0")
		dead := "http://" + ln.Addr().String() + "/{id}"
		ln.Close()
		code, _, stderr := runSkillcat(t, env, "test-endpoints", "--content", sampleContent, "--endpoint", dead, "--only", "weather.alerts")
		if code != exitNetwork || !strings.Contains(stderr, "could not reach") {
			t.Errorf("got exit %d %q, want 3", code, stderr)
		}
	})
	t.Run("ErrUsage", func(t *testing.T) {
		if code, _, _ := runSkillcat(t, env, "test-endpoints", "--content", sampleContent, "--only", "nope"); code != exitUsage {
			t.Errorf("--only of an unknown id: exit %d, want 2", code)
		}
		if code, _, _ := runSkillcat(t, env, "test-endpoints", "--content", sampleContent, "--match", "fuzzy"); code != exitUsage {
			t.Errorf("--match fuzzy: exit %d, want 2", code)
		}
	})
}

// readmeCommand is one skillcat command line of README.md.
type readmeCommand struct {
	env  map[string]string
	args []string // after "go run ./cmd/skillcat"
	line int
}

// readmeCommands returns the command lines of README.md that run skillcat
// against the local catalog at http://127.0.0.1:1313/, in order.
func readmeCommands(t *testing.T, readme string) []readmeCommand {
	t.Helper()
	f, err := os.Open(readme)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cmds []readmeCommand
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if !strings.Contains(line, "go run ./cmd/skillcat") || !strings.Contains(line, "127.0.0.1:1313") {
			continue
		}
		words := shellWords(t, line)
		c := readmeCommand{env: map[string]string{}, line: n}
		for len(words) > 0 && strings.Contains(words[0], "=") && !strings.HasPrefix(words[0], "-") {
			k, v, _ := strings.Cut(words[0], "=")
			c.env[k] = v
			words = words[1:]
		}
		if len(words) < 3 || words[0] != "go" || words[1] != "run" || words[2] != "./cmd/skillcat" {
			t.Fatalf("README.md:%d: cannot read %q", n, line)
		}
		c.args = words[3:]
		cmds = append(cmds, c)
	}
	return cmds
}

// shellWords splits a shell command line: words, 'single' and "double"
// quotes, and a # comment.
func shellWords(t *testing.T, line string) []string {
	var words []string
	var cur strings.Builder
	in, quote := false, rune(0)
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == '#' && !in:
			return words
		case r == ' ' || r == '\t':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		t.Fatalf("unclosed quote in %q", line)
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}

// TestREADMEConsumerLoop runs, from the repository's root, exactly the
// README's commands against the local catalog: serve --mock, then
// discover, show, invoke and test-endpoints on it.
func TestREADMEConsumerLoop(t *testing.T) {
	readme, _ := filepath.Abs("../../README.md")
	cmds := readmeCommands(t, readme)
	t.Chdir(filepath.Dir(readme))
	var serve *servedSite
	var rest []readmeCommand
	for _, c := range cmds {
		if c.args[0] == "serve" {
			if serve != nil {
				t.Fatalf("README.md:%d: a second serve", c.line)
			}
			serve = startServe(t, c.args[1:]...)
			continue
		}
		rest = append(rest, c)
	}
	if serve == nil {
		t.Fatal("README.md has no serve command for the local catalog")
	}
	seen := map[string]bool{}
	for _, c := range rest {
		args := make([]string, len(c.args))
		for i, a := range c.args {
			args[i] = strings.ReplaceAll(a, "http://127.0.0.1:1313/", serve.url)
		}
		seen[args[0]] = true
		code, stdout, stderr := runSkillcat(t, c.env, args...)
		if code != 0 {
			t.Errorf("README.md:%d: skillcat %s: exit %d\n%s\n%s", c.line, strings.Join(c.args, " "), code, stdout, stderr)
			continue
		}
		if args[0] == "invoke" && !json.Valid([]byte(stdout)) {
			t.Errorf("README.md:%d: invoke printed no JSON output: %q", c.line, stdout)
		}
	}
	for _, want := range []string{"discover", "show", "invoke", "test-endpoints"} {
		if !seen[want] {
			t.Errorf("README.md runs no %s against the local catalog", want)
		}
	}
}

// TestTestEndpointsPrivate: private skills are left out of what
// test-endpoints prints unless --include-private asks for them.
func TestTestEndpointsPrivate(t *testing.T) {
	dead := "http://127.0.0.1:1/{id}" // nothing is sent to it before the check
	code, _, stderr := runSkillcat(t, nil, "test-endpoints", "--content", sampleContent, "--endpoint", dead, "--only", "hr.leave-policy")
	if code != exitUsage || !strings.Contains(stderr, "--include-private") {
		t.Errorf("--only of a private skill: exit %d %q, want 2 suggesting --include-private", code, stderr)
	}
	code, _, stderr = runSkillcat(t, map[string]string{"CI": "true"}, "test-endpoints", "--content", sampleContent, "--endpoint", dead, "--only", "hr.leave-policy")
	if code != exitUsage || strings.Contains(stderr, "private") {
		t.Errorf("in CI, --only of a private skill: exit %d %q, want 2 as for an unknown id", code, stderr)
	}
	_, stdout, stderr := runSkillcat(t, map[string]string{"CI": "true"}, "test-endpoints", "--content", sampleContent, "--endpoint", dead, "--timeout", "1s")
	for _, private := range []string{"hr.leave-policy", "expenses.submit-report"} {
		if strings.Contains(stdout+stderr, private) {
			t.Errorf("test-endpoints printed the private skill %s", private)
		}
	}
	_, stdout, _ = runSkillcat(t, nil, "test-endpoints", "--content", sampleContent, "--endpoint", dead, "--only", "hr.leave-policy", "--include-private", "--timeout", "1s")
	if !strings.Contains(stdout, "hr.leave-policy") {
		t.Errorf("--include-private did not test the private skill:\n%s", stdout)
	}
}

// TestShowInvokeSigned: show and invoke check a signed catalog's index
// against a pinned key, and refuse it when another key is pinned.
func TestShowInvokeSigned(t *testing.T) {
	dir := t.TempDir()
	keyFile, jwkFile, key := keygen(t, dir)
	_, otherJWK, _ := keygen(t, t.TempDir())
	out := filepath.Join(dir, "public")
	if code, _, stderr := runSkillcat(t, nil, "build", "--content", sampleContent, "--out", out, "--sign-key", keyFile, "--no-cache", "--quiet"); code != 0 {
		t.Fatalf("build --sign-key: exit %d: %s", code, stderr)
	}
	srv := httptest.NewServer(staticHost(out))
	defer srv.Close()
	code, stdout, stderr := runSkillcat(t, nil, "show", srv.URL, "weather.alerts", "--verify-key", jwkFile)
	if code != 0 || !strings.Contains(stdout, "the index is signed by the pinned key "+jose.Thumbprint(key.Public().Key)) {
		t.Errorf("show --verify-key: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if code, stdout, _ := runSkillcat(t, nil, "show", srv.URL, "weather.alerts"); code != 0 || !strings.Contains(stdout, "not verified: pin a key") {
		t.Errorf("show without a pinned key: exit %d\n%s", code, stdout)
	}
	for _, args := range [][]string{{"show"}, {"invoke", "--input", "area.country=IS"}} {
		code, _, stderr := runSkillcat(t, nil, append(args, srv.URL, "weather.alerts", "--verify-key", otherJWK)...)
		if code != exitInvalid || !strings.Contains(stderr, "signature") {
			t.Errorf("%s with another pinned key: exit %d %q, want 1", args[0], code, stderr)
		}
	}
}
