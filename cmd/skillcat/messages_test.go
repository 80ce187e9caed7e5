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
