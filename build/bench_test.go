package build

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/store"
	"github.com/skillcat/skillcat/synth"
)

// The stage benchmarks measure one skill per operation, cycling through
// 200 synthetic sources (half JSON, half Markdown); the build benchmarks
// measure whole cold builds. Run them with
//
//	go test -run XXX -bench . -benchmem ./build/

const benchSources = 200

type benchSource struct {
	file SourceFile
	name string
}

func benchCorpus(b *testing.B) []benchSource { return benchCorpusN(b, benchSources) }

// benchCorpusN returns n distinct synthetic sources.
func benchCorpusN(b *testing.B, n int) []benchSource {
	b.Helper()
	out := make([]benchSource, n)
	for i := range out {
		name, data := synth.Source(i, 1)
		out[i] = benchSource{SourceFile{Path: name, Data: data}, name}
	}
	return out
}

// benchNodes parses every source into its Node tree.
func benchNodes(b *testing.B, srcs []benchSource) ([]*skillcat.Source, []*skillcat.Node) {
	b.Helper()
	sources := make([]*skillcat.Source, len(srcs))
	nodes := make([]*skillcat.Node, len(srcs))
	for i, s := range srcs {
		sources[i] = &skillcat.Source{Name: s.name, Data: s.file.Data}
		var vs skillcat.Violations
		if strings.HasSuffix(s.name, ".md") {
			nodes[i], vs = markdownNode(sources[i])
		} else {
			nodes[i], vs = skillcat.ParseSource(sources[i])
		}
		if vs.HasErrors() {
			b.Fatal(vs)
		}
	}
	return sources, nodes
}

// BenchmarkStageParse is the syntax stage: JSON, or YAML front matter and
// body, to a positioned Node tree.
func BenchmarkStageParse(b *testing.B) {
	srcs := benchCorpus(b)
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		s := srcs[i%len(srcs)]
		src := &skillcat.Source{Name: s.name, Data: s.file.Data}
		if strings.HasSuffix(s.name, ".md") {
			markdownNode(src)
		} else {
			skillcat.ParseSource(src)
		}
	}
	reportCPU(b, cpu0)
}

// reportCPU reports the process's CPU time per operation since cpu0,
// steadier than wall time on a shared machine (garbage collection on other
// cores included).
func reportCPU(b *testing.B, cpu0 time.Duration) {
	b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// BenchmarkStageValidate is validation and decoding: the version rule, the
// descriptor schema, the skill's own schemas and examples, typo warnings.
// Every operation gets a distinct source, as in a cold build, so that the
// compiled-schema cache only helps where real catalogs repeat a schema.
func BenchmarkStageValidate(b *testing.B) {
	sources, nodes := benchNodes(b, benchCorpusN(b, min(b.N, 20000)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		j := i % len(nodes)
		if d, vs := skillcat.DecodeDescriptor(sources[j], nodes[j]); d == nil {
			b.Fatal(vs)
		}
	}
	reportCPU(b, cpu0)
}

// benchDescriptions are the descriptions of the benchmark corpus.
func benchDescriptions(b *testing.B) []string {
	sources, nodes := benchNodes(b, benchCorpus(b))
	descriptions := make([]string, len(nodes))
	for i := range nodes {
		d, vs := skillcat.DecodeDescriptor(sources[i], nodes[i])
		if d == nil {
			b.Fatal(vs)
		}
		descriptions[i] = d.Description
	}
	return descriptions
}

// BenchmarkStageSummarize is the summary of one description, as parse
// makes it for the skill's index row.
func BenchmarkStageSummarize(b *testing.B) {
	descriptions := benchDescriptions(b)
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		Summarize(descriptions[i%len(descriptions)])
	}
	reportCPU(b, cpu0)
}

// BenchmarkStageMarkdown is the HTML of one description, as the skill
// page makes it (markdownFast, or goldmark for what it leaves).
func BenchmarkStageMarkdown(b *testing.B) {
	descriptions := benchDescriptions(b)
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		if _, err := markdownHTML(descriptions[i%len(descriptions)]); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, cpu0)
}

