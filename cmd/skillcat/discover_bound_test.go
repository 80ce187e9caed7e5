package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	skillcat "github.com/skillcat/skillcat"
)

// TestDiscoverHostileServer runs discover against a real server whose
// descriptors trickle one byte at a time and one whose descriptor holds a
// number beyond the bounds: it ends within its bound, says why, and does
// not list every descriptor it never fetched.
func TestDiscoverHostileServer(t *testing.T) {
	x := &skillcat.SkillIndex{Protocol: skillcat.CurrentProtocol()}
	files := map[string][]byte{}
	for i := range 100 {
		id := fmt.Sprintf("slow.s%03d", i)
		x.Skills = append(x.Skills, skillcat.IndexEntry{ID: id, Name: "Slow", Version: "1.0.0", CapabilityType: skillcat.API,
			Access: skillcat.Public, Summary: "Slow.", DescriptorURL: "../skills/" + id + ".json", Digest: "sha256:" + strings.Repeat("0", 64)})
	}
	// One descriptor holds 1e1000001, served with its correct digest.
	d := testDescriptor("huge", "Huge", skillcat.API, skillcat.Public)
	data, err := d.Encode()
	if err != nil {
		t.Fatal(err)
	}
	data = []byte(strings.Replace(string(data), `"access": `, `"x-n": 1e1000001, "access": `, 1))
	sum := sha256.Sum256(data)
	files["/skills/huge.json"] = data
	x.Skills = append([]skillcat.IndexEntry{{ID: "huge", Name: "Huge", Version: "2.0.1", CapabilityType: skillcat.API, Access: skillcat.Public,
		Summary: "Huge.", DescriptorURL: "../skills/huge.json", Digest: "sha256:" + hex.EncodeToString(sum[:])}}, x.Skills...)
	index, err := x.Encode()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == skillcat.WellKnownPath {
			w.Write(index)
			return
		}
		if body, ok := files[r.URL.Path]; ok {
			w.Write(body)
			return
		}
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
	}))
	defer srv.Close()
	start := time.Now()
	code, _, stderr := runDiscoverCmd(t, srv.URL, "--timeout", "200ms", "--max-failures", "4", "--concurrency", "2")
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("discover took %v; its bound is about 4/2 × 200ms", took)
	}
	if code != exitInvalid {
		t.Errorf("exit %d, want 1", code)
	}
	if !strings.Contains(stderr, "huge.json:") || !strings.Contains(stderr, "number 1e1000001 has an exponent beyond ±1000") {
		t.Errorf("the huge number is not reported:\n%s", stderr)
	}
	if !strings.Contains(stderr, "descriptors not verified: discovery stopped after 4 descriptors in a row could not be fetched") {
		t.Errorf("stderr does not say why discovery stopped:\n%s", stderr)
	}
	if n := strings.Count(stderr, "\n"); n > 20 {
		t.Errorf("stderr has %d lines; the descriptors never fetched should be counted, not listed:\n%s", n, stderr)
	}
}
