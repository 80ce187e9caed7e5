//go:build !unix

package build

import "time"

// cpuTime is zero where getrusage is missing: the benchmarks then report
// no CPU time.
func cpuTime() time.Duration { return 0 }
