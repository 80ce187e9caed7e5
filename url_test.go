package skillcat_test

import (
	"encoding/json"
	"io/fs"
	"regexp"
	"strings"
	"testing"

	skillcat "github.com/skillcat/skillcat"
	"pgregory.net/rapid"
)

// TestIsHTTPURLIsTheSchemaRule holds IsHTTPURL to the descriptor schema's
// http_url definition: both accept exactly the same strings.
func TestIsHTTPURLIsTheSchemaRule(t *testing.T) {
	data, err := fs.ReadFile(skillcat.Schemas(), "skill-descriptor.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Defs map[string]struct {
			MaxLength int    `json:"maxLength"`
			Pattern   string `json:"pattern"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	def, ok := doc.Defs["http_url"]
	if !ok || def.MaxLength != skillcat.MaxURLLength {
		t.Fatalf("schema http_url: %+v; want maxLength %d", def, skillcat.MaxURLLength)
	}
	re := regexp.MustCompile(def.Pattern)
	schema := func(s string) bool { return len([]rune(s)) <= def.MaxLength && re.MatchString(s) }
	for _, s := range []string{"https://a.example/x?y#z", "http://h", "https://", "ftp://h", "https://h/ x", "https://h é", "HTTPS://h",
		"https://[::1]:8080/", "https://h%20/", "https://" + strings.Repeat("a", 2041), "https://" + strings.Repeat("a", 2040)} {
		if got, want := skillcat.IsHTTPURL(s), schema(s); got != want {
			t.Errorf("IsHTTPURL(%.40q) = %t; the schema says %t", s, got, want)
		}
	}
	rapid.Check(t, func(rt *rapid.T) {
		s := rapid.SampledFrom([]string{"https://", "http://", "HTTP://", ""}).Draw(rt, "scheme") +
			rapid.StringMatching(`[a-z0-9.%@:\[\] ~/?#é-]{0,12}`).Draw(rt, "rest")
		if got, want := skillcat.IsHTTPURL(s), schema(s); got != want {
			rt.Fatalf("IsHTTPURL(%q) = %t; the schema says %t", s, got, want)
		}
	})
}
