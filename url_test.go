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

// TestEscapeURL checks that whatever EscapeURL writes after an http(s)
// host is a URL IsHTTPURL accepts, and that it keeps what was allowed.
func TestEscapeURL(t *testing.T) {
	if got, want := skillcat.EscapeURL(`/pets/{id} "ä"|x%20`), `/pets/%7Bid%7D%20%22%C3%A4%22%7Cx%20`; got != want {
		t.Errorf("EscapeURL = %s; want %s", got, want)
	}
	rapid.Check(t, func(t *rapid.T) {
		p := rapid.String().Draw(t, "path")
		if u := "https://api.example.com/" + skillcat.EscapeURL(p); len(u) <= skillcat.MaxURLLength && !skillcat.IsHTTPURL(u) {
			t.Fatalf("IsHTTPURL(%q) = false", u)
		}
	})
}

// TestImportedURL checks that an importer keeps an http(s) URL, trimmed,
// and drops anything a descriptor could not hold.
func TestImportedURL(t *testing.T) {
	for in, want := range map[string]string{
		" https://example.com/docs \n": "https://example.com/docs",
		"http://localhost:8080/":       "http://localhost:8080/",
		"ftp://example.com/":           "",
		"/relative":                    "",
		"https://exa mple.com/":        "",
		"https://example.com/%zz":      "",
	} {
		if got := skillcat.ImportedURL(in); got != want {
			t.Errorf("ImportedURL(%q) = %q; want %q", in, got, want)
		}
	}
}
