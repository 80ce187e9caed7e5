package client_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/skillcat/skillcat/client"
)

// tokenServer is an OAuth 2.0 token endpoint on 127.0.0.1 that grants
// "tok-1" to client "app" with secret "s3:cret" (escaped in Basic auth).
func tokenServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		id, secret, ok := r.BasicAuth()
		if err := r.ParseForm(); err != nil || r.Method != "POST" || r.PostForm.Get("grant_type") != "client_credentials" {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":"unsupported_grant_type"}`)
			return
		}
		if !ok || id != "app" || secret != "s3%3Acret" {
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"error":"invalid_client","error_description":"unknown client"}`)
			return
		}
		if r.PostForm.Get("scope") == "bad" {
			io.WriteString(w, `{"access_token":"tok-1","token_type":"mac"}`)
			return
		}
		io.WriteString(w, `{"access_token":"tok-1","token_type":"Bearer","expires_in":3600,"scope":"`+r.PostForm.Get("scope")+`"}`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestClientCredentials(t *testing.T) {
	srv := tokenServer(t)
	c := &client.Client{}
	ctx := context.Background()
	t.Run("OK", func(t *testing.T) {
		tok, err := c.ClientCredentials(ctx, srv.URL+"/token", "app", "s3:cret", []string{"forecast:read", "alerts:read"})
		if err != nil || tok != "tok-1" {
			t.Errorf("got %q, %v; want tok-1", tok, err)
		}
	})
	for _, tc := range []struct {
		name, id, secret, scope, want string
	}{
		{"ErrClient", "app", "wrong", "", `invalid_client: unknown client`},
		{"ErrTokenType", "app", "s3:cret", "bad", `token_type "mac"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var scopes []string
			if tc.scope != "" {
				scopes = []string{tc.scope}
			}
			_, err := c.ClientCredentials(ctx, srv.URL+"/token", tc.id, tc.secret, scopes)
			if !errors.Is(err, client.ErrToken) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want ErrToken mentioning %s", err, tc.want)
			}
			if strings.Contains(err.Error(), tc.secret) && tc.secret != "" {
				t.Errorf("the error shows the client secret: %v", err)
			}
		})
	}
	t.Run("ErrRedirectNotFollowed", func(t *testing.T) {
		var reached atomic.Int32
		other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached.Add(1) }))
		defer other.Close()
		redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+"/token", http.StatusTemporaryRedirect)
		}))
		defer redirect.Close()
		if _, err := c.ClientCredentials(ctx, redirect.URL+"/token", "app", "s3:cret", nil); !errors.Is(err, client.ErrToken) {
			t.Errorf("got %v, want ErrToken", err)
		}
		if reached.Load() != 0 {
			t.Error("the client secret followed a redirect")
		}
	})
	t.Run("ErrHTTPSRequired", func(t *testing.T) {
		if _, err := c.ClientCredentials(ctx, "http://auth.example.com/token", "app", "x", nil); !errors.Is(err, client.ErrHTTPSRequired) {
			t.Errorf("got %v, want ErrHTTPSRequired", err)
		}
	})
}
