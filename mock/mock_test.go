package mock_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/mock"
)

func forecast(method string, auth skillcat.Auth) *skillcat.SkillDescriptor {
	return &skillcat.SkillDescriptor{
		Protocol: skillcat.CurrentProtocol(), ID: "weather.forecast", Name: "Forecast", Version: "1.0.0",
		CapabilityType: skillcat.API, Description: "Forecasts.", Provider: skillcat.Provider{Name: "P"},
		Endpoint: skillcat.Endpoint{URL: "https://api.example.com/forecast", Method: method},
		Inputs:   json.RawMessage(`{"type":"object","properties":{"city":{"type":"string","minLength":1},"days":{"type":"integer","maximum":16}},"required":["city"]}`),
		Output:   json.RawMessage(`{"type":"object"}`),
		Auth:     auth, Access: skillcat.Public,
		Examples: []skillcat.Example{
			{Title: "Berlin", Inputs: json.RawMessage(`{"city":"Berlin","days":1}`), Output: json.RawMessage(`{"high_c":3.5}`)},
			{Title: "Paris, no output", Inputs: json.RawMessage(`{"city":"Paris"}`)},
		},
	}
}

// answer is a decoded answer of the mock.
type answer struct {
	status int
	header http.Header
	resp   *skillcat.InvocationResponse
}

func call(t *testing.T, h http.Handler, method, target, ctype, body string, header http.Header) answer {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	req, err := http.NewRequest(method, srv.URL+target, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	a := answer{status: res.StatusCode, header: res.Header}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		r, vs := skillcat.ParseResponse("answer", data)
		if vs.HasErrors() {
			t.Fatalf("the mock answered an invalid response %s: %v", data, vs)
		}
		a.resp = r
	}
	return a
}

const berlin = `{"caller":{"id":"a","type":"agent"},"skill_id":"weather.forecast","inputs":{"days":1.0,"city":"Berlin"}}`

