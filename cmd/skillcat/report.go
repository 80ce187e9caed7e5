package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	skillcat "github.com/skillcat/skillcat"
)

// printViolations writes violations in the chosen format: text lines to
// stderr ("path:line:col: field: reason"), or a JSON array or GitHub
// Actions annotations to stdout.
func printViolations(e *env, format string, vs skillcat.Violations) {
	switch format {
	case "json":
		if vs == nil {
			vs = skillcat.Violations{}
		}
		enc := json.NewEncoder(e.stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		_ = enc.Encode(vs)
	case "github":
		for _, v := range vs {
			level := "error"
			if v.Severity == skillcat.SeverityWarning {
				level = "warning"
			}
			fmt.Fprintf(e.stdout, "::%s file=%s,line=%d,col=%d,title=%s::%s\n", level,
				ghProperty(skillcat.EscapeName(v.File)), v.Line, v.Column, ghProperty(skillcat.EscapeName(v.Field)), ghData(skillcat.EscapeName(v.Field)+": "+v.Reason))
		}
	default:
		color := useColor(e)
		for _, v := range vs {
			line := v.Error()
			if color {
				if v.Severity == skillcat.SeverityWarning {
					line = "\x1b[33m" + line + "\x1b[0m"
				} else {
					line = "\x1b[31m" + line + "\x1b[0m"
				}
			}
			fmt.Fprintln(e.stderr, line)
		}
	}
}

// ghData escapes a GitHub Actions annotation message.
func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// ghProperty escapes a GitHub Actions annotation property value.
func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// useColor reports whether stderr is a terminal and NO_COLOR is unset.
func useColor(e *env) bool {
	if e.getenv("NO_COLOR") != "" || e.getenv("TERM") == "dumb" {
		return false
	}
	f, ok := e.stderr.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// maxSourceDate is the last second of the year 9999, the last date that
// RFC 3339 times and sitemap dates can express.
const maxSourceDate = 253402300799

// sourceDate reads SOURCE_DATE_EPOCH: the zero time when unset.
func sourceDate(e *env) (time.Time, error) {
	s := e.getenv("SOURCE_DATE_EPOCH")
	if s == "" {
		return time.Time{}, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > maxSourceDate {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH=%q: must be a number of seconds since 1970, from 0 to %d (the end of 9999)", s, maxSourceDate)
	}
	return time.Unix(n, 0).UTC(), nil
}

// plural formats n with a noun, adding "s" unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

func countSeverity(vs skillcat.Violations, sev skillcat.Severity) int {
	n := 0
	for _, v := range vs {
		if v.Severity == sev {
			n++
		}
	}
	return n
}
