package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	skillcat "github.com/skillcat/skillcat"
)

// discoverSite serves a catalog of three listed skills and a private one
// on 127.0.0.1. files maps each path to its body; tests change it before
// the first request.
type discoverSite struct {
	srv   *httptest.Server
	files map[string][]byte
	index *skillcat.SkillIndex
}

func newDiscoverSite(t *testing.T) *discoverSite {
	t.Helper()
	s := &discoverSite{files: map[string][]byte{}, index: &skillcat.SkillIndex{Protocol: skillcat.CurrentProtocol()}}
	for _, d := range []*skillcat.SkillDescriptor{
		testDescriptor("geocode", "Address Geocoding", skillcat.API, skillcat.Restricted),
		testDescriptor("pdf-tools", "PDF Tools", skillcat.Plugin, skillcat.Public),
		testDescriptor("secret", "Secret", skillcat.Knowledge, skillcat.Private),
		testDescriptor("weather.forecast", "Weather Forecast", skillcat.API, skillcat.Public),
	} {
		data, err := d.Encode()
		if err != nil {
			t.Fatal(err)
		}
		s.files["/skills/"+d.ID+".json"] = data
		if d.Access == skillcat.Private {
			continue
		}
		sum := sha256.Sum256(data)
		s.index.Skills = append(s.index.Skills, skillcat.IndexEntry{
			ID: d.ID, Name: d.Name, Version: d.Version, CapabilityType: d.CapabilityType, Access: d.Access,
			Summary: "Does " + d.ID + ".", DescriptorURL: "../skills/" + d.ID + ".json",
			Digest: "sha256:" + hex.EncodeToString(sum[:]),
		})
	}
	s.putIndex(t)
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := s.files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *discoverSite) putIndex(t *testing.T) {
	t.Helper()
	data, err := s.index.Encode()
	if err != nil {
		t.Fatal(err)
	}
	s.files[skillcat.WellKnownPath] = data
}

func testDescriptor(id, name string, typ skillcat.CapabilityType, access skillcat.Access) *skillcat.SkillDescriptor {
	auth := skillcat.Auth{Type: skillcat.AuthNone}
	if access != skillcat.Public {
		auth = skillcat.Auth{Type: skillcat.AuthAPIKey, In: "header", Name: "X-Api-Key"}
	}
	return &skillcat.SkillDescriptor{
		Protocol: skillcat.CurrentProtocol(), ID: id, Name: name, Version: "2.0.1", CapabilityType: typ,
		Description: "Does " + id + ".", Provider: skillcat.Provider{Name: "Test"},
		Endpoint: skillcat.Endpoint{URL: "https://api.example.com/" + id},
		Inputs:   json.RawMessage(`{"type":"object"}`), Output: json.RawMessage(`true`),
		Auth: auth, Access: access,
	}
}

// runDiscoverCmd runs "skillcat discover args..." and returns the exit code,
// stdout and stderr.
func runDiscoverCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
	code := run(context.Background(), e, append([]string{"discover"}, args...))
	return code, stdout.String(), stderr.String()
}

// unsignedNote is what discover says of an index without a signature.
const unsignedNote = "skillcat: discover: the index is not signed\n"

