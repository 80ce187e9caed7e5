package build_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/skillcat/skillcat/build"
	"github.com/skillcat/skillcat/internal/treetest"
	"github.com/skillcat/skillcat/jose"
	"github.com/skillcat/skillcat/synth"
)

// TestIncrementalListingsEqualCold holds the rebuild cache's finer keys
// (listing pages keyed by what they show, search tokens kept per skill,
// llms-full.txt and SKILL.md taken from the previous output) to a cold
// build, on a catalog long enough for several home and type pages, through
// the edits that move a skill on or off a listing or change what its card
// and search entry show: its type, tags, name, summary, access (both ways),
// id, removal, and every build setting a listing depends on (base URL,
// SOURCE_DATE_EPOCH, templates, the site file). After each edit, the
// output of a build with the cache must be byte for byte a cold build's.
func TestIncrementalListingsEqualCold(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 120-skill catalog 40 times")
	}
	defer build.SetRacyWindow(0)()
	dir := t.TempDir()
	content := filepath.Join(dir, "content")
	const n = 120
	if err := synth.Write(content, n, 11); err != nil {
		t.Fatal(err)
	}
	out, cacheFile := filepath.Join(dir, "out"), filepath.Join(dir, "cache.sqlite")
	base := build.Config{Content: os.DirFS(content), ContentLabel: content, ContentPath: content, Workers: 2,
		Time: time.Unix(1700000000, 0).UTC()}
	cfg := base
	run := func(out, cache string, previous string) {
		t.Helper()
		c := cfg
		c.Out, c.Cache = out, cache
		if previous != "" {
			c.Previous = os.DirFS(previous)
		}
		if _, err := build.Build(context.Background(), c); err != nil {
			t.Fatalf("build %s: %v", out, err)
		}
	}
	run(out, cacheFile, "")

	// edit rewrites JSON source i with change applied to its members.
	edit := func(i int, change func(d map[string]any)) {
		t.Helper()
		if i%2 == 1 {
			t.Fatalf("source %d is Markdown; edit an even one", i)
		}
		name := filepath.Join(content, synth.Name(i))
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var d map[string]any
		if err := dec.Decode(&d); err != nil {
			t.Fatal(err)
		}
		change(d)
		if data, err = json.MarshalIndent(d, "", "  "); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	set := func(member string, v any) func(map[string]any) {
		return func(d map[string]any) { d[member] = v }
	}
	otherType := func(d map[string]any) {
		next := map[any]string{"api": "task", "task": "knowledge", "knowledge": "plugin", "plugin": "api"}
		d["capability_type"] = next[d["capability_type"]]
	}
	public := func(d map[string]any) {
		d["access"] = "public"
	}
	steps := []struct {
		name string
		do   func()
	}{
		{"type changed", func() { edit(2, otherType) }},
		{"type changed, last page", func() { edit(n-2, otherType) }},
		{"tags changed", func() { edit(4, set("tags", []any{"review-tag", "zz-new"})) }},
		{"tags removed", func() { edit(4, func(d map[string]any) { delete(d, "tags") }) }},
		{"name changed", func() { edit(6, set("name", "Renamed <b>&amp;</b> \u2028 skill")) }},
		{"summary changed", func() {
			edit(8, func(d map[string]any) { d["description"] = "A new first paragraph.\n\n" + d["description"].(string) })
		}},
		{"made private", func() { edit(10, set("access", "private")) }},
		{"made public again", func() { edit(10, public) }},
		{"made restricted", func() {
			edit(12, func(d map[string]any) {
				d["access"] = "restricted"
				d["auth"] = map[string]any{"type": "custom", "instructions": "Ask."}
			})
		}},
		{"id changed", func() {
			edit(14, func(d map[string]any) { d["id"] = "zz-renamed." + d["id"].(string) })
		}},
		{"removed", func() { os.Remove(filepath.Join(content, synth.Name(16))) }},
		{"private and type changed", func() {
			edit(18, func(d map[string]any) { otherType(d); d["access"] = "private" })
		}},
		{"added private", func() {
			data := []byte(`{"protocol": {"version": "1.0.0"}, "id": "zz-secret.added", "name": "Secret Added Name",
  "version": "1.0.0", "capability_type": "api", "access": "private", "description": "Secret first paragraph.",
  "provider": {"name": "Secret Provider"}, "endpoint": {"url": "https://secret.example/x"}, "auth": {"type": "none"},
  "tags": ["secret-tag"], "inputs": {"type": "object"}, "output": true}`)
			if err := os.WriteFile(filepath.Join(content, "secret.json"), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"private one's type changed", func() {
			name := filepath.Join(content, "secret.json")
			data, _ := os.ReadFile(name)
			os.WriteFile(name, bytes.Replace(data, []byte(`"api"`), []byte(`"task"`), 1), 0o644)
		}},
		{"base URL", func() { cfg.BaseURL = "https://example.com/catalog/" }},
		{"base URL changed", func() { cfg.BaseURL = "https://other.example/" }},
		{"SOURCE_DATE_EPOCH", func() { cfg.Time = time.Unix(1800000000, 0).UTC() }},
		{"site file", func() {
			os.WriteFile(filepath.Join(content, "_index.md"), []byte("---\ntitle: \"Renamed <catalog>\"\n---\nHello.\n"), 0o644)
		}},
		{"site file exports", func() {
			os.WriteFile(filepath.Join(content, "_index.md"), []byte("---\ntitle: \"Renamed <catalog>\"\nexports:\n  agent_skills: false\n---\nHello.\n"), 0o644)
		}},
		{"templates", func() {
			cfg.Templates = fstest.MapFS{"assets/extra.txt": {Data: []byte("x")}}
		}},
		{"templates changed", func() {
			cfg.Templates = fstest.MapFS{"assets/extra.txt": {Data: []byte("y")}}
		}},
		{"templates gone", func() { cfg.Templates = nil }},
	}
	for _, s := range steps {
		previous := filepath.Join(dir, "previous")
		os.RemoveAll(previous)
		if err := os.CopyFS(filepath.Join(previous, "changes"), os.DirFS(filepath.Join(out, "changes"))); err != nil {
			t.Fatal(err)
		}
		s.do()
		run(out, cacheFile, "")
		cold := filepath.Join(dir, "cold")
		os.RemoveAll(cold)
		run(cold, "", previous)
		if d := treetest.Diff(treetest.Files(t, out), treetest.Files(t, cold)); d != "" {
			t.Fatalf("after %q, the output differs from a cold build's:\n%s", s.name, d)
		}
	}
	// Nothing of the skill private from the start is anywhere in the
	// output (a skill made private has a delete event in the change feed).
	for _, secret := range []string{"zz-secret", "Secret Added", "Secret first", "Secret Provider", "secret.example", "secret-tag"} {
		err := filepath.WalkDir(out, func(p string, e os.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			if err == nil && (bytes.Contains(b, []byte(secret)) || strings.Contains(p, secret)) {
				t.Errorf("%s: holds %q of a private skill", p, secret)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestUpToDateSeesSigning checks that a build with the cache over
// unchanged sources is "up to date" only when it would publish what the
// last build did: adding a signing key must publish the signatures and the
// key set, removing it must take them away, a published key added must
// reach jwks.json, --reset-changes must start a new history and --previous
// continue another one, each as a cold build does; --previous naming the
// output's own history leaves it up to date. They are no source and no page's setting, so the
// up-to-date check overlooked them.
func TestUpToDateSeesSigning(t *testing.T) {
	defer build.SetRacyWindow(0)()
	dir := t.TempDir()
	content := filepath.Join(dir, "content")
	if err := synth.Write(content, 6, 5); err != nil {
		t.Fatal(err)
	}
	signer, err := jose.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	other, err := jose.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	out, cacheFile := filepath.Join(dir, "out"), filepath.Join(dir, "cache.sqlite")
	cfg := build.Config{Content: os.DirFS(content), ContentLabel: content, ContentPath: content, Workers: 2,
		Time: time.Unix(1700000000, 0).UTC()}
	run := func(c build.Config, out, cache string) *build.Result {
		t.Helper()
		c.Out, c.Cache = out, cache
		res, err := build.Build(context.Background(), c)
		if err != nil {
			t.Fatalf("build %s: %v", out, err)
		}
		return res
	}
	run(cfg, out, cacheFile)
	for _, s := range []struct {
		name   string
		change func(c *build.Config)
	}{
		{"signing key added", func(c *build.Config) { c.Signer = signer }},
		{"published key added", func(c *build.Config) { c.PublishKeys = []jose.PublicKey{other.Public()} }},
		{"signing key changed", func(c *build.Config) { c.Signer = other }},
		{"signing key removed", func(c *build.Config) { c.Signer = nil }},
		{"published key removed", func(c *build.Config) { c.PublishKeys = nil }},
		{"new change history", func(c *build.Config) { c.ResetChanges = true }},
		{"previous: the output's own feed", func(c *build.Config) {
			own := filepath.Join(dir, "own")
			os.RemoveAll(own)
			if err := os.CopyFS(filepath.Join(own, "changes"), os.DirFS(filepath.Join(out, "changes"))); err != nil {
				t.Fatal(err)
			}
			c.Previous = os.DirFS(own)
		}},
		{"previous: another history", func(c *build.Config) {
			otherContent, otherOut := filepath.Join(dir, "other-content"), filepath.Join(dir, "other")
			if err := synth.Write(otherContent, 3, 9); err != nil {
				t.Fatal(err)
			}
			run(build.Config{Content: os.DirFS(otherContent), ContentLabel: otherContent, ContentPath: otherContent, Workers: 2}, otherOut, "")
			c.Previous = os.DirFS(otherOut)
		}},
	} {
		s.change(&cfg)
		previous := filepath.Join(dir, "previous")
		os.RemoveAll(previous)
		if err := os.CopyFS(filepath.Join(previous, "changes"), os.DirFS(filepath.Join(out, "changes"))); err != nil {
			t.Fatal(err)
		}
		res := run(cfg, out, cacheFile)
		cold := filepath.Join(dir, "cold")
		os.RemoveAll(cold)
		coldCfg := cfg
		if coldCfg.Previous == nil {
			coldCfg.Previous = os.DirFS(previous) // the history a reset replaces, too
		}
		run(coldCfg, cold, "")
		if d := treetest.Diff(treetest.Files(t, out), treetest.Files(t, cold)); d != "" {
			t.Fatalf("after %q (up to date: %t), the output differs from a cold build's:\n%s", s.name, res.UpToDate, d)
		}
		if want := s.name == "previous: the output's own feed"; res.UpToDate != want {
			t.Errorf("after %q: up to date %t, want %t", s.name, res.UpToDate, want)
		}
		cfg.ResetChanges, cfg.Previous = false, nil
	}
}

// TestCacheInsideOutputRefused checks that a rebuild cache inside the
// output folder is a configuration error, before anything is written: the
// folder is replaced whole by each build (so the cache would be lost every
// time), and while it sits there a static host serves it, with every
// private skill's row.
func TestCacheInsideOutputRefused(t *testing.T) {
	dir := t.TempDir()
	content := filepath.Join(dir, "content")
	if err := synth.Write(content, 2, 1); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "public")
	for _, cache := range []string{filepath.Join(out, "cache.sqlite"), filepath.Join(out, "x", "..", "deep", "c.sqlite"), out} {
		cfg := build.Config{Content: os.DirFS(content), ContentLabel: content, ContentPath: content, Out: out, Cache: cache}
		if _, err := build.Build(context.Background(), cfg); !errors.Is(err, build.ErrConfig) || !strings.Contains(err.Error(), "--cache") {
			t.Errorf("cache %s: got %v, want a configuration error naming --cache", cache, err)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Fatalf("cache %s: the output was made", cache)
		}
	}
	cfg := build.Config{Content: os.DirFS(content), ContentLabel: content, ContentPath: content, Out: out, Cache: filepath.Join(dir, "public-cache.sqlite")}
	if _, err := build.Build(context.Background(), cfg); err != nil {
		t.Errorf("a cache beside the output (a name that starts like it): %v", err)
	}
}

// TestCacheReadAsSourceRefused checks that a rebuild cache whose path the
// source rule would read as a skill source is refused, and one inside the
// content directory under another name is not.
func TestCacheReadAsSourceRefused(t *testing.T) {
	dir := t.TempDir()
	content := filepath.Join(dir, "content")
	if err := synth.Write(content, 2, 1); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "public")
	for _, c := range []struct {
		cache   string
		refused bool
	}{
		{filepath.Join(content, "cache.json"), true},
		{filepath.Join(content, "sub", "c.md"), true},
		{filepath.Join(content, ".cache", "c.json"), false},
		{filepath.Join(content, "_drafts", "c.json"), false},
		{filepath.Join(content, "c.sqlite"), false},
	} {
		cfg := build.Config{Content: os.DirFS(content), ContentLabel: content, ContentPath: content, Out: out, Cache: c.cache}
		_, err := build.Build(context.Background(), cfg)
		if refused := errors.Is(err, build.ErrConfig) && strings.Contains(err.Error(), "read it as a skill source"); refused != c.refused {
			t.Errorf("cache %s: got %v, want refused %t", c.cache, err, c.refused)
		}
	}
}
