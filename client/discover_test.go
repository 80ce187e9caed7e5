package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/client"
)

// ids returns the ids of a catalog's skills, in order.
func ids(cat *client.Catalog) []string {
	if cat == nil {
		return nil
	}
	var out []string
	for _, s := range cat.Skills {
		out = append(out, s.Entry.ID)
	}
	return out
}

// discoveryError returns err as a *DiscoveryError or fails.
func discoveryError(t *testing.T, err error) *client.DiscoveryError {
	t.Helper()
	var de *client.DiscoveryError
	if !errors.As(err, &de) {
		t.Fatalf("got error %v (%T), want a *client.DiscoveryError", err, err)
	}
	return de
}

func TestDiscover(t *testing.T) {
	s := newSite(t)
	s.publish(sampleSkills()...)
	want := []string{"geocode", "invoice_ocr", "pdf-tools", "style-guide", "weather.forecast"}

	for _, base := range []string{s.URL(), s.URL() + "/", s.URL() + skillcat.WellKnownPath} {
		t.Run(base, func(t *testing.T) {
			cat, err := new(client.Client).Discover(context.Background(), base, client.DiscoverOptions{})
			if err != nil {
				t.Fatalf("Discover: %v", err)
			}
			if got := ids(cat); !slices.Equal(got, want) {
				t.Fatalf("got skills %q, want every non-private skill %q", got, want)
			}
			if got, want := cat.IndexURL, s.URL()+skillcat.WellKnownPath; got != want {
				t.Errorf("got IndexURL %q, want %q", got, want)
			}
			if len(cat.Index.Skills) != len(want) {
				t.Errorf("got %d index entries, want %d", len(cat.Index.Skills), len(want))
			}
			for _, sk := range cat.Skills {
				if got, want := sk.URL, s.URL()+"/skills/"+sk.Entry.ID+".json"; got != want {
					t.Errorf("%s: got URL %q, want %q", sk.Entry.ID, got, want)
				}
				if sk.Descriptor == nil || sk.Descriptor.ID != sk.Entry.ID || sk.Descriptor.Endpoint.URL != "https://api.example.com/"+sk.Entry.ID {
					t.Errorf("%s: got descriptor %+v", sk.Entry.ID, sk.Descriptor)
				}
			}
		})
	}
	if n := s.requests("/skills/secret.notes.json"); n != 0 {
		t.Errorf("the private descriptor was requested %d times, want 0", n)
	}
}

func TestDiscoverType(t *testing.T) {
	s := newSite(t)
	skills := sampleSkills()
	s.publish(skills...)
	for _, typ := range skillcat.CapabilityTypes {
		t.Run(string(typ), func(t *testing.T) {
			before := s.requests("")
			cat, err := new(client.Client).Discover(context.Background(), s.URL(), client.DiscoverOptions{Type: typ})
			if err != nil {
				t.Fatalf("Discover: %v", err)
			}
			var want []string
			for _, d := range skills {
				if d.CapabilityType == typ && d.Access != skillcat.Private {
					want = append(want, d.ID)
				}
			}
			slices.Sort(want)
			if got := ids(cat); !slices.Equal(got, want) {
				t.Errorf("got %q, want exactly the %s skills %q", got, typ, want)
			}
			for _, sk := range cat.Skills {
				if sk.Entry.CapabilityType != typ || sk.Descriptor.CapabilityType != typ {
					t.Errorf("%s has type %s, want %s", sk.Entry.ID, sk.Descriptor.CapabilityType, typ)
				}
			}
			if got, want := s.requests("")-before, 1+len(want); got != want {
				t.Errorf("got %d requests, want %d: the index and the %s descriptors only", got, want, typ)
			}
		})
	}
	t.Run("ErrUnknownType", func(t *testing.T) {
		before := s.requests("")
		_, err := new(client.Client).Discover(context.Background(), s.URL(), client.DiscoverOptions{Type: "widget"})
		if err == nil || !strings.Contains(err.Error(), `"widget"`) {
			t.Errorf("got %v, want an error naming the type", err)
		}
		if s.requests("") != before {
			t.Errorf("a request was sent for an unknown type")
		}
	})
}