func TestDiscoverTable(t *testing.T) {
	s := newDiscoverSite(t)
	code, stdout, stderr := runDiscoverCmd(t, s.srv.URL)
	if code != exitOK || stderr != unsignedNote {
		t.Fatalf("got exit %d, stderr %q; want 0 and only %q", code, stderr, unsignedNote)
	}
	want := "" +
		"ID                TYPE    ACCESS      VERSION  NAME\n" +
		"geocode           api     restricted  2.0.1    Address Geocoding\n" +
		"pdf-tools         plugin  public      2.0.1    PDF Tools\n" +
		"weather.forecast  api     public      2.0.1    Weather Forecast\n"
	if stdout != want {
		t.Errorf("got\n%s\nwant\n%s", stdout, want)
	}

	t.Run("Type", func(t *testing.T) {
		// Flags may follow the URL.
		code, stdout, _ := runDiscoverCmd(t, s.srv.URL+"/", "--type", "api")
		want := "" +
			"ID                TYPE  ACCESS      VERSION  NAME\n" +
			"geocode           api   restricted  2.0.1    Address Geocoding\n" +
			"weather.forecast  api   public      2.0.1    Weather Forecast\n"
		if code != exitOK || stdout != want {
			t.Errorf("got exit %d and\n%s\nwant 0 and\n%s", code, stdout, want)
		}
		code, stdout, _ = runDiscoverCmd(t, "--type=knowledge", s.srv.URL)
		if want := "ID  TYPE  ACCESS  VERSION  NAME\n"; code != exitOK || stdout != want {
			t.Errorf("got exit %d and %q, want 0 and only the header", code, stdout)
		}
	})
}

func TestDiscoverJSON(t *testing.T) {
	s := newDiscoverSite(t)
	code, stdout, stderr := runDiscoverCmd(t, "--format", "json", s.srv.URL+skillcat.WellKnownPath, "--type", "plugin")
	if code != exitOK || stderr != unsignedNote {
		t.Fatalf("got exit %d, stderr %q; want 0 and only %q", code, stderr, unsignedNote)
	}
	var got []map[string]string
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("stdout is not a JSON array of objects: %v\n%s", err, stdout)
	}
	e := s.index.Skills[1]
	want := map[string]string{
		"id": "pdf-tools", "name": "PDF Tools", "version": "2.0.1", "capability_type": "plugin", "access": "public",
		"summary": "Does pdf-tools.", "descriptor_url": s.srv.URL + "/skills/pdf-tools.json", "digest": e.Digest,
	}
	if len(got) != 1 || len(got[0]) != len(want) {
		t.Fatalf("got %v, want [%v]", got, want)
	}
	for k, v := range want {
		if got[0][k] != v {
			t.Errorf("%s: got %q, want %q", k, got[0][k], v)
		}
	}

	code, stdout, _ = runDiscoverCmd(t, "--format=json", "--type=task", s.srv.URL)
	if code != exitOK || stdout != "[]\n" {
		t.Errorf("got exit %d and %q, want 0 and []", code, stdout)
	}
}

func TestDiscoverDigestMismatchCmd(t *testing.T) {
	s := newDiscoverSite(t)
	s.files["/skills/geocode.json"] = append(bytes.Clone(s.files["/skills/geocode.json"]), '\n')
	code, stdout, stderr := runDiscoverCmd(t, s.srv.URL)
	if code != exitInvalid {
		t.Errorf("got exit %d, want %d", code, exitInvalid)
	}
	re := regexp.MustCompile(`(?m)^skillcat: discover: geocode: http://127\.0\.0\.1:\d+/skills/geocode\.json: digest mismatch: index says sha256:[0-9a-f]{64}, served bytes hash to sha256:[0-9a-f]{64}$`)
	if !re.MatchString(stderr) {
		t.Errorf("got stderr %q, want a line matching %s", stderr, re)
	}
	if !strings.Contains(stderr, "skillcat: discover: 1 of 3 skills failed verification\n") {
		t.Errorf("got stderr %q, want a count of failures", stderr)
	}
	if strings.Contains(stdout, "geocode") || !strings.Contains(stdout, "pdf-tools") || !strings.Contains(stdout, "weather.forecast") {
		t.Errorf("got stdout %q, want the two good skills only", stdout)
	}
}

