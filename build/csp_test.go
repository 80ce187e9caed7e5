package build_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/skillcat/skillcat/build"
)

// TestMetaContentSecurityPolicy checks that every page carries the policy
// in a <meta http-equiv> before anything it governs, for the hosts that
// ignore _headers, and that it is the header's policy but frame-ancestors.
func TestMetaContentSecurityPolicy(t *testing.T) {
	out := filepath.Join(t.TempDir(), "public")
	mustBuild(t, config(fstest.MapFS{"a.json": {Data: jsonSource(descriptor("a.skill"))}}, out))
	meta := `<meta http-equiv="Content-Security-Policy" content="` + strings.ReplaceAll(build.MetaContentSecurityPolicy, "'", "&#39;") + `">`
	pages := 0
	err := filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".html") {
			return err
		}
		pages++
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		page := string(data)
		i := strings.Index(page, meta)
		if i < 0 {
			t.Errorf("%s has no <meta> policy", p)
			return nil
		}
		for _, governed := range []string{"<link", "<script", "<style", "<img"} {
			if j := strings.Index(page, governed); j >= 0 && j < i {
				t.Errorf("%s: %s comes before the <meta> policy", p, governed)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if pages < 3 {
		t.Fatalf("only %d pages were built", pages)
	}
	if build.ContentSecurityPolicy != build.MetaContentSecurityPolicy+"; frame-ancestors 'none'" {
		t.Errorf("the header policy %q is not the meta policy with frame-ancestors", build.ContentSecurityPolicy)
	}
}
