package preview

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path"
	"strings"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/mock"
)

// With Config.Mock the server also answers invocations of the catalog's
// skills from their examples (package mock) under mock.MountPath, and the
// JSON documents it serves point there: each descriptor's endpoint.url
// becomes http://<host>/_mock/skills/<id>, and the digests of the indexes
// that list it are those of the rewritten bytes, so that a consumer
// verifies and invokes the local catalog as it would a deployed one; the
// change feed is rewritten likewise (mockfeed.go). The files of the build
// and its HTML pages are left as built.

// newMock returns the mock endpoint of the site currently served.
func (s *Server) newMock() *mock.Handler {
	return &mock.Handler{Skill: func(id string) *skillcat.SkillDescriptor {
		site := s.current().site
		if site == "" {
			return nil
		}
		fsys := os.DirFS(site)
		index := strings.TrimPrefix(skillcat.WellKnownPath, "/")
		x, err := readIndex(fsys, index)
		if err != nil {
			return nil
		}
		for _, e := range x.Skills {
			if e.ID != id {
				continue
			}
			name, ok := siteFile(index, e.DescriptorURL)
			if !ok {
				return nil
			}
			data, err := fs.ReadFile(fsys, name)
			if err != nil {
				return nil
			}
			d, vs := skillcat.ParseDescriptor(name, data)
			if vs.HasErrors() {
				return nil
			}
			return d
		}
		return nil
	}}
}

// serveMock answers a request under mock.MountPath.
func (s *Server) serveMock(w http.ResponseWriter, r *http.Request) {
	http.StripPrefix(mock.MountPath, s.mock).ServeHTTP(w, r)
}

// mockJSON rewrites a JSON document of the site for the mock: a valid
// descriptor's endpoint.url, a valid SkillIndex's digests, the change
// feed's digests of those descriptors. Anything else (the schemas, the
// other discovery formats) is returned as it is.
func mockJSON(fsys fs.FS, name string, data []byte, r *http.Request) []byte {
	var probe struct {
		Protocol *json.RawMessage `json:"protocol"`
		ID       string           `json:"id"`
		Endpoint json.RawMessage  `json:"endpoint"`
		Skills   json.RawMessage  `json:"skills"`
		Epoch    string           `json:"epoch"`
		Events   json.RawMessage  `json:"events"`
	}
	if json.Unmarshal(data, &probe) != nil {
		return data
	}
	base := mockBase(r)
	if probe.Events != nil && probe.Protocol == nil {
		if out, ok := mockPage(fsys, name, data, base); ok {
			return out
		}
		return data
	}
	if probe.Protocol == nil {
		return data
	}
	if probe.Epoch != "" {
		return mockFeed(fsys, name, data, base)
	}
	switch {
	case probe.Endpoint != nil && probe.ID != "":
		if out, ok := mockDescriptor(data, base); ok {
			return out
		}
	case probe.Skills != nil:
		x, vs := skillcat.ParseIndex(name, data)
		if vs.HasErrors() {
			return data
		}
		changed := false
		for i, e := range x.Skills {
			file, ok := siteFile(name, e.DescriptorURL)
			if !ok {
				continue
			}
			d, err := fs.ReadFile(fsys, file)
			if err != nil {
				continue
			}
			if out, ok := mockDescriptor(d, base); ok {
				sum := sha256.Sum256(out)
				x.Skills[i].Digest = "sha256:" + hex.EncodeToString(sum[:])
				changed = true
			}
		}
		if !changed {
			return data
		}
		if out, err := x.Encode(); err == nil {
			return out
		}
	}
	return data
}

// mockDescriptor returns a valid descriptor with endpoint.url pointed at
// the mock.
func mockDescriptor(data []byte, base string) ([]byte, bool) {
	d, vs := skillcat.ParseDescriptor("descriptor", data)
	if vs.HasErrors() {
		return nil, false
	}
	d.Endpoint.URL = base + mock.SkillPath(d.ID)
	out, err := d.Encode()
	return out, err == nil
}

// mockBase is the URL of the mock as the requester reaches this server.
func mockBase(r *http.Request) string {
	host := r.Host
	if u, err := url.Parse("http://" + host); err != nil || u.Host != host || host == "" {
		host = "127.0.0.1"
	}
	return "http://" + host + mock.MountPath
}

// readIndex reads a SkillIndex file of the site.
func readIndex(fsys fs.FS, name string) (*skillcat.SkillIndex, error) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, err
	}
	x := new(skillcat.SkillIndex)
	if err := json.Unmarshal(data, x); err != nil {
		return nil, err
	}
	return x, nil
}

// siteFile resolves a relative descriptor_url of the document name to the
// file of the site it names. An absolute URL (a build with a base URL)
// names no file here.
func siteFile(name, ref string) (string, bool) {
	u, err := url.Parse(ref)
	if err != nil || u.IsAbs() || u.Host != "" {
		return "", false
	}
	file := path.Join(path.Dir(name), u.Path)
	if strings.HasPrefix(u.Path, "/") {
		file = strings.TrimPrefix(path.Clean(u.Path), "/")
	}
	return file, fs.ValidPath(file)
}
