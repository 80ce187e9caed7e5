package build

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/agentskills"
	"github.com/skillcat/skillcat/store"
	"github.com/skillcat/skillcat/synth"
)

// exportsOff is a site file that turns every export off.
const exportsOff = "---\ntitle: Bench\nexports:\n  agent_skills: false\n  api_catalog: false\n  llms_txt: false\n---\n"

// exportsOn is the same site with the exports on, as by default.
const exportsOn = "---\ntitle: Bench\n---\n"

// BenchmarkExports10000 times cold builds of a 10,000-skill synthetic
// catalog with the exports (Agent Skills, API catalog, llms.txt) on and
// off; the difference is what they cost.
//
//	go test ./build -run '^$' -bench Exports10000 -benchtime 3x
func BenchmarkExports10000(b *testing.B) {
	for _, c := range []struct{ name, site string }{{"on", exportsOn}, {"off", exportsOff}} {
		b.Run(c.name, func(b *testing.B) {
			dir := b.TempDir()
			content := benchContent(b, dir, 10000, c.site)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				out := filepath.Join(dir, "out-"+itoa(i))
				if _, err := Build(context.Background(), Config{Content: os.DirFS(content), ContentLabel: content, ContentPath: content, Out: out}); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				os.RemoveAll(out)
				b.StartTimer()
			}
		})
	}
}

// BenchmarkExportsIncremental10000 times a rebuild with the cache after
// one skill's name changed, with the exports on and off: a changed skill
// remakes its SKILL.md, the indexes and llms-full.txt, which needs every
// skill's instructions.
func BenchmarkExportsIncremental10000(b *testing.B) {
	for _, c := range []struct{ name, site string }{{"on", exportsOn}, {"off", exportsOff}} {
		b.Run(c.name, func(b *testing.B) {
			cfg, name, orig := cachedBuild(b, 10000, c.site)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				data := orig
				if i%2 == 0 {
					data = bytes.Replace(orig, []byte(`"name": "`), []byte(`"name": "Renamed `), 1)
				}
				if err := os.WriteFile(name, data, 0o644); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if _, err := Build(context.Background(), cfg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchContent writes an n-skill synthetic catalog with the site file
// site under dir and returns its folder.
// cachedBuild makes an n-skill catalog with the site file site, builds it
// once with a rebuild cache, and returns the configuration, the path of the
// first skill's source and its bytes, for a benchmark to edit and rebuild.
func cachedBuild(b *testing.B, n int, site string) (Config, string, []byte) {
	b.Helper()
	dir := b.TempDir()
	content := benchContent(b, dir, n, site)
	cfg := Config{Content: os.DirFS(content), ContentLabel: content, ContentPath: content,
		Out: filepath.Join(dir, "out"), Cache: filepath.Join(dir, "cache.sqlite")}
	if _, err := Build(context.Background(), cfg); err != nil {
		b.Fatal(err)
	}
	name := filepath.Join(content, synth.Name(0))
	orig, err := os.ReadFile(name)
	if err != nil {
		b.Fatal(err)
	}
	return cfg, name, orig
}

func benchContent(b *testing.B, dir string, n int, site string) string {
	b.Helper()
	content := filepath.Join(dir, "content")
	if err := synth.Write(content, n, 1); err != nil {
		b.Fatal(err)
	}
	if site == "" {
		return content
	}
	if err := os.WriteFile(filepath.Join(content, SiteFile), []byte(site), 0o644); err != nil {
		b.Fatal(err)
	}
	return content
}

// BenchmarkStageExport is what the exports do for one skill in a cold
// build: decode its published descriptor, make its SKILL.md and its body
// again for llms-full.txt (compare BenchmarkStageRender, its page).
func BenchmarkStageExport(b *testing.B) {
	var rows []*store.Row
	for _, s := range benchCorpus(b) {
		rows = append(rows, parseSource(context.Background(), s.file, s.name).row)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		row := rows[i%len(rows)]
		d := new(skillcat.SkillDescriptor)
		if err := d.UnmarshalJSON(row.Descriptor); err != nil {
			b.Fatal(err)
		}
		s := &agentskills.Skill{Name: agentskills.BaseName(row.ID), Descriptor: d, Summary: row.Summary, Digest: row.Digest,
			DescriptorURL: "../../../skills/" + row.ID + ".json", PageURL: "../../../skills/" + row.ID + "/"}
		if _, err := agentskills.Document(s); err != nil {
			b.Fatal(err)
		}
		if _, err := agentskills.Body(s); err != nil {
			b.Fatal(err)
		}
	}
}