func TestDiscoverDigestMismatch(t *testing.T) {
	s := newSite(t)
	s.publish(sampleSkills()...)
	// The CDN serves something other than what was built.
	s.put("/skills/pdf-tools.json", append(encode(t, descriptor("pdf-tools", skillcat.Plugin, skillcat.Public)), ' '))

	cat, err := new(client.Client).Discover(context.Background(), s.URL(), client.DiscoverOptions{})
	de := discoveryError(t, err)
	if !errors.Is(err, client.ErrDigestMismatch) {
		t.Errorf("errors.Is(err, ErrDigestMismatch) = false for %v", err)
	}
	if len(de.Problems) != 1 || de.Problems[0].ID != "pdf-tools" {
		t.Fatalf("got problems %+v, want one for pdf-tools", de.Problems)
	}
	msg := de.Problems[0].Error()
	re := regexp.MustCompile(`^pdf-tools: http://127\.0\.0\.1:\d+/skills/pdf-tools\.json: digest mismatch: index says sha256:[0-9a-f]{64}, served bytes hash to sha256:[0-9a-f]{64}$`)
	if !re.MatchString(msg) {
		t.Errorf("got %q, want it to match %s", msg, re)
	}
	if got, want := ids(cat), []string{"geocode", "invoice_ocr", "style-guide", "weather.forecast"}; !slices.Equal(got, want) {
		t.Errorf("got skills %q, want the good ones %q", got, want)
	}
}

