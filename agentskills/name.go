package agentskills

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"
)

// MaxName is the longest name the Agent Skills specification allows.
const MaxName = 64

// hashDigits is how many hex digits of the id's SHA-256 a name that had to
// be told apart from another starts with; more are taken in the unlikely
// case that the shorter name is taken too.
const hashDigits = 8

// ValidName reports whether name is a valid Agent Skills name: 1–64
// characters of [a-z0-9-], not starting or ending with a hyphen, with no
// two hyphens in a row.
func ValidName(name string) bool {
	if name == "" || len(name) > MaxName || name[0] == '-' || name[len(name)-1] == '-' || strings.Contains(name, "--") {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' {
			return false
		}
	}
	return true
}

// BaseName is the name an id maps to before collisions are settled: "."
// and "_" become "-" and the result is cut to MaxName characters (without a
// trailing hyphen). For a valid protocol id it is a valid name.
func BaseName(id string) string {
	b := []byte(strings.ToLower(id))
	for i, c := range b {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			b[i] = '-'
		}
	}
	return cut(collapse(string(b)), MaxName)
}

// collapse trims hyphens from both ends and squeezes runs of them, which a
// valid id never produces but anything else might.
func collapse(s string) string {
	for strings.Contains(s, "--") {
		s = strings.ReplaceAll(s, "--", "-")
	}
	s = strings.Trim(s, "-")
	if s == "" {
		return "skill"
	}
	return s
}

// cut shortens s to at most n bytes without leaving a trailing hyphen.
func cut(s string, n int) string {
	if len(s) > n {
		s = strings.TrimRight(s[:n], "-")
	}
	return s
}

// Names returns the name of each id: valid, unique among the ids, and the
// same for the same set of ids whatever their order. See the package
// documentation for the rule.
func Names(ids []string) map[string]string {
	sorted := append([]string(nil), ids...)
	sort.Strings(sorted)
	groups := map[string][]string{}
	var bases []string
	for _, id := range sorted {
		b := BaseName(id)
		if _, ok := groups[b]; !ok {
			bases = append(bases, b)
		}
		groups[b] = append(groups[b], id)
	}
	names := make(map[string]string, len(sorted))
	taken := make(map[string]bool, len(sorted))
	var rest []string
	for _, b := range bases {
		g := groups[b]
		keep := g[0]
		for _, id := range g {
			if id == b {
				keep = id
				break
			}
		}
		names[keep] = b
		taken[b] = true
		for _, id := range g {
			if id != keep {
				rest = append(rest, id)
			}
		}
	}
	sort.Strings(rest)
	for _, id := range rest {
		sum := sha256.Sum256([]byte(id))
		digits := hex.EncodeToString(sum[:])
		name := digits // 64 hex digits: a valid name of its own
		for n := hashDigits; n < MaxName/2; n += 4 {
			if try := cut(BaseName(id), MaxName-n-1) + "-" + digits[:n]; !taken[try] {
				name = try
				break
			}
		}
		names[id] = name
		taken[name] = true
	}
	return names
}
