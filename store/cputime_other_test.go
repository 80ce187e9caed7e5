//go:build !unix

package store_test

import "time"

// cpuTime is zero where getrusage is missing: the benchmarks then report
// no CPU time.
func cpuTime() time.Duration { return 0 }
