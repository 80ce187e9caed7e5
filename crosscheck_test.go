package skillcat_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/skillcat/skillcat"
)

// crossCheckDir holds the Node side of the cross-check: check.mjs (Ajv) and
// the TypeScript fixtures of the generated declarations.
const crossCheckDir = "scripts/crosscheck"

// crossCheckParsers validate one kind of document, by the directory name
// under testdata that holds it.
var crossCheckParsers = map[string]func(file string, data []byte) skillcat.Violations{
	"descriptor": func(f string, d []byte) skillcat.Violations { _, vs := skillcat.ParseDescriptor(f, d); return vs },
	"index":      func(f string, d []byte) skillcat.Violations { _, vs := skillcat.ParseIndex(f, d); return vs },
	"request":    func(f string, d []byte) skillcat.Violations { _, vs := skillcat.ParseRequest(f, d); return vs },
	"response":   func(f string, d []byte) skillcat.Violations { _, vs := skillcat.ParseResponse(f, d); return vs },
}

// ajvVerdict is one line of check.mjs's output.
type ajvVerdict struct {
	File   string   `json:"file"`
	Valid  bool     `json:"valid"`
	Errors []string `json:"errors"`
}

// TestCrossCheck validates every document under testdata/<kind>/{good,bad}/
// with the Go validator and with Ajv (an independent implementation of the
// same schemas and rules) and requires both to agree, and to find every good
// document valid and every bad one invalid. It also type-checks the
// TypeScript fixtures against the generated declarations.
func TestCrossCheck(t *testing.T) {
	requireNode(t)
	t.Run("Ajv", func(t *testing.T) {
		cmd := exec.Command("node", filepath.Join(crossCheckDir, "check.mjs"), "testdata")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("node check.mjs testdata: %v\n%s", err, stderr.String())
		}
		ajv := map[string]ajvVerdict{}
		sc := bufio.NewScanner(bytes.NewReader(out))
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			var v ajvVerdict
			if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
				t.Fatalf("check.mjs printed %q: %v", sc.Text(), err)
			}
			ajv[v.File] = v
		}
		files := crossCheckFiles(t)
		if len(files) == 0 {
			t.Fatal("no documents under testdata/<kind>/{good,bad}/")
		}
		for _, file := range files {
			kind, want := crossCheckKind(file)
			data, err := os.ReadFile(filepath.FromSlash(file))
			if err != nil {
				t.Fatal(err)
			}
			vs := crossCheckParsers[kind](file, data)
			goValid := !vs.HasErrors()
			a, ok := ajv[file]
			delete(ajv, file)
			switch {
			case !ok:
				t.Errorf("%s: ajv did not check it", file)
			case goValid != a.Valid:
				t.Errorf("%s: Go and ajv disagree: Go says %s, ajv says %s", file, goVerdict(vs), ajvSays(a))
			case goValid != want:
				t.Errorf("%s: Go and ajv both say %s, want %s", file, verdictWord(goValid), verdictWord(want))
			}
		}
		for file := range ajv {
			t.Errorf("%s: ajv checked it, Go did not", file)
		}
	})
	t.Run("TypeScript", func(t *testing.T) {
		// --no: never download a tsc; "--" keeps -p from being read as npx's --package.
		cmd := exec.Command("npx", "--no", "--", "tsc", "--noEmit", "-p", ".")
		cmd.Dir = crossCheckDir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npx tsc --noEmit -p %s: %v\n%s", crossCheckDir, err, out)
		}
	})
}

// requireNode skips the test when node or the cross-check's node_modules is
// missing, and fails it instead in CI, which must install them.
func requireNode(t *testing.T) {
	t.Helper()
	var missing []string
	for _, tool := range []string{"node", "npx"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool+" (not on PATH)")
		}
	}
	if _, err := os.Stat(filepath.Join(crossCheckDir, "node_modules")); err != nil {
		missing = append(missing, crossCheckDir+"/node_modules")
	}
	if len(missing) == 0 {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("cross-check cannot run in CI: missing %s; CI must install Node.js and run: npm ci --prefix %s", strings.Join(missing, ", "), crossCheckDir)
	}
	t.Skip("cross-check skipped: node or scripts/crosscheck/node_modules missing; run: cd scripts/crosscheck && npm ci")
}

// crossCheckFiles lists the *.json documents under testdata whose path holds
// <kind>/good/ or <kind>/bad/, slash-separated and sorted, as check.mjs does.
func crossCheckFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir("testdata", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		p = filepath.ToSlash(p)
		if !d.IsDir() && strings.HasSuffix(p, ".json") {
			if kind, _ := crossCheckKind(p); kind != "" {
				files = append(files, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	return files
}

// crossCheckKind returns the document kind of a file by its directories and
// whether it is meant to be valid, or "" when the path holds no
// <kind>/good/ or <kind>/bad/.
func crossCheckKind(file string) (kind string, good bool) {
	parts := strings.Split(path.Dir(file), "/")
	for i := len(parts) - 1; i >= 1; i-- {
		if parts[i] != "good" && parts[i] != "bad" {
			continue
		}
		if _, ok := crossCheckParsers[parts[i-1]]; ok {
			return parts[i-1], parts[i] == "good"
		}
	}
	return "", false
}

func verdictWord(valid bool) string {
	if valid {
		return "valid"
	}
	return "invalid"
}

func goVerdict(vs skillcat.Violations) string {
	if !vs.HasErrors() {
		return "valid"
	}
	var reasons []string
	for _, v := range vs {
		if v.Severity == skillcat.SeverityError {
			reasons = append(reasons, v.Field+": "+v.Reason)
		}
	}
	return "invalid (" + strings.Join(reasons, "; ") + ")"
}

func ajvSays(v ajvVerdict) string {
	if v.Valid {
		return "valid"
	}
	return "invalid (" + strings.Join(v.Errors, "; ") + ")"
}
