package browsertest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestHTMLValid runs the Nu HTML Checker (vnu.jar from npm, with java) over
// every page of the sample catalog and of the XSS fixture: no errors, no
// warnings.
func TestHTMLValid(t *testing.T) {
	java, err := exec.LookPath("java")
	if err != nil {
		missing(t, "java (for the Nu HTML Checker)", "apt-get install -y default-jre-headless")
	}
	jar := npmTool(t, "vnu-jar/build/dist/vnu.jar", "the Nu HTML Checker (vnu-jar)")
	var files []string
	for _, dir := range []string{builtSite(t, sample, true).Dir, builtSite(t, xssFixture, false).Dir} {
		err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".html") {
				files = append(files, p)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	files = append(files, pagedPages(t)...)
	var stderr bytes.Buffer
	cmd := exec.Command(java, append([]string{"-Xss8m", "-jar", jar, "--format", "json", "--stdout"}, files...)...)
	cmd.Stdout = &stderr
	cmd.Stderr = os.Stderr
	runErr := cmd.Run()
	var report struct {
		Messages []struct {
			Type, SubType, URL, Message, Extract string
			LastLine                             int
		}
	}
	if err := json.Unmarshal(stderr.Bytes(), &report); err != nil {
		t.Fatalf("vnu: %v (%v): %s", err, runErr, stderr.String())
	}
	for _, m := range report.Messages {
		if m.Type == "info" && m.SubType != "warning" {
			continue
		}
		// The checker reads the pages as file: URLs, whose origin is opaque,
		// so the pages' <meta> CSP ('self') blocks their own assets there;
		// served over HTTP they load (TestPagesClean checks that in
		// Chromium, with no console error).
		if m.Type == "info" && strings.HasPrefix(m.Message, "Resource violates Content Security Policy (meta tag)") {
			continue
		}
		kind := m.Type
		if m.SubType != "" {
			kind += "/" + m.SubType
		}
		t.Errorf("%s:%d: %s: %s\n    %s", strings.TrimPrefix(m.URL, "file:"), m.LastLine, kind, m.Message, strings.TrimSpace(m.Extract))
	}
	if len(report.Messages) == 0 && runErr != nil {
		t.Fatalf("vnu failed: %v", runErr)
	}
	t.Logf("checked %d pages", len(files))
}

// TestAccessibility runs axe-core in every page of the sample catalog, in
// the light and the dark scheme, at desktop and phone widths: no serious or
// critical violations.
func TestAccessibility(t *testing.T) {
	src, err := os.ReadFile(npmTool(t, "axe-core/axe.min.js", "axe-core"))
	if err != nil {
		t.Fatal(err)
	}
	s := builtSite(t, sample, true)
	ctx := newTab(t)
	pages := append(s.pages(t), "no/such/page/")
	type violation struct {
		ID, Impact, Help string
		Nodes            []struct {
			Target         []any
			FailureSummary string
		}
	}
	// Every rule on every page in the light scheme at desktop width; the
	// rules that depend on colours in the dark scheme; every rule on a few
	// pages at phone width.
	const colorRules = `{runOnly: {type: "rule", values: ["color-contrast", "link-in-text-block"]}, resultTypes: ["violations"]}`
	const allRules = `{resultTypes: ["violations"]}`
	phonePages := []string{"", "types/api/", "skills/" + screenshotSkill(t, s) + "/", "no/such/page/"}
	for _, mode := range []struct {
		w      int64
		scheme string
		pages  []string
		opts   string
	}{
		{1280, "light", pages, allRules},
		{1280, "dark", pages, colorRules},
		{390, "light", phonePages, allRules},
		{390, "dark", phonePages, colorRules},
	} {
		do(t, ctx, viewport(mode.w, 900), scheme(mode.scheme))
		for _, p := range mode.pages {
			load(t, ctx, s.URL+p)
			// Evaluated through the DevTools protocol, the script needs no
			// CSP exception.
			eval[bool](t, ctx, string(src)+"\n;true")
			vs := eval[[]violation](t, ctx, `axe.run(document, `+mode.opts+`).then(r => r.violations)`)
			for _, v := range vs {
				if v.Impact != "serious" && v.Impact != "critical" {
					t.Logf("/%s %dpx %s: %s (%s) %s", p, mode.w, mode.scheme, v.ID, v.Impact, v.Help)
					continue
				}
				var where []string
				for _, n := range v.Nodes {
					where = append(where, fmt.Sprint(n.Target)+": "+n.FailureSummary)
				}
				t.Errorf("/%s %dpx %s: %s (%s): %s\n    %s", p, mode.w, mode.scheme, v.ID, v.Impact, v.Help, strings.Join(where, "\n    "))
			}
		}
	}
}
