package skillcat

import (
	"strings"
	"testing"
)

// BenchmarkIsOneLine looks at a summary that is one line: every byte is
// looked at.
func BenchmarkIsOneLine(b *testing.B) {
	s := strings.TrimSpace(strings.Repeat("Audio Classify (US) checks deterministic transactions from accurate sources, ", 3))
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		if !isOneLine(s) {
			b.Fatal("not one line")
		}
	}
}
