package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/client"
)

// trickle serves a JSON response one byte every 50ms, for ever, until the
// client hangs up: a hostile server that never trips a per-read timeout.
func trickle(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	for {
		if _, err := w.Write([]byte(" ")); err != nil {
			return
		}
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
			return
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// trickleSite publishes n skills whose descriptors all trickle.
func trickleSite(t *testing.T, n int) *site {
	s := newSite(t)
	var ds []*skillcat.SkillDescriptor
	for i := range n {
		ds = append(ds, descriptor(fmt.Sprintf("slow.s%03d", i), skillcat.API, skillcat.Public))
	}
	s.publish(ds...)
	for _, d := range ds {
		s.handle("/skills/"+d.ID+".json", trickle)
	}
	return s
}

// TestDiscoverBounded checks that a catalog whose descriptors trickle ends
// discovery within its documented bounds: after MaxFailures failed fetches
// in a row, or at the Deadline, with every descriptor not verified a
// problem wrapping ErrStopped.
func TestDiscoverBounded(t *testing.T) {
	t.Run("MaxFailures", func(t *testing.T) {
		s := trickleSite(t, 200)
		c := &client.Client{Timeout: 200 * time.Millisecond, Concurrency: 4, MaxFailures: 8}
		start := time.Now()
		var calls atomic.Int32
		cat, err := c.Discover(context.Background(), s.URL(), client.DiscoverOptions{Progress: func(done, total int) {
			calls.Add(1)
			if total != 200 || done < 1 || done > 200 {
				t.Errorf("progress %d/%d", done, total)
			}
		}})
		took := time.Since(start)
		// The bound: MaxFailures/Concurrency rounds of Timeout.
		if took > 3*time.Second {
			t.Errorf("Discover took %v, want about 8/4 × 200ms", took)
		}
		de := discoveryError(t, err)
		if len(de.Problems) != 200 || len(cat.Skills) != 0 {
			t.Fatalf("got %d problems and %d skills, want 200 problems", len(de.Problems), len(cat.Skills))
		}
		stopped := 0
		for _, p := range de.Problems {
			if errors.Is(p, client.ErrStopped) {
				stopped++
				if !strings.Contains(p.Error(), "not verified: discovery stopped after 8 descriptors in a row could not be fetched") {
					t.Errorf("got %q", p.Error())
				}
			}
		}
		if stopped < 180 {
			t.Errorf("%d problems are ErrStopped, want all but the first few", stopped)
		}
		if got := s.requests(""); got > 30 {
			t.Errorf("%d requests were sent after the cap was reached", got)
		}
		if calls.Load() < 8 {
			t.Errorf("progress was reported %d times", calls.Load())
		}
	})
	t.Run("Deadline", func(t *testing.T) {
		s := trickleSite(t, 50)
		c := &client.Client{Timeout: time.Minute, Deadline: 500 * time.Millisecond, MaxFailures: -1}
		start := time.Now()
		_, err := c.Discover(context.Background(), s.URL(), client.DiscoverOptions{})
		if took := time.Since(start); took > 3*time.Second {
			t.Errorf("Discover took %v, want about its 500ms deadline", took)
		}
		de := discoveryError(t, err)
		if len(de.Problems) != 50 {
			t.Fatalf("got %d problems, want 50", len(de.Problems))
		}
		for _, p := range de.Problems {
			if !errors.Is(p, client.ErrStopped) || !strings.HasSuffix(p.Error(), "not verified: discovery stopped at its deadline of 500ms") {
				t.Errorf("got %v, want ErrStopped at the deadline", p)
				break
			}
		}
	})
	t.Run("InvalidDescriptorsDoNotStopIt", func(t *testing.T) {
		s := newSite(t)
		var ds []*skillcat.SkillDescriptor
		for i := range 30 {
			ds = append(ds, descriptor(fmt.Sprintf("bad.s%03d", i), skillcat.API, skillcat.Public))
		}
		x := s.publish(ds...)
		for i := range x.Skills {
			x.Skills[i].Name = "Not the descriptor's name"
		}
		s.putIndex(x)
		_, err := (&client.Client{MaxFailures: 3}).Discover(context.Background(), s.URL(), client.DiscoverOptions{})
		for _, p := range discoveryError(t, err).Problems {
			if !errors.Is(p, client.ErrEntryMismatch) {
				t.Errorf("got %v, want every descriptor verified and mismatched", p)
			}
		}
	})
}

// TestDiscoverHostileNumber serves, over a real server, descriptors with
// a number beyond the bounds (with a correct digest) in every place a
// number can stand: each is that descriptor's problem at the number's
// position, the others are still verified, and nothing panics.
func TestDiscoverHostileNumber(t *testing.T) {
	const huge = "1e1000001"
	s := newSite(t)
	skills := sampleSkills()
	x := s.publish(skills...)
	places := map[string]func(string) string{
		"weather.forecast": func(b string) string {
			return strings.Replace(b, `"minLength": 1`, `"minLength": 1, "maxLength": `+huge, 1)
		},
		"geocode": func(b string) string { return strings.Replace(b, `"access": `, `"x-n": `+huge+`, "access": `, 1) },
		"pdf-tools": func(b string) string {
			return strings.Replace(b, `"output": {`, `"examples": [{"title": "t", "inputs": {"q": `+huge+`}}], "output": {`, 1)
		},
	}
	for i, e := range x.Skills {
		edit, ok := places[e.ID]
		if !ok {
			continue
		}
		path := "/skills/" + e.ID + ".json"
		body := edit(string(s.get(path)))
		if !strings.Contains(body, huge) {
			t.Fatalf("%s: the edit did not apply to %s", e.ID, body)
		}
		s.put(path, []byte(body))
		x.Skills[i].Digest = digest([]byte(body))
	}
	s.putIndex(x)
	cat, err := new(client.Client).Discover(context.Background(), s.URL(), client.DiscoverOptions{})
	de := discoveryError(t, err)
	if len(de.Problems) != len(places) {
		t.Fatalf("got problems:\n%v\nwant one per hostile descriptor", err)
	}
	for _, p := range de.Problems {
		var vs skillcat.Violations
		if !errors.As(p.Err, &vs) || len(vs) != 1 || !strings.Contains(vs[0].Reason, "has an exponent beyond ±1000") {
			t.Errorf("%s: got %v, want the number refused", p.ID, p.Err)
			continue
		}
		body := string(s.get("/skills/" + p.ID + ".json"))
		off := strings.Index(body, huge)
		line, col := strings.Count(body[:off], "\n")+1, off-strings.LastIndex(body[:off], "\n")
		if vs[0].Line != line || vs[0].Column != col {
			t.Errorf("%s: refused at %d:%d, want %d:%d", p.ID, vs[0].Line, vs[0].Column, line, col)
		}
	}
	if len(cat.Skills) != 2 {
		t.Errorf("got %d skills, want the 2 others", len(cat.Skills))
	}

	t.Run("Index", func(t *testing.T) {
		s := newSite(t)
		body := `{"protocol": {"version": "1.0.0"}, "skills": [], "x-n": ` + huge + `}`
		s.put(skillcat.WellKnownPath, []byte(body))
		_, err := new(client.Client).Discover(context.Background(), s.URL(), client.DiscoverOptions{})
		want := fmt.Sprintf(":1:%d: (file): number 1e1000001 has an exponent beyond ±1000", strings.Index(body, huge)+1)
		if de := discoveryError(t, err); len(de.Problems) != 1 || !strings.Contains(err.Error(), want) {
			t.Errorf("got %v, want the index's number refused at its position", err)
		}
	})
}

// TestDiscoverNoPanicEscapes makes verifying a document panic (an
// HTTPClient whose transport panics) and checks that the panic is that
// document's problem, not a crash of the program.
func TestDiscoverNoPanicEscapes(t *testing.T) {
	s := newSite(t)
	s.publish(sampleSkills()...)
	inner := http.DefaultTransport
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if strings.HasSuffix(r.URL.Path, "/geocode.json") {
			panic("a transport bug")
		}
		return inner.RoundTrip(r)
	})}
	cat, err := (&client.Client{HTTPClient: hc}).Discover(context.Background(), s.URL(), client.DiscoverOptions{})
	de := discoveryError(t, err)
	if len(de.Problems) != 1 || de.Problems[0].ID != "geocode" || !errors.Is(de.Problems[0], client.ErrInternal) ||
		!strings.Contains(de.Problems[0].Error(), "a transport bug") {
		t.Errorf("got %v, want geocode's problem wrapping ErrInternal", err)
	}
	if len(cat.Skills) != 4 {
		t.Errorf("got %d skills, want the 4 others", len(cat.Skills))
	}

	t.Run("Index", func(t *testing.T) {
		hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) { panic("index bug") })}
		_, err := (&client.Client{HTTPClient: hc}).Discover(context.Background(), s.URL(), client.DiscoverOptions{})
		if !errors.Is(err, client.ErrInternal) {
			t.Errorf("got %v, want ErrInternal", err)
		}
	})
}

