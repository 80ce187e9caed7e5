package build

import (
	"bytes"
	"context"
	"os"
	"runtime/pprof"
	"testing"
)

// BenchmarkRebuild10000 times rebuilds with the cache of a 10,000-skill
// synthetic catalog (the one skillcat-synth -n 10000 -seed 1 writes) after
// one word of one skill's description changed, and after nothing changed.
// Each reports the process's CPU time per rebuild (steadier than wall time
// on a shared machine) and the files written. Compare with a cold build
// (BenchmarkBuild10000):
//
//	TMPDIR=/dev/shm go test ./build -run '^$' -bench Rebuild10000 -benchtime 4x
//
// The rebuilds run under the profiler label phase=rebuild, which their
// goroutines inherit: with -cpuprofile, pprof -tagfocus=phase=rebuild
// shows them without the cold builds that set each case up.
func BenchmarkRebuild10000(b *testing.B) {
	for _, c := range []struct {
		name string
		edit func(orig []byte, i int) []byte
	}{
		{"description", func(orig []byte, i int) []byte {
			if i%2 == 0 {
				return bytes.Replace(orig, []byte("streams"), []byte("pipes"), 1)
			}
			return orig
		}},
		{"nothing", nil},
	} {
		b.Run(c.name, func(b *testing.B) {
			cfg, name, orig := cachedBuild(b, 10000, "")
			if c.edit != nil && bytes.Equal(c.edit(orig, 0), orig) {
				b.Fatalf("%s: the edit changes nothing", name)
			}
			files := 0
			b.ResetTimer()
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				if c.edit != nil {
					b.StopTimer()
					if err := os.WriteFile(name, c.edit(orig, i), 0o644); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
				}
				var res *Result
				var err error
				pprof.Do(context.Background(), pprof.Labels("phase", "rebuild"), func(ctx context.Context) {
					res, err = Build(ctx, cfg)
				})
				if err != nil {
					b.Fatal(err)
				}
				files += res.Files
			}
			b.ReportMetric(float64((cpuTime()-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
			b.ReportMetric(float64(files)/float64(b.N), "files/op")
		})
	}
}
