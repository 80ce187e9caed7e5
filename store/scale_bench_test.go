package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/skillcat/skillcat/store"
)

// BenchmarkScale loads n listed skills whose ids bear no relation to
// their order (as a catalog's sources) into a temporary index and exports
// the catalog, at 10,000 and 100,000 skills: the CPU per row of each
// (the process's, the collector's included) should not grow with n.
func BenchmarkScale(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{10_000, 100_000} {
		skills := benchSkills(n)
		r := rand.New(rand.NewPCG(1, 2))
		r.Shuffle(len(skills), func(i, j int) { skills[i], skills[j] = skills[j], skills[i] })
		for i := range skills {
			skills[i].Access = "public"
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