// TestChangesBounded checks that following a change feed ends at the
// Deadline, as discovery does, when the feed trickles for ever.
func TestChangesBounded(t *testing.T) {
	s := newSite(t)
	s.handle(skillcat.ChangesPath, trickle)
	c := &client.Client{Timeout: time.Minute, Deadline: 500 * time.Millisecond}
	for name, follow := range map[string]func() error{
		"Changes": func() error {
			_, err := c.Changes(context.Background(), s.URL(), client.ChangesOptions{})
			return err
		},
		"FeedDocuments": func() error {
			_, err := c.FeedDocuments(context.Background(), s.URL())
			return err
		},
	} {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			err := follow()
			if took := time.Since(start); took > 3*time.Second {
				t.Errorf("took %v, want about its 500ms deadline", took)
			}
			if !errors.Is(err, client.ErrStopped) || !strings.Contains(err.Error(), "stopped at its deadline of 500ms") {
				t.Errorf("got %v, want ErrStopped at the deadline", err)
			}
		})
	}
}

// TestDiscoverIndexWarnings checks that an index's unknown member is a
// warning in Catalog.Warnings, and does not stop discovery.
func TestDiscoverIndexWarnings(t *testing.T) {
	s := newSite(t)
	s.publish(sampleSkills()...)
	data := s.get(skillcat.WellKnownPath)
	s.put(skillcat.WellKnownPath, append([]byte(`{"generated_at": "2026-12-01",`), data[1:]...))
	cat, err := (&client.Client{}).Discover(context.Background(), s.URL(), client.DiscoverOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Skills) != len(cat.Index.Skills) || len(cat.Skills) == 0 {
		t.Errorf("got %d skills of %d listed", len(cat.Skills), len(cat.Index.Skills))
	}
	if len(cat.Warnings) != 1 || cat.Warnings[0].Field != "generated_at" || !strings.Contains(cat.Warnings[0].Reason, "not a SkillIndex member") {
		t.Errorf("Catalog.Warnings: got %v, want one for generated_at", cat.Warnings)
	}
}

