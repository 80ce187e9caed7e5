package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	skillcat "github.com/skillcat/skillcat"
)

// TestEndToEnd builds the sample catalog with the build command, serves
// public/ with net/http on 127.0.0.1 as a static host would, and discovers
// it with the discover command: both ends of the protocol, for real.
func TestEndToEnd(t *testing.T) {
	out := filepath.Join(t.TempDir(), "public")
	if code, _, stderr := runCmd(t, "build", "--content", "../../content", "--out", out, "--no-cache", "--quiet"); code != 0 {
		t.Fatalf("build: exit %d: %s", code, stderr)
	}
	index, err := os.ReadFile(filepath.Join(out, ".well-known", "skills.json"))
	if err != nil {
		t.Fatal(err)
	}
	x, vs := skillcat.ParseIndex("skills.json", index)
	if vs.HasErrors() {
		t.Fatalf("built index is invalid: %v", vs)
	}
	srv := httptest.NewServer(staticHost(out))
	defer srv.Close()

	t.Run("EverySkill", func(t *testing.T) {
		code, stdout, stderr := runCmd(t, "discover", srv.URL, "--format", "json")
		if code != 0 {
			t.Fatalf("discover: exit %d: %s", code, stderr)
		}
		var raw []map[string]any
		if err := json.Unmarshal([]byte(stdout), &raw); err != nil {
			t.Fatalf("discover output: %v", err)
		}
		if len(raw) != len(x.Skills) {
			t.Fatalf("skills found: got %d, want %d", len(raw), len(x.Skills))
		}
		for i, e := range x.Skills {
			if raw[i]["id"] != e.ID {
				t.Errorf("skill %d: got %v, want %s", i, raw[i]["id"], e.ID)
			}
		}
		for _, private := range []string{"hr.leave-policy", "expenses.submit-report"} {
			if strings.Contains(stdout, private) {
				t.Errorf("private skill %s was discovered", private)
			}
		}
	})

	t.Run("TypeFilter", func(t *testing.T) {
		for _, typ := range skillcat.CapabilityTypes {
			code, stdout, stderr := runCmd(t, "discover", srv.URL, "--type", string(typ), "--format", "json")
			if code != 0 {
				t.Fatalf("discover --type %s: exit %d: %s", typ, code, stderr)
			}
			var raw []map[string]any
			if err := json.Unmarshal([]byte(stdout), &raw); err != nil {
				t.Fatal(err)
			}
			want := x.Filter(typ)
			if len(raw) != len(want) {
				t.Fatalf("--type %s: got %d skills, want %d", typ, len(raw), len(want))
			}
			for i := range want {
				if raw[i]["id"] != want[i].ID || raw[i]["capability_type"] != string(typ) {
					t.Errorf("--type %s: skill %d is %v (%v), want %s", typ, i, raw[i]["id"], raw[i]["capability_type"], want[i].ID)
				}
			}
		}
	})

	t.Run("ErrDigestMismatch", func(t *testing.T) {
		tampered := filepath.Join(t.TempDir(), "public")
		copyTree(t, out, tampered)
		victim := x.Skills[0].ID
		p := filepath.Join(tampered, "skills", victim+".json")
		data, _ := os.ReadFile(p)
		os.WriteFile(p, bytes.Replace(data, []byte(`"name": "`), []byte(`"name": "Evil `), 1), 0o644)
		srv := httptest.NewServer(staticHost(tampered))
		defer srv.Close()
		code, stdout, stderr := runCmd(t, "discover", srv.URL)
		if code != exitInvalid {
			t.Fatalf("exit: got %d, want %d", code, exitInvalid)
		}
		if !strings.Contains(stderr, victim) || !strings.Contains(stderr, "digest mismatch") {
			t.Errorf("stderr does not report the digest mismatch of %s:\n%s", victim, stderr)
		}
		if !strings.Contains(stdout, x.Skills[1].ID) {
			t.Errorf("the untampered skills are not listed:\n%s", stdout)
		}
	})

	t.Run("ErrIncompatibleVersion", func(t *testing.T) {
		future := filepath.Join(t.TempDir(), "public")
		copyTree(t, out, future)
		p := filepath.Join(future, ".well-known", "skills.json")
		os.WriteFile(p, bytes.Replace(index, []byte(`"version": "1.0.0"`), []byte(`"version": "2.0.0"`), 1), 0o644)
		srv := httptest.NewServer(staticHost(future))
		defer srv.Close()
		code, _, stderr := runCmd(t, "discover", srv.URL)
		if code != exitInvalid {
			t.Fatalf("exit: got %d, want %d", code, exitInvalid)
		}
		if !strings.Contains(stderr, "incompatible protocol version 2.0.0 (supported: 1.x)") {
			t.Errorf("stderr: got %q, want the incompatible-version message", stderr)
		}
	})
}

// staticHost serves a built site as a static host does, JSON with its
// content type and CORS header.
func staticHost(dir string) http.Handler {
	files := http.FileServer(http.Dir(dir))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, ".json") {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.Header().Set("Access-Control-Allow-Origin", "*")
		}
		files.ServeHTTP(w, r)
	})
}

// runCmd runs a skillcat command in-process.
func runCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), &env{stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}, args)
	return code, out.String(), errb.String()
}
