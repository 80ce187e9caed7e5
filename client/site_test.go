package client_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	skillcat "github.com/skillcat/skillcat"
)

// site is a catalog served over real HTTP on 127.0.0.1. Tests publish
// descriptors and an index into it, override paths with handlers, and read
// back which paths were requested and with which User-Agent.
type site struct {
	t   *testing.T
	srv *httptest.Server

	mu       sync.Mutex
	files    map[string][]byte
	handlers map[string]http.HandlerFunc
	hits     map[string]int
	agents   []string

	delay             time.Duration // before answering a /skills/ request
	inflight, maxHeld int
}

// newSite starts a plain HTTP site; newTLSSite an HTTPS one.
func newSite(t *testing.T) *site    { return startSite(t, false) }
func newTLSSite(t *testing.T) *site { return startSite(t, true) }

func startSite(t *testing.T, tls bool) *site {
	t.Helper()
	s := &site{t: t, files: map[string][]byte{}, handlers: map[string]http.HandlerFunc{}, hits: map[string]int{}}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	// Hang-ups by the client are what several tests provoke.
	s.srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	if tls {
		s.srv.StartTLS()
	} else {
		s.srv.Start()
	}
	t.Cleanup(s.srv.Close)
	return s
}

func (s *site) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.hits[r.URL.Path]++
	s.agents = append(s.agents, r.Header.Get("User-Agent"))
	h := s.handlers[r.URL.Path]
	body, ok := s.files[r.URL.Path]
	delay := s.delay
	if strings.HasPrefix(r.URL.Path, "/skills/") {
		s.inflight++
		s.maxHeld = max(s.maxHeld, s.inflight)
	}
	s.mu.Unlock()
	defer func() {
		if strings.HasPrefix(r.URL.Path, "/skills/") {
			s.mu.Lock()
			s.inflight--
			s.mu.Unlock()
		}
	}()
	if delay > 0 && strings.HasPrefix(r.URL.Path, "/skills/") {
		time.Sleep(delay)
	}
	switch {
	case h != nil:
		h(w, r)
	case ok:
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	default:
		http.NotFound(w, r)
	}
}

// URL returns the site's base URL, "http://127.0.0.1:port".
func (s *site) URL() string { return s.srv.URL }

// put serves body as application/json at path.
func (s *site) put(path string, body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files[path] = body
}

// get returns what put stored at path.
func (s *site) get(path string) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.files[path]
}

// handle serves path with h.
func (s *site) handle(path string, h http.HandlerFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handlers[path] = h
}

// requests returns how many requests reached path ("" for all paths).
func (s *site) requests(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if path != "" {
		return s.hits[path]
	}
	n := 0
	for _, c := range s.hits {
		n += c
	}
	return n
}

// userAgents returns the User-Agent of every request so far.
func (s *site) userAgents() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.agents)
}

// publish serves every descriptor at /skills/<id>.json, private ones
// included, and an index at /.well-known/skills.json listing the
// non-private ones with relative ../skills/<id>.json URLs, as the build
// writes them. It returns the index.
func (s *site) publish(ds ...*skillcat.SkillDescriptor) *skillcat.SkillIndex {
	s.t.Helper()
	x := &skillcat.SkillIndex{Protocol: skillcat.CurrentProtocol()}
	for _, d := range ds {
		data := encode(s.t, d)
		s.put("/skills/"+d.ID+".json", data)
		if d.Access == skillcat.Private {
			continue
		}
		x.Skills = append(x.Skills, entry(d, "../skills/"+d.ID+".json", data))
	}
	slices.SortFunc(x.Skills, func(a, b skillcat.IndexEntry) int { return strings.Compare(a.ID, b.ID) })
	s.putIndex(x)
	return x
}

// putIndex serves x at /.well-known/skills.json.
func (s *site) putIndex(x *skillcat.SkillIndex) {
	s.t.Helper()
	data, err := x.Encode()
	if err != nil {
		s.t.Fatalf("encode index: %v", err)
	}
	s.put(skillcat.WellKnownPath, data)
}

// descriptor returns a valid descriptor of one skill.
func descriptor(id string, t skillcat.CapabilityType, access skillcat.Access) *skillcat.SkillDescriptor {
	auth := skillcat.Auth{Type: skillcat.AuthNone}
	if access != skillcat.Public {
		auth = skillcat.Auth{Type: skillcat.AuthAPIKey, In: "header", Name: "X-Api-Key"}
	}
	return &skillcat.SkillDescriptor{
		Protocol:       skillcat.CurrentProtocol(),
		ID:             id,
		Name:           "Skill " + id,
		Version:        "1.2.3",
		CapabilityType: t,
		Description:    "Does " + id + " well.\n\nMore about it.",
		Provider:       skillcat.Provider{Name: "Test Provider"},
		Endpoint:       skillcat.Endpoint{URL: "https://api.example.com/" + id},
		Inputs:         json.RawMessage(`{"type":"object","properties":{"q":{"type":"string","minLength":1}},"required":["q"]}`),
		Output:         json.RawMessage(`{"type":"object"}`),
		Auth:           auth,
		Access:         access,
	}
}

// sampleSkills is a catalog of every type and access level; skill
// "secret.notes" is private.
func sampleSkills() []*skillcat.SkillDescriptor {
	return []*skillcat.SkillDescriptor{
		descriptor("weather.forecast", skillcat.API, skillcat.Public),
		descriptor("geocode", skillcat.API, skillcat.Restricted),
		descriptor("pdf-tools", skillcat.Plugin, skillcat.Public),
		descriptor("style-guide", skillcat.Knowledge, skillcat.Public),
		descriptor("invoice_ocr", skillcat.Task, skillcat.Restricted),
		descriptor("secret.notes", skillcat.Knowledge, skillcat.Private),
	}
}

func encode(t *testing.T, d *skillcat.SkillDescriptor) []byte {
	t.Helper()
	data, err := d.Encode()
	if err != nil {
		t.Fatalf("encode %s: %v", d.ID, err)
	}
	return data
}

// entry returns the index entry of d served as data at url.
func entry(d *skillcat.SkillDescriptor, url string, data []byte) skillcat.IndexEntry {
	return skillcat.IndexEntry{
		ID:             d.ID,
		Name:           d.Name,
		Version:        d.Version,
		CapabilityType: d.CapabilityType,
		Access:         d.Access,
		Summary:        strings.SplitN(d.Description, "\n\n", 2)[0],
		DescriptorURL:  url,
		Digest:         digest(data),
	}
}

func digest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// roundTripFunc is an http.RoundTripper made of a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
