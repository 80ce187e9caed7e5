package build

import (
	"context"
	"errors"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// TestOrderedMapEmitsInOrder holds orderedMap to its promise whatever the
// workers' timing and however far they run ahead of emit (ahead results
// each): every result emitted once, with its own value, in the order of i;
// at emit's first error, that error returned and nothing emitted after
// it; and no work still running once it returns.
func TestOrderedMapEmitsInOrder(t *testing.T) {
	errStop := errors.New("stop")
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 400).Draw(t, "n")
		workers := rapid.IntRange(1, 8).Draw(t, "workers")
		failAt := rapid.IntRange(-1, n-1).Draw(t, "failAt") // -1: emit never fails
		delays := rapid.SliceOfN(rapid.IntRange(0, 4), n, n).Draw(t, "delays")
		var inFlight atomic.Int64
		var emitted []int
		err := orderedMap(context.Background(), n, workers, func(i int) int {
			inFlight.Add(1)
			defer inFlight.Add(-1)
			for range delays[i] {
				runtime.Gosched()
			}
			if delays[i] == 4 {
				time.Sleep(20 * time.Microsecond)
			}
			return 7*i + 1
		}, func(i, v int) error {
			if v != 7*i+1 {
				t.Fatalf("emit(%d) got the value of %d", i, (v-1)/7)
			}
			emitted = append(emitted, i)
			if i == failAt {
				return errStop
			}
			return nil
		})
		if in := inFlight.Load(); in != 0 {
			t.Fatalf("%d calls of work still running after orderedMap returned", in)
		}
		want := n
		if failAt >= 0 {
			want = failAt + 1
			if !errors.Is(err, errStop) {
				t.Fatalf("err = %v, want emit's error", err)
			}
		} else if err != nil {
			t.Fatalf("err = %v", err)
		}
		if len(emitted) != want {
			t.Fatalf("emitted %d results, want %d", len(emitted), want)
		}
		for k, i := range emitted {
			if i != k {
				t.Fatalf("emitted %d in place %d", i, k)
			}
		}
	})
}