func TestDiscoverEveryProblem(t *testing.T) {
	s := newSite(t)
	skills := sampleSkills()
	s.publish(skills...)

	// b-tampered: the bytes differ from the digest.
	// c-missing: 404.
	// d-invalid: digest matches, but the descriptor breaks the schema.
	// e-mismatch: valid, but its version and name differ from the entry.
	// f-future: a descriptor of protocol 2.0.0.
	// g-html: served as text/html.
	x := skillcat.SkillIndex{Protocol: skillcat.CurrentProtocol()}
	add := func(id string, data []byte, e skillcat.IndexEntry) {
		e.DescriptorURL = "../skills/" + id + ".json"
		if data != nil {
			s.put("/skills/"+id+".json", data)
		}
		x.Skills = append(x.Skills, e)
	}
	good := descriptor("a-good", skillcat.API, skillcat.Public)
	add("a-good", encode(t, good), entry(good, "", encode(t, good)))

	tampered := descriptor("b-tampered", skillcat.API, skillcat.Public)
	e := entry(tampered, "", encode(t, tampered))
	tampered.Description = "Does something else.\n\nNow."
	add("b-tampered", encode(t, tampered), e)

	missing := descriptor("c-missing", skillcat.API, skillcat.Public)
	add("c-missing", nil, entry(missing, "", encode(t, missing)))

	invalid := []byte(`{"protocol": {"version": "1.0.0"}, "id": "d-invalid", "name": "Skill d-invalid", "version": "1.2.3", "capability_type": "api", "access": "public"}` + "\n")
	add("d-invalid", invalid, skillcat.IndexEntry{ID: "d-invalid", Name: "Skill d-invalid", Version: "1.2.3",
		CapabilityType: skillcat.API, Access: skillcat.Public, Summary: "x", Digest: digest(invalid)})

	mismatch := descriptor("e-mismatch", skillcat.API, skillcat.Public)
	e = entry(mismatch, "", nil)
	mismatch.Version, mismatch.Name = "9.9.9", "Renamed"
	add("e-mismatch", encode(t, mismatch), skillcat.IndexEntry{ID: e.ID, Name: e.Name, Version: e.Version,
		CapabilityType: e.CapabilityType, Access: e.Access, Summary: e.Summary, Digest: digest(encode(t, mismatch))})

	future := []byte(`{"protocol": {"version": "2.0.0"}, "id": "f-future", "whatever": true}`)
	add("f-future", future, skillcat.IndexEntry{ID: "f-future", Name: "Skill f-future", Version: "1.2.3",
		CapabilityType: skillcat.API, Access: skillcat.Public, Summary: "x", Digest: digest(future)})

	html := descriptor("g-html", skillcat.API, skillcat.Public)
	add("g-html", nil, entry(html, "", encode(t, html)))
	s.handle("/skills/g-html.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(encode(t, html))
	})
	s.putIndex(&x)

	cat, err := new(client.Client).Discover(context.Background(), s.URL(), client.DiscoverOptions{})
	de := discoveryError(t, err)
	if got, want := ids(cat), []string{"a-good"}; !slices.Equal(got, want) {
		t.Errorf("got skills %q, want %q", got, want)
	}
	var got []string
	for _, p := range de.Problems {
		got = append(got, p.ID)
	}
	want := []string{"b-tampered", "c-missing", "d-invalid", "e-mismatch", "f-future", "g-html"}
	if !slices.Equal(got, want) {
		t.Fatalf("got problems for %q, want one for each of %q:\n%v", got, want, err)
	}
	checks := []struct {
		sentinel error
		text     string
	}{
		{client.ErrDigestMismatch, "digest mismatch: index says sha256:"},
		{nil, "HTTP 404 Not Found"},
		{nil, "/skills/d-invalid.json:1:1: auth: required member is missing"},
		{client.ErrEntryMismatch, `name: index says "Skill e-mismatch", descriptor says "Renamed"; version: index says "1.2.3", descriptor says "9.9.9"`},
		{skillcat.ErrIncompatibleVersion, "protocol.version: incompatible protocol version 2.0.0 (supported: 1.x)"},
		{client.ErrContentType, "got an HTML page"},
	}
	for i, c := range checks {
		p := de.Problems[i]
		if c.sentinel != nil && !errors.Is(p, c.sentinel) {
			t.Errorf("%s: %v does not match %v", p.ID, p, c.sentinel)
		}
		if !strings.Contains(p.Error(), c.text) {
			t.Errorf("%s: got %q, want it to contain %q", p.ID, p.Error(), c.text)
		}
		if !strings.HasPrefix(p.Error(), p.ID+": "+s.URL()+"/skills/"+p.ID+".json") {
			t.Errorf("%s: got %q, want it to start with the id and the URL", p.ID, p.Error())
		}
	}
	if vs, ok := skillcat.AsViolations(de.Problems[2].Err); !ok || len(vs) < 3 {
		t.Errorf("d-invalid: got %v, want every violation of the descriptor", de.Problems[2].Err)
	}
	for _, member := range []string{"auth", "description", "endpoint", "inputs", "output", "provider"} {
		line := "d-invalid: " + s.URL() + "/skills/d-invalid.json:1:1: " + member + ": required member is missing"
		if !slices.Contains(strings.Split(de.Error(), "\n"), line) {
			t.Errorf("got %q, want a line %q", de.Error(), line)
		}
	}
}

