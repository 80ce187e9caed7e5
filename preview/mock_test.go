package preview

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/build"
)

// mockSample serves the sample catalog, built, with Config.Mock; both
// close when the test ends.
func mockSample(t *testing.T) (*Server, *httptest.Server) {
	t.Helper()
	content, _ := filepath.Abs("../content")
	s, err := New(Config{Build: build.Config{Content: os.DirFS(content), ContentLabel: content, ContentPath: content}, Mock: true, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if rep := s.Build(t.Context()); rep.Err != nil {
		t.Fatal(rep.Err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv
}

// TestMockSite builds the sample catalog with Config.Mock and checks that
// every served index lists digests of the rewritten descriptors, that each
// descriptor points at the mock, that the mock answers an example, and that
// the built files and pages are left as built.
func TestMockSite(t *testing.T) {
	s, srv := mockSample(t)
	get := func(path string) []byte {
		t.Helper()
		res, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		data, _ := io.ReadAll(res.Body)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %s", path, res.Status)
		}
		return data
	}
	host := strings.TrimPrefix(srv.URL, "http://")
	for _, indexPath := range []string{skillcat.WellKnownPath, "/types/api.json"} {
		x, vs := skillcat.ParseIndex(indexPath, get(indexPath))
		if vs.HasErrors() {
			t.Fatal(vs)
		}
		if len(x.Skills) == 0 {
			t.Fatalf("%s lists nothing", indexPath)
		}
		for _, e := range x.Skills {
			data := get(resolveRef(indexPath, e.DescriptorURL))
			sum := sha256.Sum256(data)
			if got := "sha256:" + hex.EncodeToString(sum[:]); got != e.Digest {
				t.Errorf("%s: %s: digest %s, served bytes hash to %s", indexPath, e.ID, e.Digest, got)
			}
			d, vs := skillcat.ParseDescriptor(e.ID, data)
			if vs.HasErrors() {
				t.Fatal(vs)
			}
			if want := "http://" + host + "/_mock/skills/" + e.ID; d.Endpoint.URL != want {
				t.Errorf("%s: endpoint %s, want %s", e.ID, d.Endpoint.URL, want)
			}
		}
	}
	// The files of the build are as built.
	built, _ := os.ReadFile(filepath.Join(s.current().site, "skills", "weather.alerts.json"))
	if !strings.Contains(string(built), "https://api.acme.example/weather/v2/alerts") {
		t.Error("the built descriptor was changed on disk")
	}
	if page := get("/skills/weather.alerts/"); !strings.Contains(string(page), "api.acme.example") {
		t.Error("the page does not show the endpoint as written")
	}
	// The mock answers the example; a private skill has no mock.
	q := "caller=%7B%22id%22%3A%22t%22%2C%22type%22%3A%22agent%22%7D&skill_id=weather.alerts&inputs=%7B%22area%22%3A%7B%22country%22%3A%22IS%22%7D%7D"
	r, vs := skillcat.ParseResponse("mock", get("/_mock/skills/weather.alerts?"+q))
	if vs.HasErrors() || r.Status != skillcat.StatusSucceeded {
		t.Errorf("the mock answered %+v %v, want succeeded", r, vs)
	}
	res, err := http.Post(srv.URL+"/_mock/skills/hr.leave-policy", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound {
		t.Errorf("a private skill's mock: got %s, want 404", res.Status)
	}
}

// resolveRef resolves a descriptor_url of the index at indexPath to a URL
// path of the site.
func resolveRef(indexPath, ref string) string {
	name, ok := siteFile(strings.TrimPrefix(indexPath, "/"), ref)
	if !ok {
		return ref
	}
	return "/" + name
}

// TestMockJSONLeavesOthers: documents that are not a valid descriptor or
// SkillIndex pass through the mock's rewriting unchanged.
func TestMockJSONLeavesOthers(t *testing.T) {
	r := httptest.NewRequest("GET", "http://127.0.0.1:1313/x.json", nil)
	for _, doc := range []string{
		`{"skills":[{"name":"pdf","description":"x","url":"pdf/SKILL.md"}]}`,
		`{"$schema":"https://json-schema.org/draft/2020-12/schema","properties":{"id":{},"endpoint":{}}}`,
		`{"protocol":{"version":"1.0.0"},"id":"x","endpoint":{"url":"https://a.example.com"}}`,
		`not json`,
	} {
		if got := mockJSON(os.DirFS(t.TempDir()), "x.json", []byte(doc), r); string(got) != doc {
			t.Errorf("got %s, want %s unchanged", got, doc)
		}
	}
}
