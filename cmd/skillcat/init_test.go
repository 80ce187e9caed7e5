package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	skillcat "github.com/skillcat/skillcat"
	"go.yaml.in/yaml/v3"
)

// TestInitEndToEnd builds skillcat from this checkout with a release
// version, runs its init into an empty folder, builds the new catalog there
// with the same binary, and checks that every recipe installs that release
// and runs skillcat, never go run of a source tree.
func TestInitEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the skillcat binary")
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "skillcat")
	build := exec.Command("go", "build", "-ldflags", "-X main.Version=9.8.7", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dir := filepath.Join(tmp, "acme-skills")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	sh := func(args ...string) (string, string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Stdout, cmd.Stderr = dir, &stdout, &stderr
		cmd.Env = append(os.Environ(), "NO_COLOR=1")
		if err := cmd.Run(); err != nil {
			t.Fatalf("skillcat %s: %v\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
		}
		return stdout.String(), stderr.String()
	}
	_, stderr := sh("init")
	if strings.Contains(stderr, "development build") {
		t.Errorf("a release build warned that it is a development build: %s", stderr)
	}
	sh("build")
	index, err := os.ReadFile(filepath.Join(dir, "public", ".well-known", "skills.json"))
	if err != nil {
		t.Fatal(err)
	}
	x, vs := skillcat.ParseIndex("skills.json", index)
	if vs.HasErrors() || len(x.Skills) != 1 || x.Skills[0].ID != exampleID {
		t.Fatalf("built index: got %s (%v), want the one example skill", index, vs)
	}

	const install = "go install github.com/skillcat/skillcat/cmd/skillcat@"
	var wf struct {
		On   map[string]any    `yaml:"on"`
		Env  map[string]string `yaml:"env"`
		Jobs map[string]struct {
			If    string `yaml:"if"`
			Needs string `yaml:"needs"`
			Steps []struct {
				Uses string         `yaml:"uses"`
				Run  string         `yaml:"run"`
				With map[string]any `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	data := readTestFile(t, filepath.Join(dir, ".github", "workflows", "catalog.yml"))
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatalf("catalog.yml is not YAML: %v", err)
	}
	if got := wf.Env["SKILLCAT_VERSION"]; got != "v9.8.7" {
		t.Errorf("workflow SKILLCAT_VERSION: got %q, want v9.8.7", got)
	}
	for _, ev := range []string{"pull_request", "push", "schedule"} {
		if _, ok := wf.On[ev]; !ok {
			t.Errorf("workflow does not run on %s", ev)
		}
	}
	if v := wf.Jobs["validate"]; !strings.Contains(v.If, "== 'pull_request'") {
		t.Errorf("validate job runs if %q, want on pull requests", v.If)
	}
	if b := wf.Jobs["build"]; !strings.Contains(b.If, "!= 'pull_request'") {
		t.Errorf("build job runs if %q, want on everything but pull requests", b.If)
	}
	if wf.Jobs["deploy"].Needs != "build" {
		t.Errorf("deploy job needs %q, want build", wf.Jobs["deploy"].Needs)
	}
	seen := map[string]bool{}
	for name, job := range wf.Jobs {
		for _, st := range job.Steps {
			switch {
			case strings.Contains(st.Run, "go run"):
				t.Errorf("job %s runs go run: %q", name, st.Run)
			case strings.Contains(st.Run, install+"${SKILLCAT_VERSION}"):
				seen[name+" install"] = true
			case strings.Contains(st.Run, "skillcat validate --format github"):
				seen[name+" validate"] = true
			case strings.Contains(st.Run, `skillcat "$@"`):
				seen[name+" build"] = true
			}
			if strings.HasPrefix(st.Uses, "actions/cache/restore@") && st.With["path"] == ".cache/skillcat" {
				seen[name+" cache"] = true
			}
			if strings.HasPrefix(st.Uses, "actions/upload-pages-artifact@") && st.With["include-hidden-files"] == true {
				seen[name+" hidden"] = true
			}
		}
	}
	for _, want := range []string{"validate install", "validate validate", "build install", "build build", "build cache", "build hidden"} {
		if !seen[want] {
			t.Errorf("workflow lacks the step %q", want)
		}
	}
	netlify := string(readTestFile(t, filepath.Join(dir, "netlify.toml")))
	if strings.Count(netlify, install+"v9.8.7 &&") != 2 || strings.Contains(netlify, "go run") {
		t.Errorf("netlify.toml does not install v9.8.7 in both build commands:\n%s", netlify)
	}
	if !strings.Contains(netlify, `--base-url \"$URL\" --previous \"$URL\""`) {
		t.Errorf("netlify.toml's production build does not continue the live site's change feed:\n%s", netlify)
	}
	if readme := string(readTestFile(t, filepath.Join(dir, "README.md"))); !strings.Contains(readme, install+"v9.8.7") {
		t.Errorf("README.md does not say how to install v9.8.7:\n%s", readme)
	}
	if gi := string(readTestFile(t, filepath.Join(dir, ".gitignore"))); !strings.Contains(gi, "/public/") || !strings.Contains(gi, "/.cache/") {
		t.Errorf(".gitignore does not ignore public/ and .cache/:\n%s", gi)
	}
}

func TestInit(t *testing.T) {
	t.Run("DevelopmentBuildPinsLatest", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "cat")
		code, _, stderr := runCmd(t, "init", dir)
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if !strings.Contains(stderr, "development build") || !strings.Contains(stderr, "--pin") {
			t.Errorf("stderr: got %q, want the development-build note naming --pin", stderr)
		}
		wf := string(readTestFile(t, filepath.Join(dir, ".github", "workflows", "catalog.yml")))
		if !strings.Contains(wf, `SKILLCAT_VERSION: "latest"`) {
			t.Errorf("workflow does not pin latest:\n%s", wf)
		}
	})
	t.Run("Pin", func(t *testing.T) {
		dir := t.TempDir()
		if code, _, stderr := runCmd(t, "init", dir, "--pin", "v1.4.2", "--title", "Acme Skills"); code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if wf := string(readTestFile(t, filepath.Join(dir, ".github", "workflows", "catalog.yml"))); !strings.Contains(wf, `SKILLCAT_VERSION: "v1.4.2"`) {
			t.Errorf("workflow does not pin v1.4.2:\n%s", wf)
		}
		if idx := string(readTestFile(t, filepath.Join(dir, "content", "_index.md"))); !strings.Contains(idx, `title: "Acme Skills"`) {
			t.Errorf("_index.md: got\n%s\nwant the title Acme Skills", idx)
		}
	})
	t.Run("ErrBadPin", func(t *testing.T) {
		code, _, stderr := runCmd(t, "init", t.TempDir(), "--pin", "1.4.2; rm -rf /")
		if code != exitUsage || !strings.Contains(stderr, "--pin must be a release such as v1.2.0") {
			t.Errorf("got exit %d, %q; want exit 2 and the --pin rule", code, stderr)
		}
	})
	t.Run("GitOnlyIsEmpty", func(t *testing.T) {
		dir := t.TempDir()
		os.Mkdir(filepath.Join(dir, ".git"), 0o755)
		if code, _, stderr := runCmd(t, "init", dir, "--pin", "v1.0.0"); code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
	})
	t.Run("ErrNotEmpty", func(t *testing.T) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644)
		code, _, stderr := runCmd(t, "init", dir, "--pin", "v1.0.0")
		if code != exitUsage || !strings.Contains(stderr, "is not empty (it holds notes.txt)") || !strings.Contains(stderr, "--force") {
			t.Fatalf("got exit %d, %q; want exit 2 naming notes.txt and --force", code, stderr)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Errorf("a refused init wrote %d entries", len(entries)-1)
		}
	})
	t.Run("ForceKeepsFiles", func(t *testing.T) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "README.md"), []byte("mine\n"), 0o644)
		code, stdout, stderr := runCmd(t, "init", dir, "--force", "--pin", "v1.0.0")
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if got := string(readTestFile(t, filepath.Join(dir, "README.md"))); got != "mine\n" {
			t.Errorf("README.md: got %q, want the user's own kept", got)
		}
		if !strings.Contains(stdout, "kept    "+filepath.ToSlash(dir)+"/README.md (it exists)") {
			t.Errorf("stdout does not say README.md was kept:\n%s", stdout)
		}
		if _, err := os.Stat(filepath.Join(dir, "netlify.toml")); err != nil {
			t.Errorf("--force did not write the missing files: %v", err)
		}
	})
}

func TestMinGoVersionIsGoMod(t *testing.T) {
	mod := string(readTestFile(t, "../../go.mod"))
	if !strings.Contains(mod, "\ngo "+minGoVersion+".") && !strings.Contains(mod, "\ngo "+minGoVersion+"\n") {
		t.Errorf("go.mod's go line is not %s; update minGoVersion in init.go", minGoVersion)
	}
}

func readTestFile(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
