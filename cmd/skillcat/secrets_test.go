package main

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	skillcat "github.com/skillcat/skillcat"
)

// TestInvokeHidesEchoedCredential runs invoke against endpoints on
// 127.0.0.1 that echo the credential they got back in their error, as is,
// URL-encoded and as its base64, and checks that no form of it is printed
// (the message re-encoded as JSON by --format json included): only the
// exact string was hidden before.
func TestInvokeHidesEchoedCredential(t *testing.T) {
	const key = `s3cr<e>t&"é/+ %2Fz`
	inJSON := strings.Trim(jsonString(key), `"`) // as Go writes it: s3cr\u003ce\u003et\u0026\"é/+ %2Fz
	forms := []string{key, url.QueryEscape(key), url.PathEscape(key), inJSON}
	env := map[string]string{"SKILLCAT_CREDENTIAL": key}
	echo := func(got string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if got == "query" {
				got = r.URL.RawQuery
			} else {
				got = r.Header.Get("X-Api-Key")
			}
			msg := "refused " + got + " (" + url.QueryEscape(got) + ", " + url.PathEscape(got) + ")"
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			io.WriteString(w, `{"execution_id":"e","status":"failed","skill_id":"weather.forecast","timestamps":{"created_at":"2026-01-01T00:00:00Z","completed_at":"2026-01-01T00:00:01Z"},"error":{"code":"forbidden","message":`+jsonString(msg)+`}}`)
		}
	}
	for _, in := range []string{"header", "query"} {
		for _, format := range []string{"text", "json"} {
			s := newCallSite(t, skillcat.Auth{Type: skillcat.AuthAPIKey, In: in, Name: "X-Api-Key"})
			s.handler = echo(in)
			code, stdout, stderr := runSkillcat(t, env, "invoke", s.srv.URL, "weather.forecast", "--input", "city=Berlin", "--format", format)
			if code != exitInvalid || !strings.Contains(stderr+stdout, "[redacted]") {
				t.Fatalf("%s, %s: exit %d, %q %q: want 1 with the key redacted", in, format, code, stdout, stderr)
			}
			for _, f := range forms {
				if strings.Contains(stdout+stderr, f) {
					t.Errorf("%s, %s: the credential was printed as %q:\n%s\n%s", in, format, f, stdout, stderr)
				}
			}
		}
	}

	// A custom auth's headers, echoed as the credential after its scheme
	// and as the user:password a Basic value encodes.
	const token, pass = "tok-5ecret-77", "pa55-word-88"
	basicValue := "Basic " + base64.StdEncoding.EncodeToString([]byte("me:"+pass))
	s := newCallSite(t, skillcat.Auth{Type: skillcat.AuthCustom, Instructions: "Send Authorization: Token <key> and X-Basic."})
	s.handler = func(w http.ResponseWriter, r *http.Request) {
		_, tok, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		user, pw, _ := r.BasicAuth()
		if b, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(r.Header.Get("X-Basic"), "Basic ")); err == nil {
			user, pw, _ = strings.Cut(string(b), ":")
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		io.WriteString(w, `{"execution_id":"e","status":"failed","skill_id":"weather.forecast","timestamps":{"created_at":"2026-01-01T00:00:00Z","completed_at":"2026-01-01T00:00:01Z"},"error":{"code":"forbidden","message":`+jsonString("token "+tok+", user "+user+" password "+pw)+`}}`)
	}
	code, stdout, stderr := runSkillcat(t, map[string]string{"SKILLCAT_CREDENTIAL": "Authorization: Token " + token + "\nX-Basic: " + basicValue},
		"invoke", s.srv.URL, "weather.forecast", "--input", "city=Berlin")
	if code != exitInvalid || strings.Contains(stdout+stderr, token) || strings.Contains(stdout+stderr, pass) {
		t.Errorf("custom auth: got exit %d %q %q, want 1 with neither %q nor %q", code, stdout, stderr, token, pass)
	}

	// The client secret of the client credentials grant, echoed by the
	// token endpoint as the Authorization header it got (base64 of
	// id:secret).
	const id, secret = "app", "client-secret-42"
	tokenSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"error":"invalid_client","error_description":`+jsonString("got "+r.Header.Get("Authorization"))+`}`)
	}))
	defer tokenSrv.Close()
	s = newCallSite(t, skillcat.Auth{Type: skillcat.AuthOAuth2, TokenURL: tokenSrv.URL + "/token"})
	code, stdout, stderr = runSkillcat(t, map[string]string{"SKILLCAT_CLIENT_ID": id, "SKILLCAT_CLIENT_SECRET": secret},
		"invoke", s.srv.URL, "weather.forecast", "--input", "city=Berlin")
	basic := base64.StdEncoding.EncodeToString([]byte(id + ":" + secret))
	if code != exitInvalid || !strings.Contains(stderr, "invalid_client") || strings.Contains(stdout+stderr, basic) || strings.Contains(stdout+stderr, secret) {
		t.Errorf("a refused client: got exit %d %q, want 1 with invalid_client and no base64 of id:secret (%s)", code, stderr, basic)
	}
}

// jsonString is s encoded as a JSON string, as Go writes it.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
