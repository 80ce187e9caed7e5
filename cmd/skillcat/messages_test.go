package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutNotAFolder checks that an --out that is a file, or lies in one,
// is a usage error (exit 2) that says so, and nothing is written.
func TestOutNotAFolder(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "afile")
	if err := os.WriteFile(file, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{file, filepath.Join(file, "sub")} {
		code, _, stderr := runSkillcat(t, nil, "build", "--content", sampleContent, "--out", out, "--no-cache")
		if code != exitUsage || !strings.Contains(stderr, `is a file, not a folder`) {
			t.Errorf("--out %s: exit %d, stderr:\n%s\nwant exit 2 saying it is a file", out, code, stderr)
		}
	}
	if data, _ := os.ReadFile(file); string(data) != "keep me" {
		t.Errorf("the file was changed: %q", data)
	}
	code, _, stderr := runSkillcat(t, nil, "build", "--content", sampleContent, "--out", filepath.Dir(sampleContent), "--no-cache")
	if code != exitUsage {
		t.Errorf("--out the content's parent: exit %d, want 2; stderr:\n%s", code, stderr)
	}
}

// TestLongYAMLKey checks that a member name longer than YAML allows is
// reported as such, at its line, not as a missing ':' elsewhere.
func TestLongYAMLKey(t *testing.T) {
	content := t.TempDir()
	key := strings.Repeat("k", 1100)
	src := "---\nid: long.key\nname: Long\n" + key + ": value\n---\nBody.\n"
	if err := os.WriteFile(filepath.Join(content, "long.md"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runSkillcat(t, nil, "validate", "--content", content)
	want := "long.md:4:1: (file): member name is 1100 characters long; YAML allows at most 1024 in a key (write it shorter)"
	if code != exitInvalid || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 1 and %q", code, stderr, want)
	}
}

// TestNewRefusesCollidingID checks that "new a" after "new a.json" is
// refused: skills "a" and "a.json" cannot both be published.
func TestNewRefusesCollidingID(t *testing.T) {
	content := t.TempDir()
	if code, _, stderr := runNewCmd(t, "new", "a.json", "--content", content); code != exitOK {
		t.Fatalf("new a.json: exit %d: %s", code, stderr)
	}
	code, _, stderr := runNewCmd(t, "new", "a", "--content", content)
	if code != exitUsage || !strings.Contains(stderr, `id "a" cannot be published beside "a.json"`) {
		t.Errorf("new a: exit %d, stderr:\n%s\nwant exit 2 naming a.json", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(content, "a.json")); err == nil {
		t.Errorf("new a wrote a.json anyway")
	}
	if code, _, stderr := runSkillcat(t, nil, "validate", "--content", content); code != exitOK {
		t.Errorf("the content does not validate: exit %d\n%s", code, stderr)
	}
}

// TestCILogSaysNothingPrivate checks that with CI set the summaries tell
// nothing of private skills, not even by subtracting counts.
func TestCILogSaysNothingPrivate(t *testing.T) {
	ci := map[string]string{"CI": "true"}
	_, _, local := runSkillcat(t, nil, "validate", "--content", sampleContent)
	if !strings.Contains(local, " skills private") {
		t.Fatalf("without CI the summary should count private skills:\n%s", local)
	}
	sources, _, _ := strings.Cut(local, " valid")
	out := filepath.Join(t.TempDir(), "public")
	for _, args := range [][]string{
		{"build", "--content", sampleContent, "--out", out, "--no-cache"},
		{"build", "--content", sampleContent, "--out", out},
		{"validate", "--content", sampleContent},
	} {
		code, stdout, stderr := runSkillcat(t, ci, args...)
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		log := stdout + stderr
		for _, leak := range []string{"private", sources, "withheld"} {
			if strings.Contains(log, leak) {
				t.Errorf("%v with CI set says %q:\n%s", args, leak, log)
			}
		}
	}
}

// TestCILogHidesPrivateWarnings checks that with CI set the warnings of a
// private skill's source (which name where it lives) are left out, with a
// line saying so, and those of listed skills are still shown.
func TestCILogHidesPrivateWarnings(t *testing.T) {
	content := t.TempDir()
	for _, n := range []struct{ file, id, access string }{{"open.json", "open.one", "public"}, {"secret/hidden.json", "hidden.one", "private"}} {
		src := `{"protocol": {"version": "1.0.0"}, "id": "` + n.id + `", "name": "N", "version": "1.0.0", "capability_type": "task",
  "description": "D.", "provider": {"name": "P"}, "endpoint": {"url": "https://api.example.com/x"},
  "inputs": {"type": "object"}, "output": true, "auth": {"type": "none"}, "access": "` + n.access + `", "tagz": []}`
		if err := os.MkdirAll(filepath.Dir(filepath.Join(content, n.file)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(content, n.file), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{
		{"validate", "--content", content},
		{"build", "--content", content, "--out", filepath.Join(t.TempDir(), "public"), "--no-cache"},
	} {
		code, stdout, stderr := runSkillcat(t, map[string]string{"CI": "true"}, args...)
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		log := stdout + stderr
		if strings.Contains(log, "hidden") || strings.Contains(log, "secret") {
			t.Errorf("%v: the private source shows in a CI log:\n%s", args, log)
		}
		if !strings.Contains(log, "open.json") || !strings.Contains(log, "warnings of private skills are not shown") {
			t.Errorf("%v: want the listed skill's warning and a note:\n%s", args, log)
		}
		_, stdout, stderr = runSkillcat(t, nil, args...)
		if !strings.Contains(stdout+stderr, "secret/hidden.json") {
			t.Errorf("%v: without CI the private source's warning should show:\n%s", args, stdout+stderr)
		}
	}
}
