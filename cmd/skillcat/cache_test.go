package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuildDamagedCache checks what a user reads when the rebuild cache is
// damaged: one line saying so, a build from scratch, exit 0.
func TestBuildDamagedCache(t *testing.T) {
	t.Chdir(t.TempDir())
	writeContent(t, "content", map[string]string{"a.json": skillJSON("cache.a", nil), "b.md": skillMD("cache.b")})
	if code, _, stderr := runSkillcat(t, nil, "build", "--quiet"); code != 0 {
		t.Fatalf("first build: exit %d: %s", code, stderr)
	}
	cache := filepath.Join(".cache", "skillcat", "public.sqlite")
	data, err := os.ReadFile(cache)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cache, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll("public")
	code, _, stderr := runSkillcat(t, nil, "build", "--quiet")
	if code != 0 {
		t.Fatalf("build with a damaged cache: exit %d: %s", code, stderr)
	}
	if lines := strings.Split(strings.TrimSpace(stderr), "\n"); len(lines) != 1 ||
		!strings.HasPrefix(lines[0], "skillcat: note: rebuild cache "+cache+" is damaged") || !strings.Contains(lines[0], "built from scratch") {
		t.Errorf("stderr: got %q, want one line saying the cache was damaged and the build ran from scratch", stderr)
	}
	if _, err := os.Stat(filepath.Join("public", "skills", "cache.a.json")); err != nil {
		t.Errorf("the build did not publish: %v", err)
	}
	if code, _, stderr := runSkillcat(t, nil, "build", "--quiet"); code != 0 || stderr != "" {
		t.Errorf("the build after: exit %d, stderr %q; want 0 and nothing", code, stderr)
	}
}
