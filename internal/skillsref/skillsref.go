// Package skillsref runs the Agent Skills reference validator, the npm
// package skills-ref pinned in scripts/skillsref, from Go tests.
package skillsref

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Dir is scripts/skillsref of this module: the pinned skills-ref and
// validate.mjs, which validates every skill folder under a root.
var Dir = func() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "scripts", "skillsref")
}()

// Check has skills-ref validate every folder holding a SKILL.md under dir
// and fails the test for each one it refuses, or when it finds none.
// Without Node or the installed package it skips, loudly, saying how to
// install them; with CI set it fails instead.
func Check(t testing.TB, dir string) {
	t.Helper()
	var missing []string
	if _, err := exec.LookPath("node"); err != nil {
		missing = append(missing, "node (not on PATH)")
	}
	if _, err := os.Stat(filepath.Join(Dir, "node_modules", "skills-ref")); err != nil {
		missing = append(missing, "scripts/skillsref/node_modules")
	}
	if len(missing) > 0 {
		if os.Getenv("CI") != "" {
			t.Fatalf("skills-ref cannot run in CI: missing %s; CI must install Node.js and run: npm ci --prefix scripts/skillsref", strings.Join(missing, ", "))
		}
		t.Skipf("SKILLS-REF VALIDATION SKIPPED: missing %s; install Node.js and run: cd scripts/skillsref && npm ci", strings.Join(missing, ", "))
	}
	cmd := exec.Command("node", filepath.Join(Dir, "validate.mjs"), dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	checked := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var v struct {
			Dir    string   `json:"dir"`
			Errors []string `json:"errors"`
		}
		if jerr := json.Unmarshal(sc.Bytes(), &v); jerr != nil {
			t.Fatalf("validate.mjs printed %q: %v", sc.Text(), jerr)
		}
		checked++
		for _, e := range v.Errors {
			data, _ := os.ReadFile(filepath.Join(v.Dir, "SKILL.md"))
			t.Errorf("skills-ref refuses %s: %s\n%s", v.Dir, e, data)
		}
	}
	if err != nil && !t.Failed() {
		t.Fatalf("node validate.mjs %s: %v\n%s", dir, err, stderr.String())
	}
	if checked == 0 {
		t.Fatalf("skills-ref checked no SKILL.md under %s", dir)
	}
	t.Logf("skills-ref accepted %d SKILL.md files under %s", checked, dir)
}