func TestDiscoverIncompatibleIndex(t *testing.T) {
	s := newSite(t)
	x := s.publish(sampleSkills()...)
	x.Protocol.Version = "2.0.0"
	s.putIndex(x)

	cat, err := new(client.Client).Discover(context.Background(), s.URL(), client.DiscoverOptions{})
	if cat != nil {
		t.Errorf("got a catalog of %d skills, want none", len(cat.Skills))
	}
	if !errors.Is(err, skillcat.ErrIncompatibleVersion) {
		t.Fatalf("got %v, want an error matching skillcat.ErrIncompatibleVersion", err)
	}
	want := s.URL() + skillcat.WellKnownPath + ": protocol.version: incompatible protocol version 2.0.0 (supported: 1.x)"
	if err.Error() != want {
		t.Errorf("got %q, want %q", err.Error(), want)
	}
	if got := s.requests(""); got != 1 {
		t.Errorf("got %d requests, want 1: no descriptor of an incompatible index is fetched", got)
	}

	t.Run("SupportedMajor2", func(t *testing.T) {
		c := &client.Client{SupportedMajor: 2}
		_, err := c.Discover(context.Background(), s.URL(), client.DiscoverOptions{})
		if !errors.Is(err, client.ErrUnknownMajor) || errors.Is(err, skillcat.ErrIncompatibleVersion) {
			t.Fatalf("got %v, want ErrUnknownMajor and not ErrIncompatibleVersion", err)
		}
		for _, s := range []string{"2.0.0", "2.x", "1.x"} {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("got %q, want it to name %s", err.Error(), s)
			}
		}
	})
	t.Run("NewerMinor", func(t *testing.T) {
		x.Protocol.Version = "1.7.2"
		s.putIndex(x)
		cat, err := new(client.Client).Discover(context.Background(), s.URL(), client.DiscoverOptions{})
		if err != nil || len(cat.Skills) != 5 {
			t.Fatalf("got %v, want a 1.7.2 index processed normally", err)
		}
	})
	t.Run("OlderMajor", func(t *testing.T) {
		x.Protocol.Version = "1.0.0"
		s.putIndex(x)
		c := &client.Client{SupportedMajor: 2}
		cat, err := c.Discover(context.Background(), s.URL(), client.DiscoverOptions{})
		if err != nil || len(cat.Skills) != 5 {
			t.Fatalf("got %v, want a 1.0.0 index processed by a 2.x client", err)
		}
	})
}

func TestDiscoverInvalidIndex(t *testing.T) {
	s := newSite(t)
	s.put(skillcat.WellKnownPath, []byte(`{"protocol": {"version": "1.0.0"}, "skills": [{"id": "Bad Id"}]}`))
	cat, err := new(client.Client).Discover(context.Background(), s.URL(), client.DiscoverOptions{})
	de := discoveryError(t, err)
	if cat != nil || len(de.Problems) != 1 || de.Problems[0].ID != "" {
		t.Fatalf("got %v, want one problem with the index", err)
	}
	if _, ok := skillcat.AsViolations(err); !ok {
		t.Errorf("got %v, want the index's violations", err)
	}
	if !strings.Contains(err.Error(), s.URL()+skillcat.WellKnownPath+":1:") || !strings.Contains(err.Error(), "skills[0].id") {
		t.Errorf("got %q, want violations with the index URL, line and field", err)
	}
}

