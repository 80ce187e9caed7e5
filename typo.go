package skillcat

// Known members of each object of a descriptor, for the typo warning: an
// unknown member within edit distance 2 of a known member of the same object
// is probably a misspelling of it.
var (
	descriptorMembers = []string{"$schema", "protocol", "id", "name", "version", "capability_type", "description", "provider", "endpoint", "inputs", "output", "auth", "access", "tags", "examples", "documentation_url"}
	protocolMembers   = []string{"version"}
	providerMembers   = []string{"name", "url", "email"}
	endpointMembers   = []string{"url", "method"}
	authMembers       = []string{"type", "in", "name", "token_url", "authorization_url", "scopes", "instructions"}
	exampleMembers    = []string{"title", "inputs", "output"}
)

// typoWarnings warns of unknown members of the descriptor and its parts that
// look like misspelt known members.
func typoWarnings(src *Source, root *Node, known []string) Violations {
	vs := typosIn(src, root, root, nil, known)
	for _, part := range []struct {
		name  string
		known []string
	}{{"protocol", protocolMembers}, {"provider", providerMembers}, {"endpoint", endpointMembers}, {"auth", authMembers}} {
		if n := root.Get(part.name); n != nil {
			vs = append(vs, typosIn(src, root, n, Path{part.name}, part.known)...)
		}
	}
	if ex := root.Get("examples"); ex != nil && ex.Kind == Array {
		for i, it := range ex.Items {
			vs = append(vs, typosIn(src, root, it, Path{"examples", itoa(i)}, exampleMembers)...)
		}
	}
	return vs
}

func typosIn(src *Source, root, n *Node, path Path, known []string) Violations {
	if n.Kind != Object {
		return nil
	}
	var vs Violations
	for _, m := range n.Members {
		if isKnown(m.Name, known) || len(m.Name) >= 2 && m.Name[:2] == "x-" {
			continue
		}
		if guess := closest(m.Name, known); guess != "" {
			v := src.violation(root, m.Key, append(path[:len(path):len(path)], m.Name),
				"unknown member "+string(appendString(nil, m.Name))+"; did you mean "+string(appendString(nil, guess))+"?")
			v.Severity = SeverityWarning
			vs = append(vs, v)
		}
	}
	return vs
}

func isKnown(name string, known []string) bool {
	for _, k := range known {
		if k == name {
			return true
		}
	}
	return false
}

// closest returns the known member within edit distance 2 of name that is
// nearest to it, or "".
func closest(name string, known []string) string {
	best, bestD := "", 3
	for _, k := range known {
		if d := editDistance(name, k, bestD); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// editDistance returns the Levenshtein distance of a and b in code points,
// or limit when it is limit or more.
func editDistance(a, b string, limit int) int {
	ra, rb := []rune(a), []rune(b)
	if d := len(ra) - len(rb); d >= limit || -d >= limit {
		return limit
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin >= limit {
			return limit
		}
		prev, cur = cur, prev
	}
	return min(prev[len(rb)], limit)
}
