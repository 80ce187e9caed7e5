package client_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/skillcat/skillcat/client"
)

func TestFetchDocument(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", r.URL.Query().Get("type"))
		w.Write([]byte("openapi: 3.1.0\n"))
	}))
	defer srv.Close()
	c := &client.Client{}
	for _, ct := range []string{"application/json", "application/vnd.oai.openapi+json", "application/yaml", "text/yaml; charset=utf-8", "application/x-yaml", "text/plain; charset=utf-8", "application/openapi+yaml"} {
		data, _, err := c.FetchDocument(context.Background(), srv.URL+"/doc?type="+url.QueryEscape(ct))
		if err != nil || string(data) != "openapi: 3.1.0\n" {
			t.Errorf("%s: got %q, %v; want the body", ct, data, err)
		}
	}
	for _, ct := range []string{"text/html", "application/octet-stream", ""} {
		if _, _, err := c.FetchDocument(context.Background(), srv.URL+"/doc?type="+url.QueryEscape(ct)); !errors.Is(err, client.ErrContentType) {
			t.Errorf("%q: got %v, want ErrContentType", ct, err)
		}
	}
	if _, _, err := c.FetchDocument(context.Background(), "http://api.example.com/openapi.yaml"); !errors.Is(err, client.ErrHTTPSRequired) {
		t.Errorf("plain http to a remote host: got %v, want ErrHTTPSRequired", err)
	}
	if _, _, err := c.FetchDocument(context.Background(), "openapi.yaml"); err == nil {
		t.Error("a relative reference was fetched")
	}
	small := &client.Client{MaxBytes: 4}
	if _, _, err := small.FetchDocument(context.Background(), srv.URL+"/doc?type="+url.QueryEscape("text/plain")); !errors.Is(err, client.ErrTooLarge) {
		t.Errorf("got %v, want ErrTooLarge", err)
	}
}
