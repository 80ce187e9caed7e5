package skillcat_test

import (
	"strings"
	"testing"

	skillcat "github.com/skillcat/skillcat"
)

func TestSlug(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"listPets", "list-pets"},
		{"GET /pets/{petId}", "get-pets-pet-id"},
		{"Café Öl", "cafe-ol"},
		{"get_HTTPServer", "get-httpserver"},
		{"v2Users", "v2-users"},
		{"  --  ", ""},
		{"日本語", ""},
		{strings.Repeat("word ", 40), strings.TrimSuffix(strings.Repeat("word-", 8), "-")},
	} {
		if got := skillcat.Slug(c.in, 40); got != c.want {
			t.Errorf("Slug(%q): got %q, want %q", c.in, got, c.want)
		}
		if got := skillcat.Slug(c.in, 40); got != "" && !skillcat.ValidID(got) {
			t.Errorf("Slug(%q) = %q is not a valid id", c.in, got)
		}
	}
}

func TestIDGroups(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"io.github.User/weather", "io.github.user.weather"},
		{"com.example..x", "com.example.x"},
		{"/", ""},
	} {
		if got := skillcat.IDGroups(c.in, 60); got != c.want {
			t.Errorf("IDGroups(%q): got %q, want %q", c.in, got, c.want)
		}
	}
}

func TestSemVerOf(t *testing.T) {
	for _, c := range []struct {
		in, want string
		changed  bool
	}{
		{"1.2.3", "1.2.3", false},
		{"1.0.0-beta.1+build.5", "1.0.0-beta.1+build.5", false},
		{"1.4", "1.4.0", true},
		{"v2", "2.0.0", true},
		{"2021-06-01", "2021.6.1", true},
		{"1.0 beta", "1.0.0+beta", true},
		{"beta", "0.0.0+beta", true},
		{"", "0.1.0", true},
		{"01.02.03", "1.2.3", true},
		{"1.2.3.4", "1.2.3+4", true},
		{"0.0.1-seed", "0.0.1-seed", false},
		{"∞", "0.1.0", true},
	} {
		got, changed := skillcat.SemVerOf(c.in)
		if got != c.want || changed != c.changed {
			t.Errorf("SemVerOf(%q): got %q, %v; want %q, %v", c.in, got, changed, c.want, c.changed)
		}
	}
}

func TestUniqueIDs(t *testing.T) {
	u := skillcat.UniqueIDs{}
	for _, want := range []string{"a.b", "a.b-2", "a.b-3"} {
		if got := u.Make("a.b"); got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
	if got := u.Make("a.b-2"); got != "a.b-2-2" {
		t.Errorf("an id handed out as a suffix form: got %q, want a.b-2-2", got)
	}
	long := strings.Repeat("x", 130)
	if a, b := u.Make(long), u.Make(long); len(a) > 128 || len(b) > 128 || a == b || !skillcat.ValidID(b) {
		t.Errorf("long ids: got %q and %q", a, b)
	}
}

func TestLabelAndPointerField(t *testing.T) {
	if got := skillcat.Label("  two\n words ", 120); got != "two words" {
		t.Errorf("Label: got %q", got)
	}
	if got := skillcat.Label("alpha beta gamma delta", 12); got != "alpha beta…" {
		t.Errorf("Label cut: got %q", got)
	}
	if got := skillcat.PointerField("/paths/~1pets/get/parameters/2"); got != `paths["/pets"].get.parameters[2]` {
		t.Errorf("PointerField: got %q", got)
	}
	if got := skillcat.PointerField("/a/01/-/99999999999999999999"); got != `a["01"]["-"]["99999999999999999999"]` {
		t.Errorf("PointerField of tokens that are no index: got %q", got)
	}
	var im skillcat.Imported
	im.WarnAt("doc.json", 3, 4, skillcat.Members("responses", "200").Item(1), "why")
	if w := im.Warnings[0]; w.Field != `responses["200"][1]` || w.Pointer != "/responses/200/1" || w.Severity != skillcat.SeverityWarning {
		t.Errorf("WarnAt: got %+v", w)
	}
}

// TestWarnOnce: a warning that every operation repeats (a document-wide
// security requirement dropped for each skill) is recorded once.
func TestWarnOnce(t *testing.T) {
	var im skillcat.Imported
	for range 3 {
		im.Warn("api.yaml", 4, 2, "/security/1", "scheme dropped")
		im.WarnAt("api.yaml", 4, 2, skillcat.Members("security"), "scheme dropped")
	}
	im.Warn("api.yaml", 5, 2, "/security/1", "scheme dropped")
	if len(im.Warnings) != 3 {
		t.Errorf("got %d warnings, want 3 (one per place and reason):\n%v", len(im.Warnings), im.Warnings)
	}
}