// TestChangesMaxSkills checks that a feed whose events after Since name
// more skills than ChangesOptions.MaxSkills is refused, so that a hostile
// feed cannot fill memory (6,000,000 delete events of distinct ids took
// 7.8 GB before, in 150 s, well inside the Deadline).
func TestChangesMaxSkills(t *testing.T) {
	s := newSite(t)
	var page strings.Builder
	page.WriteString(`{"events":[`)
	for i := range 12 {
		if i > 0 {
			page.WriteByte(',')
		}
		// seq 12 names s0 again: 11 distinct skills.
		fmt.Fprintf(&page, `{"seq":%d,"op":"delete","id":"s%d","version":"1.0.0","digest":"sha256:%064d"}`, i+1, i%11, 0)
	}
	page.WriteString(`]}`)
	s.put("/changes/pages/e-1-12.json", []byte(page.String()))
	s.put(skillcat.ChangesPath, []byte(`{"protocol":{"version":"1.0.0"},"epoch":"e","latest":12,"pages":[`+
		`{"url":"pages/e-1-12.json","from":1,"to":12,"digest":"`+digest([]byte(page.String()))+`"}]}`))
	c := &client.Client{}
	if _, err := c.Changes(context.Background(), s.URL(), client.ChangesOptions{MaxSkills: 10}); !errors.Is(err, client.ErrFeedTooLarge) ||
		!strings.Contains(err.Error(), "more than 10 skills") {
		t.Errorf("MaxSkills 10: got %v, want ErrFeedTooLarge", err)
	}
	ch, err := c.Changes(context.Background(), s.URL(), client.ChangesOptions{MaxSkills: 11})
	if err != nil || len(ch.Events) != 11 {
		t.Errorf("MaxSkills 11: got %v, want 11 events", err)
	}
	if _, err := c.Changes(context.Background(), s.URL(), client.ChangesOptions{Since: 2, MaxSkills: 10}); err != nil {
		t.Errorf("Since 2, MaxSkills 10 (10 skills after it): %v", err)
	}
	if client.DefaultMaxFeedSkills < 1_000_000 {
		t.Errorf("DefaultMaxFeedSkills %d: want room for ten times a 100,000-skill catalog", client.DefaultMaxFeedSkills)
	}
}

// TestDiscoverMaxTotalBytes checks that Discover stops fetching once the
// descriptors it holds pass Client.MaxTotalBytes (a hostile index of 3,000
// descriptors of 1 MB each made skillcat discover hold 8.3 GB), and that
// the skills left are problems wrapping ErrStopped.
func TestDiscoverMaxTotalBytes(t *testing.T) {
	s := newSite(t)
	var ds []*skillcat.SkillDescriptor
	for i := range 10 {
		ds = append(ds, descriptor(fmt.Sprintf("big.s%02d", i), skillcat.API, skillcat.Public))
	}
	s.publish(ds...)
	size := int64(len(s.get("/skills/big.s00.json")))
	c := &client.Client{Concurrency: 1, MaxTotalBytes: 3*size + size/2}
	cat, err := c.Discover(context.Background(), s.URL(), client.DiscoverOptions{})
	de := discoveryError(t, err)
	if len(cat.Skills) != 3 || len(de.Problems) != 7 {
		t.Fatalf("got %d skills and %d problems, want 3 and 7: %v", len(cat.Skills), len(de.Problems), err)
	}
	for _, p := range de.Problems {
		if !errors.Is(p, client.ErrStopped) || !strings.Contains(p.Error(), "Client.MaxTotalBytes") {
			t.Errorf("%s: got %v, want ErrStopped for MaxTotalBytes", p.ID, p.Err)
		}
	}
	if n := s.requests("/skills/big.s05.json"); n != 0 {
		t.Errorf("big.s05 fetched %d times after the budget was spent", n)
	}
	if client.DefaultMaxTotalBytes < 1<<30 {
		t.Errorf("DefaultMaxTotalBytes %d: want room for 100,000 descriptors of 4 KB and more", client.DefaultMaxTotalBytes)
	}
}
