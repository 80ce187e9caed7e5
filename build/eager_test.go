package build_test

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/skillcat/skillcat/build"
	"github.com/skillcat/skillcat/synth"
	"github.com/skillcat/skillcat/templates"
)

// TestEagerEqualsStreamed holds a cold build, whose skills' own files are
// made as each source is parsed (eagerRun), without a cache and with a
// new one, to a build that makes them from the descriptors streamed out
// of the index after the load (a cache filled by a build at another time,
// so that no source is parsed again and no file taken): the same tree,
// byte for byte, whatever the workers' timing, with every export or none
// (no spill of instructions), and with a site's own skill template
// (executed, not written by skillhtml.go).
func TestEagerEqualsStreamed(t *testing.T) {
	builtin, err := fs.ReadFile(templates.FS(), "skill.html")
	if err != nil {
		t.Fatal(err)
	}
	mine := bytes.Replace(builtin, []byte(`<main id="main">`), []byte(`<main id="main" data-site="own">`), 1)
	if bytes.Equal(mine, builtin) {
		t.Fatal(`skill.html has no <main id="main"> to change`)
	}
	for name, tc := range map[string]struct {
		site      string // _index.md, or none
		templates fs.FS
	}{
		"Exports":   {},
		"NoExports": {site: "---\ntitle: T\nexports:\n  agent_skills: false\n  api_catalog: false\n  llms_txt: false\n---\n"},
		"Templates": {templates: fstest.MapFS{"skill.html": {Data: mine}}},
	} {
		t.Run(name, func(t *testing.T) {
			content := filepath.Join(t.TempDir(), "content")
			if err := synth.Write(content, 60, 11); err != nil {
				t.Fatal(err)
			}
			if tc.site != "" {
				if err := os.WriteFile(filepath.Join(content, build.SiteFile), []byte(tc.site), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cfg := func(out, cache string, workers int) build.Config {
				return build.Config{Content: os.DirFS(content), ContentLabel: "content", ContentPath: content, Out: out,
					Cache: cache, Workers: workers, Time: testTime, BaseURL: "https://skills.example.com/", Templates: tc.templates}
			}
			dir := t.TempDir()
			cache := filepath.Join(dir, "cache.sqlite")
			earlier := cfg(filepath.Join(dir, "earlier"), cache, 2)
			earlier.Time = testTime.Add(-time.Hour)
			mustBuild(t, earlier)
			streamed := filepath.Join(dir, "streamed")
			if res := mustBuild(t, cfg(streamed, cache, 2)); res.Parsed != 0 {
				t.Fatalf("the streamed build parsed %d sources, want none", res.Parsed)
			}
			want := snapshot(t, streamed)
			for _, workers := range []int{1, 2, 4} {
				for _, cache := range []string{"", filepath.Join(dir, fmt.Sprintf("new-%d.sqlite", workers))} {
					eager := filepath.Join(dir, "eager")
					os.RemoveAll(eager)
					mustBuild(t, cfg(eager, cache, workers))
					got := snapshot(t, eager)
					if maps.Equal(got, want) {
						continue
					}
					for _, p := range slices.Sorted(maps.Keys(want)) {
						if got[p] != want[p] {
							t.Errorf("%d workers, cache %q: %s: got %q, want %q", workers, cache, p, got[p], want[p])
						}
					}
					for p := range got {
						if _, ok := want[p]; !ok {
							t.Errorf("%d workers, cache %q: %s: made, not in the streamed build", workers, cache, p)
						}
					}
				}
			}
			if tc.templates != nil {
				page := filepath.Join(streamed, "skills")
				entries, _ := os.ReadDir(page)
				var saw bool
				for _, e := range entries {
					if data, err := os.ReadFile(filepath.Join(page, e.Name(), "index.html")); err == nil {
						saw = saw || bytes.Contains(data, []byte(`data-site="own"`))
					}
				}
				if !saw {
					t.Errorf("no page was made from the site's own template")
				}
			}
		})
	}
}

// TestEagerCollisionsAreViolations holds an eager build, without a cache
// and with a new one, to report two skills whose files collide in the new
// tree (one id claimed twice, or ids "x" and "x.json") as the violations
// they are, not as a failure to write, and to leave the previous output as
// it was.
func TestEagerCollisionsAreViolations(t *testing.T) {
	for name, tc := range map[string]struct {
		files map[string]string
		want  string
	}{
		"DuplicateID": {
			files: map[string]string{
				"a.json": string(jsonSource(descriptor("same"))),
				"b.json": string(jsonSource(descriptor("same"))),
			},
			want: `content/b.json:11:9: id: id "same" is already used by content/a.json; ids must be unique`,
		},
		"FileAndFolder": {
			files: map[string]string{
				"a.json": string(jsonSource(descriptor("x"))),
				"b.json": string(jsonSource(descriptor("x.json"))),
			},
			want: `content/b.json:11:9: id: id "x.json" cannot be published beside "x" (content/a.json): /skills/x.json would be a file of one and a folder of the other; rename one of them`,
		},
	} {
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "public")
			mustBuild(t, config(mapFS(map[string]string{"ok.json": string(jsonSource(descriptor("ok")))}), out))
			before := snapshot(t, out)
			// Enough sources beside the two that both are made by then,
			// on whichever worker.
			files := maps.Clone(tc.files)
			for i := range 40 {
				id := "filler-" + strings.Repeat("x", i%3) + string(rune('a'+i%26)) + string(rune('a'+i/26))
				files["f/"+id+".json"] = string(jsonSource(descriptor(id)))
			}
			for _, workers := range []int{1, 2, 4} {
				// Without a cache, and with a new one (whose index is
				// loaded as the temporary one is: the duplicate is found
				// at its commit).
				for _, cache := range []string{"", filepath.Join(t.TempDir(), "cache.sqlite")} {
					cfg := config(mapFS(files), out)
					cfg.Workers, cfg.Cache = workers, cache
					_, err := build.Build(context.Background(), cfg)
					got := lines(violations(t, err))
					if !slices.Contains(got, tc.want) {
						t.Errorf("%d workers, cache %q: got violations %q, want one %q", workers, cache, got, tc.want)
					}
					assertUntouched(t, out, before)
				}
			}
		})
	}
}
