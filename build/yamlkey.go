package build

import (
	"bytes"
	"unicode/utf8"
)

// maxYAMLKey is the longest implicit key YAML allows, in characters (YAML
// 1.2, 7.4.2); yaml.v3 reports a longer one as "could not find expected
// ':'" on another line, which says nothing of the cause.
const maxYAMLKey = 1024

// longKey finds the first line of yml whose "key:" is longer than YAML
// allows, and returns its line (from 1), the key's column and its length
// in characters, or n == 0 when there is none.
func longKey(yml []byte) (line, col, n int) {
	for i, ln := range bytes.Split(yml, []byte("\n")) {
		if len(ln) <= maxYAMLKey {
			continue
		}
		start := len(ln) - len(bytes.TrimLeft(ln, " -"))
		rest := ln[start:]
		end := bytes.Index(rest, []byte(": "))
		if end < 0 {
			end = len(bytes.TrimRight(rest, " \r")) - 1
			if end < 0 || rest[end] != ':' {
				continue
			}
		}
		if k := utf8.RuneCount(rest[:end]); k > maxYAMLKey {
			return i + 1, utf8.RuneCount(ln[:start]) + 1, k
		}
	}
	return 0, 0, 0
}
