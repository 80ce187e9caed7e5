package main

import "testing"

// TestPrintable holds what a remote catalog's text may do to a terminal:
// control characters and bidirectional controls are written U+FFFD,
// everything else is kept.
func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"Weather\x1b]0;pwn\x07":          "Weather\ufffd]0;pwn\ufffd",
		"tab\there\nline":                "tab\ufffdhere\ufffdline",
		"Safe \u202egnp.exe":             "Safe \ufffdgnp.exe",
		"\u2066isolate\u2069 \u200fmark": "\ufffdisolate\ufffd \ufffdmark",
		"sep\u2028par\u2029":             "sep\ufffdpar\ufffd",
		"naïve 東京 🎉 a\u00a0b":            "naïve 東京 🎉 a\u00a0b",
	} {
		if got := printable(in); got != want {
			t.Errorf("printable(%q) = %q, want %q", in, got, want)
		}
	}
}