func TestDiscoverTimeout(t *testing.T) {
	stall := func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	}
	for name, h := range map[string]http.HandlerFunc{
		"Headers": stall,
		"Body": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"protocol": `))
			w.(http.Flusher).Flush()
			stall(w, r)
		},
	} {
		t.Run(name, func(t *testing.T) {
			s := newSite(t)
			s.handle(skillcat.WellKnownPath, h)
			c := &client.Client{Timeout: 150 * time.Millisecond}
			start := time.Now()
			_, err := c.Discover(context.Background(), s.URL(), client.DiscoverOptions{})
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("Discover took %v, want about the 150ms timeout", d)
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("got %v, want an error matching context.DeadlineExceeded", err)
			}
			if want := s.URL() + skillcat.WellKnownPath + ": timed out after 150ms"; err == nil || err.Error() != want {
				t.Errorf("got %v, want %q", err, want)
			}
		})
	}
	t.Run("Descriptor", func(t *testing.T) {
		s := newSite(t)
		s.publish(sampleSkills()...)
		s.handle("/skills/geocode.json", stall)
		c := &client.Client{Timeout: 150 * time.Millisecond}
		cat, err := c.Discover(context.Background(), s.URL(), client.DiscoverOptions{})
		de := discoveryError(t, err)
		if len(de.Problems) != 1 || de.Problems[0].ID != "geocode" || !strings.HasSuffix(err.Error(), "timed out after 150ms") {
			t.Errorf("got %v, want geocode timed out", err)
		}
		if len(cat.Skills) != 4 {
			t.Errorf("got %d skills, want the 4 others", len(cat.Skills))
		}
	})
	t.Run("Cancel", func(t *testing.T) {
		s := newSite(t)
		s.handle(skillcat.WellKnownPath, stall)
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		_, err := new(client.Client).Discover(ctx, s.URL(), client.DiscoverOptions{})
		if !errors.Is(err, context.DeadlineExceeded) || !strings.HasPrefix(err.Error(), "discover ") {
			t.Errorf("got %v, want the context's error", err)
		}
	})
}

func TestDiscoverTooLarge(t *testing.T) {
	t.Run("Streamed", func(t *testing.T) {
		s := newSite(t)
		var written atomic.Int64
		s.handle(skillcat.WellKnownPath, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			chunk := bytes.Repeat([]byte(" "), 64<<10)
			for written.Load() < 100<<20 {
				n, err := w.Write(chunk)
				written.Add(int64(n))
				if err != nil {
					return
				}
			}
		})
		_, err := new(client.Client).Discover(context.Background(), s.URL(), client.DiscoverOptions{})
		if !errors.Is(err, client.ErrTooLarge) {
			t.Fatalf("got %v, want ErrTooLarge", err)
		}
		if want := fmt.Sprintf("response larger than %d bytes", client.DefaultMaxBytes); !strings.HasSuffix(err.Error(), want) {
			t.Errorf("got %q, want it to end in %q", err, want)
		}
		s.srv.Close() // waits for the handler
		if n := written.Load(); n >= 100<<20 {
			t.Errorf("the server wrote all %d bytes, want the client to hang up early", n)
		}
	})
	t.Run("ContentLength", func(t *testing.T) {
		s := newSite(t)
		s.publish(sampleSkills()...)
		c := &client.Client{MaxBytes: 3000}
		body := bytes.Repeat([]byte(" "), 3001)
		s.handle("/skills/geocode.json", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", "3001")
			w.Write(body)
		})
		_, err := c.Discover(context.Background(), s.URL(), client.DiscoverOptions{})
		de := discoveryError(t, err)
		if len(de.Problems) != 1 || de.Problems[0].ID != "geocode" || !errors.Is(err, client.ErrTooLarge) ||
			!strings.HasSuffix(err.Error(), "response larger than 3000 bytes") {
			t.Errorf("got %v, want geocode larger than 3000 bytes", err)
		}
	})
}

func TestDiscoverContentType(t *testing.T) {
	for _, c := range []struct {
		ctype string
		ok    bool
	}{
		{"application/json", true},
		{"application/json; charset=utf-8", true},
		{"application/vnd.skills+json", true},
		{"text/html; charset=utf-8", false},
		{"text/plain", false},
		{"", false},
	} {
		t.Run(c.ctype, func(t *testing.T) {
			s := newSite(t)
			s.publish(descriptor("one", skillcat.API, skillcat.Public))
			index := s.get(skillcat.WellKnownPath)
			s.handle(skillcat.WellKnownPath, func(w http.ResponseWriter, r *http.Request) {
				w.Header()["Content-Type"] = []string{c.ctype}
				if c.ctype == "" {
					w.Header()["Content-Type"] = nil // no sniffing either
				}
				w.Write(index)
			})
			_, err := new(client.Client).Discover(context.Background(), s.URL(), client.DiscoverOptions{})
			if c.ok {
				if err != nil {
					t.Errorf("got %v, want %q accepted", err, c.ctype)
				}
				return
			}
			if !errors.Is(err, client.ErrContentType) {
				t.Fatalf("got %v, want ErrContentType", err)
			}
			if strings.HasPrefix(c.ctype, "text/html") && !strings.Contains(err.Error(), `unexpected Content-Type "text/html; charset=utf-8": got an HTML page, want a JSON document`) {
				t.Errorf("got %q, want a clear HTML error", err)
			}
		})
	}
}

func TestDiscoverRedirect(t *testing.T) {
	t.Run("Loop", func(t *testing.T) {
		s := newSite(t)
		s.handle(skillcat.WellKnownPath, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/again", http.StatusFound)
		})
		s.handle("/again", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, skillcat.WellKnownPath, http.StatusFound)
		})
		_, err := new(client.Client).Discover(context.Background(), s.URL(), client.DiscoverOptions{})
		if !errors.Is(err, client.ErrRedirect) || !strings.HasSuffix(err.Error(), "stopped after 5 redirects") {
			t.Errorf("got %v, want stopped after 5 redirects", err)
		}
		if got := s.requests(""); got != 1+client.MaxRedirects {
			t.Errorf("got %d requests, want %d", got, 1+client.MaxRedirects)
		}
	})
	t.Run("Followed", func(t *testing.T) {
		// The catalog moved under /v2/; relative descriptor URLs resolve
		// against where the index was finally found.
		s := newSite(t)
		x := s.publish(sampleSkills()...)
		s.put("/v2"+skillcat.WellKnownPath, s.get(skillcat.WellKnownPath))
		for _, e := range x.Skills {
			s.put("/v2/skills/"+e.ID+".json", s.get("/skills/"+e.ID+".json"))
		}
		s.handle(skillcat.WellKnownPath, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/v2"+skillcat.WellKnownPath, http.StatusMovedPermanently)
		})
		cat, err := new(client.Client).Discover(context.Background(), s.URL(), client.DiscoverOptions{})
		if err != nil {
			t.Fatalf("Discover: %v", err)
		}
		if got, want := cat.IndexURL, s.URL()+"/v2"+skillcat.WellKnownPath; got != want {
			t.Errorf("got IndexURL %q, want %q", got, want)
		}
		if got, want := cat.Skills[0].URL, s.URL()+"/v2/skills/geocode.json"; got != want {
			t.Errorf("got URL %q, want %q", got, want)
		}
	})
	t.Run("HTTPSToHTTP", func(t *testing.T) {
		plain := newSite(t)
		plain.publish(sampleSkills()...)
		tls := newTLSSite(t)
		tls.handle(skillcat.WellKnownPath, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, plain.URL()+skillcat.WellKnownPath, http.StatusFound)
		})
		c := &client.Client{HTTPClient: tls.srv.Client()}
		_, err := c.Discover(context.Background(), tls.URL(), client.DiscoverOptions{})
		if !errors.Is(err, client.ErrRedirect) || !strings.Contains(err.Error(), "refused redirect from https to http://127.0.0.1") {
			t.Errorf("got %v, want the downgrade refused", err)
		}
		if n := plain.requests(""); n != 0 {
			t.Errorf("the http site got %d requests, want 0", n)
		}
	})
}

func TestDiscoverTLS(t *testing.T) {
	s := newTLSSite(t)
	x := s.publish(sampleSkills()...)
	plain := newSite(t)
	plain.publish(sampleSkills()...)
	// An https index may not send its consumers to plain http.
	x.Skills[0].DescriptorURL = plain.URL() + "/skills/" + x.Skills[0].ID + ".json"
	s.putIndex(x)

	c := &client.Client{HTTPClient: s.srv.Client()}
	cat, err := c.Discover(context.Background(), s.URL(), client.DiscoverOptions{})
	de := discoveryError(t, err)
	if len(de.Problems) != 1 || de.Problems[0].ID != "geocode" || !errors.Is(err, client.ErrHTTPSRequired) {
		t.Errorf("got %v, want geocode's http URL refused", err)
	}
	if got, want := ids(cat), []string{"invoice_ocr", "pdf-tools", "style-guide", "weather.forecast"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q over https", got, want)
	}
	if n := plain.requests(""); n != 0 {
		t.Errorf("the http site got %d requests, want 0", n)
	}
}

func TestDiscoverHTTPSRequired(t *testing.T) {
	noNetwork := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		t.Errorf("request to %s, want none", r.URL)
		return nil, errors.New("no network in this test")
	})}
	c := &client.Client{HTTPClient: noNetwork}
	for _, base := range []string{"http://example.com", "http://example.com/.well-known/skills.json", "http://10.0.0.1/", "http://[::2]/"} {
		_, err := c.Discover(context.Background(), base, client.DiscoverOptions{})
		if !errors.Is(err, client.ErrHTTPSRequired) || !strings.Contains(err.Error(), "https required") {
			t.Errorf("%s: got %v, want ErrHTTPSRequired", base, err)
		}
	}
	for _, base := range []string{"ftp://example.com", "example.com", "/skills", "https://", "http://[::1"} {
		if _, err := c.Discover(context.Background(), base, client.DiscoverOptions{}); err == nil {
			t.Errorf("%s: got no error", base)
		}
	}

	t.Run("Descriptor", func(t *testing.T) {
		s := newSite(t)
		x := s.publish(sampleSkills()...)
		x.Skills[1].DescriptorURL = "http://example.com/skills/x.json"
		s.putIndex(x)
		onlyLoopback := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			if r.URL.Hostname() != "127.0.0.1" {
				t.Errorf("request to %s, want none", r.URL)
			}
			return http.DefaultTransport.RoundTrip(r)
		})}
		c := &client.Client{HTTPClient: onlyLoopback}
		_, err := c.Discover(context.Background(), s.URL(), client.DiscoverOptions{})
		de := discoveryError(t, err)
		if len(de.Problems) != 1 || de.Problems[0].ID != "invoice_ocr" || !errors.Is(err, client.ErrHTTPSRequired) {
			t.Errorf("got %v, want invoice_ocr refused", err)
		}
	})
}

func TestDiscoverAbsoluteURLs(t *testing.T) {
	s := newSite(t)
	other := newSite(t)
	x := s.publish(sampleSkills()...)
	for i, e := range x.Skills {
		x.Skills[i].DescriptorURL = s.URL() + "/skills/" + e.ID + ".json"
	}
	// One descriptor lives on another host.
	other.put("/elsewhere/geocode.json", s.get("/skills/geocode.json"))
	x.Skills[0].DescriptorURL = other.URL() + "/elsewhere/geocode.json"
	s.putIndex(x)

	cat, err := new(client.Client).Discover(context.Background(), s.URL(), client.DiscoverOptions{})
	if err != nil {
		t.Fatalf("Discover: %v", err)
	}
	if len(cat.Skills) != 5 || cat.Skills[0].URL != other.URL()+"/elsewhere/geocode.json" {
		t.Errorf("got %d skills, first at %q", len(cat.Skills), cat.Skills[0].URL)
	}
	if other.requests("/elsewhere/geocode.json") != 1 {
		t.Errorf("the other host was not asked for geocode")
	}
}

func TestDiscoverUserAgent(t *testing.T) {
	s := newSite(t)
	s.publish(sampleSkills()...)
	if _, err := new(client.Client).Discover(context.Background(), s.URL(), client.DiscoverOptions{}); err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`^skillcat/\S+ \(\+https://github\.com/skillcat/skillcat\)$`)
	for _, ua := range s.userAgents() {
		if !re.MatchString(ua) {
			t.Errorf("got User-Agent %q, want it to match %s", ua, re)
		}
	}

	s2 := newSite(t)
	s2.publish(sampleSkills()...)
	c := &client.Client{UserAgent: client.UserAgent("1.2.3")}
	if _, err := c.Discover(context.Background(), s2.URL(), client.DiscoverOptions{}); err != nil {
		t.Fatal(err)
	}
	agents := s2.userAgents()
	if len(agents) != 6 {
		t.Errorf("got %d requests, want 6", len(agents))
	}
	for _, ua := range agents {
		if want := "skillcat/1.2.3 (+https://github.com/skillcat/skillcat)"; ua != want {
			t.Errorf("got User-Agent %q, want %q", ua, want)
		}
	}
}

func TestDiscoverConcurrency(t *testing.T) {
	s := newSite(t)
	var skills []*skillcat.SkillDescriptor
	for i := range 12 {
		skills = append(skills, descriptor(fmt.Sprintf("skill-%02d", i), skillcat.Task, skillcat.Public))
	}
	s.publish(skills...)
	s.delay = 20 * time.Millisecond
	c := &client.Client{Concurrency: 3}
	cat, err := c.Discover(context.Background(), s.URL(), client.DiscoverOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Skills) != 12 {
		t.Errorf("got %d skills, want 12", len(cat.Skills))
	}
	s.mu.Lock()
	held := s.maxHeld
	s.mu.Unlock()
	if held > 3 || held < 2 {
		t.Errorf("got at most %d descriptor requests at once, want 2 or 3 with Concurrency 3", held)
	}
}

func TestIndexURL(t *testing.T) {
	for _, c := range []struct{ base, want string }{
		{"https://skills.example.com", "https://skills.example.com/.well-known/skills.json"},
		{"https://skills.example.com/", "https://skills.example.com/.well-known/skills.json"},
		{"https://skills.example.com/.well-known/skills.json", "https://skills.example.com/.well-known/skills.json"},
		{"https://example.com/catalog", "https://example.com/catalog/.well-known/skills.json"},
		{"https://example.com/catalog/", "https://example.com/catalog/.well-known/skills.json"},
		{"https://example.com/types/api.json", "https://example.com/types/api.json"},
		{"https://example.com/#top", "https://example.com/.well-known/skills.json"},
		{"  https://example.com  ", "https://example.com/.well-known/skills.json"},
		{"http://localhost:8080", "http://localhost:8080/.well-known/skills.json"},
		{"http://127.0.0.2:8080/", "http://127.0.0.2:8080/.well-known/skills.json"},
		{"http://[::1]:8080", "http://[::1]:8080/.well-known/skills.json"},
	} {
		u, err := client.IndexURL(c.base)
		if err != nil {
			t.Errorf("IndexURL(%q): %v", c.base, err)
			continue
		}
		if u.String() != c.want {
			t.Errorf("IndexURL(%q) = %q, want %q", c.base, u, c.want)
		}
	}
	for _, c := range []struct{ base, want string }{
		{"http://example.com", "http://example.com: https required: plain http is accepted only for localhost, 127.0.0.0/8 and ::1"},
		{"example.com", `"example.com" is not an absolute URL; want one like https://skills.example.com`},
		{"ftp://example.com", `ftp://example.com: unsupported URL scheme "ftp"; want https`},
	} {
		_, err := client.IndexURL(c.base)
		if err == nil || err.Error() != c.want {
			t.Errorf("IndexURL(%q): got error %v, want %q", c.base, err, c.want)
		}
	}
}

func TestDiscoverWarnings(t *testing.T) {
	s := newSite(t)
	d := descriptor("typo", skillcat.API, skillcat.Public)
	d.Extra = skillcat.Extra{"acess": json.RawMessage(`"public"`)}
	s.publish(d)
	cat, err := new(client.Client).Discover(context.Background(), s.URL(), client.DiscoverOptions{})
	if err != nil {
		t.Fatalf("got %v, want a warning not to fail discovery", err)
	}
	if len(cat.Skills) != 1 || len(cat.Skills[0].Warnings) != 1 || !strings.Contains(cat.Skills[0].Warnings[0].Error(), "acess") {
		t.Errorf("got %+v, want one warning about acess", cat.Skills)
	}
}
