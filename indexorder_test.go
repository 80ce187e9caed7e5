package skillcat

import (
	"strings"
	"testing"
)

// TestIndexOrder holds ParseIndex to SPEC 1.3's order: an index whose
// skills are not ordered by id parses, with one warning at the first entry
// out of order, and an ordered one with none.
func TestIndexOrder(t *testing.T) {
	entry := func(id string) string {
		return `{"id": "` + id + `", "name": "A", "version": "1.0.0", "capability_type": "api", "access": "public", "summary": "S.", "descriptor_url": "/skills/` + id + `.json", "digest": "sha256:` + strings.Repeat("0", 64) + `"}`
	}
	doc := func(ids ...string) []byte {
		var es []string
		for _, id := range ids {
			es = append(es, entry(id))
		}
		return []byte("{\"protocol\": {\"version\": \"1.0.0\"}, \"skills\": [\n" + strings.Join(es, ",\n") + "\n]}")
	}
	if x, vs := ParseIndex("skills.json", doc("a.a", "a.b", "b.a")); x == nil || len(vs) != 0 {
		t.Fatalf("ordered index: got %v, %v; want it with no violation", x, vs)
	}
	x, vs := ParseIndex("skills.json", doc("a.a", "c.c", "b.b", "a.b"))
	if x == nil || len(x.Skills) != 4 {
		t.Fatalf("unordered index refused: %v", vs)
	}
	if len(vs) != 1 || vs[0].Severity != SeverityWarning || vs[0].Field != "skills[2].id" || vs[0].Line != 4 ||
		vs[0].Reason != `the skills are not ordered by id (SPEC 1.3): "b.b" comes after "c.c"` {
		t.Fatalf("unordered index: got %#v, want one warning at skills[2].id, line 4", vs)
	}
}
