package main

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestImportCorpus imports every real-world document under the folder
// named by SKILLCAT_IMPORT_CORPUS, whose subfolders openapi/, mcp/ and
// a2a/ hold documents of that kind (none of them are committed: they are
// other people's files). Each document is imported into a fresh content
// folder, which runs the build's own validation over what would be
// written, then validated again as written. It fails when an import
// panics, hangs, or exits 0 with a source that does not validate; a
// document that is refused (exit 1) is counted by the reason's first
// words, and the summary is logged.
func TestImportCorpus(t *testing.T) {
	root := os.Getenv("SKILLCAT_IMPORT_CORPUS")
	if root == "" {
		t.Skip("set SKILLCAT_IMPORT_CORPUS to a folder with openapi/, mcp/ and a2a/ subfolders of real documents")
	}
	for _, kind := range []string{"openapi", "mcp", "a2a"} {
		files, _ := filepath.Glob(filepath.Join(root, kind, "*"))
		sort.Strings(files)
		ok, refused := 0, map[string]int{}
		skills := 0
		for _, f := range files {
			dir := t.TempDir()
			content := filepath.Join(dir, "content")
			code, out, errOut := runNewCmd(t, "import", kind, f, "--content", content)
			switch code {
			case exitOK:
				ok++
				skills += strings.Count(out, "\n")
				if c, _, vErr := runNewCmd(t, "validate", "--content", content); c != exitOK {
					t.Errorf("%s: imported, but validate exits %d:\n%s", f, c, vErr)
				}
			case exitInvalid:
				refused[reasonClass(errOut)]++
				if testing.Verbose() {
					t.Logf("%s: %s", filepath.Base(f), firstLine(errOut))
				}
			default:
				t.Errorf("%s: exit %d:\n%s", f, code, errOut)
			}
		}
		t.Logf("%s: %d documents, %d imported cleanly (%d skills), %d refused", kind, len(files), ok, skills, len(files)-ok)
		var classes []string
		for c, n := range refused {
			classes = append(classes, c+": "+strconv.Itoa(n))
		}
		sort.Strings(classes)
		for _, c := range classes {
			t.Logf("  refused: %s", c)
		}
	}
}

func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if !strings.Contains(l, ": warning: ") && l != "" {
			return l
		}
	}
	return ""
}

// reasonClass reduces an error line to its kind: the reason without the
// file, position and quoted values.
func reasonClass(stderr string) string {
	l := firstLine(stderr)
	if i := strings.Index(l, ": (file): "); i >= 0 {
		l = l[i+len(": (file): "):]
	} else if i := strings.LastIndex(l, ": "); i >= 0 && strings.Contains(l[:i], ":") {
		parts := strings.SplitN(l, ": ", 3)
		l = parts[len(parts)-1]
	}
	var b strings.Builder
	quoted := false
	for _, r := range l {
		if r == '"' {
			quoted = !quoted
			if quoted {
				b.WriteString("…")
			}
			continue
		}
		if !quoted {
			b.WriteRune(r)
		}
	}
	s := b.String()
	if len(s) > 90 {
		s = s[:90]
	}
	return s
}
