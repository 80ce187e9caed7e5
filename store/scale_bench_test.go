package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skillcat/skillcat/store"
)

// BenchmarkScale loads n listed skills whose ids bear no relation to
// their order (as a catalog's sources) into a temporary index and exports
// the catalog, at 10,000 and 100,000 skills: the CPU per row of each
// (the process's, the collector's included) should not grow with n. Each
// skill has two to five tags of 72 (scaleTags) and a descriptor of 3.2
// to 5.3 KB (scaleDescriptor), as skillcat-synth's catalogs have. The catalog is written under TMPDIR (a build writes it
// into its output, a tmpfs in the comparisons), the index in SQLite's
// temporary folder (SQLITE_TMPDIR, else TMPDIR).
func BenchmarkScale(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{10_000, 100_000} {
		skills := benchSkills(n)
		r := rand.New(rand.NewPCG(1, 2))
		r.Shuffle(len(skills), func(i, j int) { skills[i], skills[j] = skills[j], skills[i] })
		for i := range skills {
			skills[i].Access = "public"
			skills[i].Tags = scaleTags(r)
			skills[i].Descriptor = scaleDescriptor(r, skills[i].Descriptor)
		}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			var load, export time.Duration
			for b.Loop() {
				db, err := store.OpenTemp(ctx)
				if err != nil {
					b.Fatal(err)
				}
				t0 := cpuTime()
				if _, err := db.Load(ctx, skills); err != nil {
					b.Fatal(err)
				}
				t1 := cpuTime()
				if err := db.Export(ctx, filepath.Join(b.TempDir(), "catalog.sqlite")); err != nil {
					b.Fatal(err)
				}
				load, export = load+t1-t0, export+cpuTime()-t1
				db.Close()
			}
			rows := float64(b.N * n)
			b.ReportMetric(float64(load.Nanoseconds())/rows, "load-cpu-ns/row")
			b.ReportMetric(float64(export.Nanoseconds())/rows, "export-cpu-ns/row")
		})
	}
}

// scaleTags draws two to five distinct tags of 72, as a synthetic
// catalog's skills have: each tag is then held by about one skill in 20,
// so the tag index's inserts land all over it.
func scaleTags(r *rand.Rand) []string {
	tags := make([]string, 0, 5)
	for n := 2 + r.IntN(4); len(tags) < n; {
		t := fmt.Sprintf("tag-%02d", r.IntN(72))
		if !slices.Contains(tags, t) {
			tags = append(tags, t)
		}
	}
	return tags
}

// scaleDescriptor pads the descriptor d to between 3.2 and 5.3 KB, most
// of them above 4 KB, as a synthetic catalog's are (what SQLite keeps in
// a row's own page and what in overflow pages depends on it).
func scaleDescriptor(r *rand.Rand, d []byte) []byte {
	n := 3200 + r.IntN(2100)
	if r.IntN(8) == 0 {
		n = 3200 + r.IntN(800)
	} else if n < 4000 {
		n += 1000
	}
	if len(d) >= n {
		return d
	}
	return append(d[:len(d):len(d)], strings.Repeat(" ", n-len(d))...)
}

// BenchmarkListedEntries reads the listing of 10,000 skills (one in ten
// private), each with two to five tags, from a temporary index: what
// every build that renders reads before its listing-wide files.
func BenchmarkListedEntries(b *testing.B) {
	ctx := context.Background()
	skills := benchSkills(10_000)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range skills {
		skills[i].Access = "public"
		if i%10 == 0 {
			skills[i].Access = "private"
		}
		skills[i].Tags = scaleTags(r)
		skills[i].Descriptor = scaleDescriptor(r, skills[i].Descriptor)
	}
	db, err := store.OpenTemp(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Load(ctx, skills); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if listed, err := db.ListedEntries(ctx, ""); err != nil || len(listed) != 9000 {
			b.Fatal(len(listed), err)
		}
	}
}