func TestDiscoverIncompatibleCmd(t *testing.T) {
	s := newDiscoverSite(t)
	s.index.Protocol.Version = "2.0.0"
	s.putIndex(t)

	code, stdout, stderr := runDiscoverCmd(t, s.srv.URL)
	want := "skillcat: discover: " + s.srv.URL + skillcat.WellKnownPath + ": protocol.version: incompatible protocol version 2.0.0 (supported: 1.x)\n"
	if code != exitInvalid || stdout != "" || stderr != want {
		t.Errorf("got exit %d, stdout %q, stderr %q; want 1, nothing and %q", code, stdout, stderr, want)
	}

	code, _, stderr = runDiscoverCmd(t, "--supported-major", "2", s.srv.URL)
	want = "skillcat: discover: " + s.srv.URL + skillcat.WellKnownPath + ": protocol.version: protocol version 2.0.0 is within the supported major (2.x), but this client can validate only 1.x documents\n"
	if code != exitInvalid || stderr != want {
		t.Errorf("got exit %d, stderr %q; want 1 and %q", code, stderr, want)
	}
}

func TestDiscoverFailures(t *testing.T) {
	stalled := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	}))
	defer stalled.Close()
	html := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<!doctype html><title>Home</title>"))
	}))
	defer html.Close()
	notFound := httptest.NewServer(http.NotFoundHandler())
	defer notFound.Close()

	for _, c := range []struct {
		name   string
		args   []string
		stderr string
	}{
		{"Timeout", []string{stalled.URL, "--timeout", "100ms"}, ": timed out after 100ms\n"},
		{"HTML", []string{html.URL}, `: unexpected Content-Type "text/html": got an HTML page, want a JSON document (application/json)` + "\n"},
		{"NotFound", []string{notFound.URL}, ": HTTP 404 Not Found\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := runDiscoverCmd(t, c.args...)
			if code != exitInvalid || stdout != "" || !strings.HasPrefix(stderr, "skillcat: discover: http://127.0.0.1:") || !strings.Contains(stderr, c.stderr) {
				t.Errorf("got exit %d, stdout %q, stderr %q; want 1, nothing and %q", code, stdout, stderr, c.stderr)
			}
		})
	}
}

func TestDiscoverUsage(t *testing.T) {
	s := newDiscoverSite(t)
	for _, c := range []struct {
		name   string
		args   []string
		stderr string
	}{
		{"NoURL", nil, "missing the catalog URL"},
		{"TwoURLs", []string{s.srv.URL, s.srv.URL}, "want one catalog URL; got 2 arguments"},
		{"BadType", []string{s.srv.URL, "--type", "widget"}, `--type must be one of plugin, api, knowledge, task; got "widget"`},
		{"BadFormat", []string{"--format", "xml", s.srv.URL}, `--format must be text or json; got "xml"`},
		{"BadMajor", []string{"--supported-major", "0", s.srv.URL}, "--supported-major must be at least 1"},
		{"BadTimeout", []string{"--timeout", "-1s", s.srv.URL}, "--timeout must be positive"},
		{"BadConcurrency", []string{"--concurrency", "0", s.srv.URL}, "--concurrency must be at least 1"},
		{"UnknownFlag", []string{"--nope", s.srv.URL}, "flag provided but not defined: -nope"},
		{"HTTPS", []string{"http://example.com"}, "http://example.com: https required: plain http is accepted only for localhost, 127.0.0.0/8 and ::1"},
		{"NotAURL", []string{"example.com"}, `"example.com" has no scheme`},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := runDiscoverCmd(t, c.args...)
			if code != exitUsage || stdout != "" || !strings.Contains(stderr, c.stderr) {
				t.Errorf("got exit %d, stdout %q, stderr %q; want %d, nothing and %q", code, stdout, stderr, exitUsage, c.stderr)
			}
		})
	}
	t.Run("Help", func(t *testing.T) {
		code, stdout, _ := runDiscoverCmd(t, "--help")
		if code != exitOK || !strings.Contains(stdout, "Usage: skillcat discover URL [flags]") || !strings.Contains(stdout, "-supported-major") {
			t.Errorf("got exit %d and %q, want 0 and the usage", code, stdout)
		}
	})
}