// BenchmarkStageIndex is loading one skill's row into SQLite.
func BenchmarkStageIndex(b *testing.B) {
	var rows []*store.Row
	for _, s := range benchCorpus(b) {
		rows = append(rows, parseSource(context.Background(), s.file, s.name).row)
	}
	db, err := store.Open(context.Background(), filepath.Join(b.TempDir(), "index.sqlite"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	l, err := db.NewLoader(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		row := *rows[i%len(rows)]
		row.ID = row.ID + "-" + itoa(i)
		if _, err := l.Add(context.Background(), &row); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStageRender is rendering one skill page from its published
// descriptor.
func BenchmarkStageRender(b *testing.B) {
	p, err := newPages(Config{}, defaultSite)
	if err != nil {
		b.Fatal(err)
	}
	var skills []*publishedSkill
	for _, s := range benchCorpus(b) {
		row := parseSource(context.Background(), s.file, s.name).row
		d, tree, err := skillcat.UnmarshalDescriptor(row.Descriptor)
		if err != nil {
			b.Fatal(err)
		}
		skills = append(skills, &publishedSkill{Descriptor: d, Tree: tree, Published: row.Descriptor, Digest: row.Digest, Summary: row.Summary})
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		if i%len(skills) == 0 {
			// A build shows each skill once: what is remembered of its
			// schemas helps only other skills with the same ones.
			p.views = new(schemaViews)
		}
		if _, err := p.skillPage(skills[i%len(skills)]); err != nil {
			b.Fatal(err)
		}
	}
	// CPU time (GC included) stays meaningful on a shared machine.
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
}

// BenchmarkStageWrite is writing one skill's two files (descriptor and a
// 23 KB page) into a fresh output directory.
func BenchmarkStageWrite(b *testing.B) {
	o, err := newOutput(Config{Out: filepath.Join(b.TempDir(), "public")}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer o.abandon()
	page := []byte(strings.Repeat("<p>page</p>\n", 2000))
	descriptor := []byte(strings.Repeat(`{"x": 1}`, 500))
	sum := sha256.Sum256(descriptor)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		id := "skill-" + itoa(i)
		if err := o.write("skills/"+id+".json", descriptor, "sha256:"+hex.EncodeToString(sum[:])); err != nil {
			b.Fatal(err)
		}
		if err := o.write("skills/"+id+"/index.html", page, ""); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBuild1000(b *testing.B)  { benchBuild(b, 1000) }
func BenchmarkBuild10000(b *testing.B) { benchBuild(b, 10000) }

// benchBuild times cold builds of an n-skill synthetic catalog.
func benchBuild(b *testing.B, n int) {
	dir := b.TempDir()
	content := filepath.Join(dir, "content")
	if err := synth.Write(content, n, 1); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		out := filepath.Join(dir, "out-"+itoa(i))
		if _, err := Build(context.Background(), Config{Content: os.DirFS(content), ContentLabel: content, ContentPath: content, Out: out}); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		os.RemoveAll(out)
		b.StartTimer()
	}
	// The process's CPU time is steadier than wall time when other work
	// shares the machine (it includes the removal of each output).
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N*n), "cpu-µs/skill")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*n), "µs/skill")
}

func itoa(i int) string {
	const digits = "0123456789"
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{digits[i%10]}, b...)
	}
	return string(b)
}

// BenchmarkStageSearchTokens is one skill's search tokens: found in its
// description and listing fields, and merged into the postings of a
// 1,000-skill listing (the merger's goroutine included).
func BenchmarkStageSearchTokens(b *testing.B) {
	var docs []listItem
	var descs []string
	for i, s := range benchCorpusN(b, 1000) {
		row := parseSource(context.Background(), s.file, s.name).row
		d, _, err := skillcat.UnmarshalDescriptor(row.Descriptor)
		if err != nil {
			b.Fatal(err)
		}
		row.ID += "-" + itoa(i)
		docs = append(docs, items([]store.Row{*row})...)
		descs = append(descs, d.Description)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; {
		r := &postingsRun{docs: docs, postings: map[string][]posting{}, results: make(chan docTokensOf, 64), merged: make(chan struct{})}
		r.start()
		for doc := 0; doc < len(docs) && i < b.N; doc, i = doc+1, i+1 {
			r.tokenize(doc, descs[doc])
		}
		if _, _, err := r.finish(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
}