func TestMock(t *testing.T) {
	none := skillcat.Auth{Type: skillcat.AuthNone}
	for _, c := range []struct {
		name         string
		d            *skillcat.SkillDescriptor
		method, path string
		ctype, body  string
		header       http.Header
		status       int
		code         string // error.code, or "" for succeeded
		reason       string // in error.message
	}{
		{"OK", forecast("POST", none), "POST", "/skills/weather.forecast", "application/json", berlin, nil, 200, "", ""},
		{"OKQuery", forecast("GET", none), "GET", "/skills/weather.forecast?" + url.Values{
			"caller": {`{"id":"a","type":"agent"}`}, "skill_id": {"weather.forecast"}, "inputs": {`{"city":"Berlin","days":1e0}`}, "other": {"x"},
		}.Encode(), "", "", nil, 200, "", ""},
		{"ErrUnknownSkill", forecast("POST", none), "POST", "/skills/geocode", "application/json", berlin, nil, 404, "unknown_skill", `"geocode"`},
		{"ErrMethod", forecast("PUT", none), "POST", "/skills/weather.forecast", "application/json", berlin, nil, 405, "method_not_allowed", "PUT"},
		{"ErrMediaType", forecast("POST", none), "POST", "/skills/weather.forecast", "text/plain", berlin, nil, 415, "unsupported_media_type", "JSON"},
		{"ErrNotJSON", forecast("POST", none), "POST", "/skills/weather.forecast", "application/json", `{"caller":`, nil, 400, "invalid_request", "JSON"},
		{"ErrInputs", forecast("POST", none), "POST", "/skills/weather.forecast", "application/json",
			`{"caller":{"id":"a","type":"agent"},"skill_id":"weather.forecast","inputs":{"city":"","days":40}}`, nil, 400, "invalid_request", "inputs.city: must not be empty; inputs.days: must be at most 16; got 40"},
		{"ErrSkillID", forecast("POST", none), "POST", "/skills/weather.forecast", "application/json",
			`{"caller":{"id":"a","type":"agent"},"skill_id":"geocode","inputs":{"city":"Berlin"}}`, nil, 400, "invalid_request", "skill_id"},
		{"ErrQueryTwice", forecast("DELETE", none), "DELETE", "/skills/weather.forecast?skill_id=a&skill_id=b", "", "", nil, 400, "invalid_request", "2 times"},
		{"ErrNoExample", forecast("POST", none), "POST", "/skills/weather.forecast", "application/json",
			`{"caller":{"id":"a","type":"agent"},"skill_id":"weather.forecast","inputs":{"city":"Rome"}}`, nil, 501, "no_matching_example", "2 example"},
		{"ErrExampleWithoutOutput", forecast("POST", none), "POST", "/skills/weather.forecast", "application/json",
			`{"caller":{"id":"a","type":"agent"},"skill_id":"weather.forecast","inputs":{"city":"Paris"}}`, nil, 501, "no_matching_example", ""},
		{"APIKeyHeader", forecast("POST", skillcat.Auth{Type: skillcat.AuthAPIKey, In: "header", Name: "X-Key"}), "POST", "/skills/weather.forecast", "application/json", berlin,
			http.Header{"X-Key": {"k1"}}, 200, "", ""},
		{"ErrAPIKeyHeader", forecast("POST", skillcat.Auth{Type: skillcat.AuthAPIKey, In: "header", Name: "X-Key"}), "POST", "/skills/weather.forecast", "application/json", berlin,
			http.Header{"Authorization": {"Bearer k1"}}, 401, "unauthorized", `header "X-Key"`},
		{"APIKeyQuery", forecast("POST", skillcat.Auth{Type: skillcat.AuthAPIKey, In: "query", Name: "key"}), "POST", "/skills/weather.forecast?key=k1", "application/json", berlin, nil, 200, "", ""},
		{"ErrAPIKeyQuery", forecast("POST", skillcat.Auth{Type: skillcat.AuthAPIKey, In: "query", Name: "key"}), "POST", "/skills/weather.forecast", "application/json", berlin,
			http.Header{"Key": {"k1"}}, 401, "unauthorized", `query parameter "key"`},
		{"OAuth2", forecast("POST", skillcat.Auth{Type: skillcat.AuthOAuth2, TokenURL: "https://a.example.com/t"}), "POST", "/skills/weather.forecast", "application/json", berlin,
			http.Header{"Authorization": {"Bearer k1"}}, 200, "", ""},
		{"ErrOAuth2Wrong", forecast("POST", skillcat.Auth{Type: skillcat.AuthOAuth2, TokenURL: "https://a.example.com/t"}), "POST", "/skills/weather.forecast", "application/json", berlin,
			http.Header{"Authorization": {"Bearer other"}}, 401, "unauthorized", "wrong"},
		{"ErrOAuth2Basic", forecast("POST", skillcat.Auth{Type: skillcat.AuthOAuth2, TokenURL: "https://a.example.com/t"}), "POST", "/skills/weather.forecast", "application/json", berlin,
			http.Header{"Authorization": {"Basic k1"}}, 401, "unauthorized", "Bearer"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := mock.New(c.d)
			h.Credential = "k1"
			a := call(t, h, c.method, c.path, c.ctype, c.body, c.header)
			if a.status != c.status {
				t.Fatalf("got HTTP %d (%+v), want %d", a.status, a.resp, c.status)
			}
			if c.code == "-" {
				return
			}
			if a.resp == nil {
				t.Fatal("got no InvocationResponse")
			}
			if c.code == "" {
				if a.resp.Status != skillcat.StatusSucceeded || string(a.resp.Output) != `{"high_c":3.5}` {
					t.Errorf("got %s %s, want succeeded with the example's output", a.resp.Status, a.resp.Output)
				}
				return
			}
			if a.resp.Status != skillcat.StatusFailed || a.resp.Error.Code != c.code || !strings.Contains(a.resp.Error.Message, c.reason) {
				t.Errorf("got %s %+v, want failed %s mentioning %q", a.resp.Status, a.resp.Error, c.code, c.reason)
			}
			if c.status == 405 && a.header.Get("Allow") != c.d.Endpoint.Method {
				t.Errorf("got Allow %q, want %q", a.header.Get("Allow"), c.d.Endpoint.Method)
			}
		})
	}
}

func TestMockPolls(t *testing.T) {
	h := mock.New(forecast("POST", skillcat.Auth{Type: skillcat.AuthAPIKey, In: "header", Name: "X-Key"}))
	h.Polls, h.RetryAfter, h.Credential = 3, 2, "k1"
	srv := httptest.NewServer(h)
	defer srv.Close()
	key := http.Header{"X-Key": {"k1"}}
	do := func(method, target string, body string, header http.Header) (*http.Response, *skillcat.InvocationResponse) {
		t.Helper()
		req, _ := http.NewRequest(method, target, bytes.NewReader([]byte(body)))
		req.Header.Set("Content-Type", "application/json")
		for k, v := range header {
			req.Header[k] = v
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		data, _ := io.ReadAll(res.Body)
		r, vs := skillcat.ParseResponse("answer", data)
		if vs.HasErrors() {
			t.Fatalf("invalid response %s: %v", data, vs)
		}
		return res, r
	}
	res, r := do("POST", srv.URL+"/skills/weather.forecast", berlin, key)
	if res.StatusCode != http.StatusAccepted || r.Status != skillcat.StatusAccepted || res.Header.Get("Retry-After") != "2" {
		t.Fatalf("got %d %s Retry-After %q, want 202 accepted with Retry-After 2", res.StatusCode, r.Status, res.Header.Get("Retry-After"))
	}
	loc, err := res.Request.URL.Parse(res.Header.Get("Location"))
	if err != nil || !strings.HasPrefix(loc.Path, "/executions/") {
		t.Fatalf("got Location %q, want one under /executions/", res.Header.Get("Location"))
	}
	if res, r := do("GET", loc.String(), "", nil); res.StatusCode != http.StatusUnauthorized || r.Error.Code != "unauthorized" {
		t.Errorf("a poll without the credential got %d, want 401", res.StatusCode)
	}
	var statuses []string
	for range 4 {
		_, p := do("GET", loc.String(), "", key)
		if p.ExecutionID != r.ExecutionID {
			t.Errorf("got execution %q, want %q", p.ExecutionID, r.ExecutionID)
		}
		statuses = append(statuses, string(p.Status))
	}
	if got := strings.Join(statuses, " "); got != "running running succeeded succeeded" {
		t.Errorf("got statuses %s, want running running succeeded succeeded", got)
	}
	if res, _ := http.Get(srv.URL + "/executions/mock-unknown"); res.StatusCode != http.StatusNotFound {
		t.Errorf("an unknown execution got %d, want 404", res.StatusCode)
	}
}

func TestMockConcurrent(t *testing.T) {
	h := mock.New(forecast("POST", skillcat.Auth{Type: skillcat.AuthNone}))
	h.Polls = 1
	srv := httptest.NewServer(h)
	defer srv.Close()
	var ok atomic.Int32
	done := make(chan struct{})
	for i := range 20 {
		go func() {
			defer func() { done <- struct{}{} }()
			res, err := http.Post(srv.URL+"/skills/weather.forecast", "application/json", strings.NewReader(berlin))
			if err != nil {
				t.Error(err)
				return
			}
			res.Body.Close()
			loc, _ := res.Request.URL.Parse(res.Header.Get("Location"))
			res, err = http.Get(loc.String())
			if err != nil {
				t.Error(err)
				return
			}
			data, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if r, vs := skillcat.ParseResponse(fmt.Sprint(i), data); !vs.HasErrors() && r.Status == skillcat.StatusSucceeded {
				ok.Add(1)
			}
		}()
	}
	for range 20 {
		<-done
	}
	if ok.Load() != 20 {
		t.Errorf("got %d succeeded executions, want 20", ok.Load())
	}
}

func TestMockCORS(t *testing.T) {
	h := mock.New(forecast("POST", skillcat.Auth{Type: skillcat.AuthAPIKey, In: "header", Name: "X-Key"}))
	h.Credential = "k1"
	pre := call(t, h, "OPTIONS", "/skills/weather.forecast", "", "", http.Header{
		"Origin":                         {"https://app.example.org"},
		"Access-Control-Request-Method":  {"POST"},
		"Access-Control-Request-Headers": {"content-type, x-key"},
	})
	if pre.status != http.StatusNoContent {
		t.Fatalf("preflight: got HTTP %d, want 204", pre.status)
	}
	for k, want := range map[string]string{
		"Access-Control-Allow-Origin":  "*",
		"Access-Control-Allow-Methods": "POST",
		"Access-Control-Allow-Headers": "content-type, x-key",
	} {
		if got := pre.header.Get(k); got != want {
			t.Errorf("preflight %s: got %q, want %q", k, got, want)
		}
	}
	a := call(t, h, "POST", "/skills/weather.forecast", "application/json", berlin, http.Header{"Origin": {"https://app.example.org"}, "X-Key": {"k1"}})
	if a.status != 200 || a.header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("invocation: got HTTP %d with Access-Control-Allow-Origin %q, want 200 with *", a.status, a.header.Get("Access-Control-Allow-Origin"))
	}
	if !strings.Contains(a.header.Get("Access-Control-Expose-Headers"), "Location") {
		t.Errorf("invocation: Access-Control-Expose-Headers %q lacks Location (a browser could not follow a 202)", a.header.Get("Access-Control-Expose-Headers"))
	}
	// An OPTIONS that is not a preflight is an invocation with the wrong method.
	if a := call(t, h, "OPTIONS", "/skills/weather.forecast", "", "", nil); a.status != http.StatusMethodNotAllowed {
		t.Errorf("plain OPTIONS: got HTTP %d, want 405", a.status)
	}
}
