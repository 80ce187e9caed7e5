package skillcat_test

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/skillcat/skillcat"
	"pgregory.net/rapid"
)

// TestRequestQueryRoundTrip: a request carried in a query, form-encoded
// and decoded as a server does, is the same request, numbers exactly as
// written.
func TestRequestQueryRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		text := rapid.StringOfN(rapid.SampledFrom([]rune("a &=+%#?\"\\é😀\u2028")), 0, 10, -1)
		num := rapid.SampledFrom([]string{"1", "-0.50", "1e-7", "123456789012345678901234567890", "2E+3"})
		s, _ := json.Marshal(text.Draw(t, "s"))
		r := &skillcat.InvocationRequest{
			Caller:  skillcat.Caller{ID: text.Filter(func(s string) bool { return s != "" }).Draw(t, "caller"), Type: skillcat.CallerService},
			SkillID: "weather.forecast",
			Inputs:  json.RawMessage(`{"s": ` + string(s) + `, "n": ` + num.Draw(t, "n") + `, "nested": {"a": [true, null]}}`),
		}
		if rapid.Bool().Draw(t, "optional") {
			p := skillcat.CurrentProtocol()
			r.Protocol, r.RequestID, r.Context = &p, text.Filter(func(s string) bool { return s != "" }).Draw(t, "id"), json.RawMessage(`{"locale":"de"}`)
		}
		q, err := skillcat.RequestQuery(r)
		if err != nil {
			t.Fatal(err)
		}
		parsed, err := url.ParseQuery(q.Encode() + "&key=secret&version=2")
		if err != nil {
			t.Fatal(err)
		}
		data, err := skillcat.RequestFromQuery(parsed)
		if err != nil {
			t.Fatal(err)
		}
		got, vs := skillcat.ParseRequest("query", data)
		if vs.HasErrors() {
			t.Fatalf("%s: %v", data, vs)
		}
		want, _ := json.Marshal(r)
		if g, _ := json.Marshal(got); string(g) != string(want) {
			t.Fatalf("got %s, want %s", g, want)
		}
	})
}

func TestRequestQueryErrors(t *testing.T) {
	r := &skillcat.InvocationRequest{Caller: skillcat.Caller{ID: "a", Type: "agent"}, SkillID: "x", Inputs: json.RawMessage(`{}`),
		Extra: skillcat.Extra{"x-trace": json.RawMessage(`1`)}}
	if _, err := skillcat.RequestQuery(r); err == nil || !strings.Contains(err.Error(), `"x-trace"`) {
		t.Errorf("an unknown member: got %v, want an error naming it", err)
	}
	for _, c := range []struct {
		query, want string
	}{
		{"skill_id=a&skill_id=b", `"skill_id" is given 2 times`},
		{"inputs=%7Bcity", `"inputs" must be JSON text`},
	} {
		q, _ := url.ParseQuery(c.query)
		if _, err := skillcat.RequestFromQuery(q); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.query, err, c.want)
		}
	}
	for _, m := range []string{"GET", "DELETE"} {
		if skillcat.HasBody(m) {
			t.Errorf("HasBody(%s) = true", m)
		}
	}
	for _, m := range []string{"POST", "PUT", "PATCH"} {
		if !skillcat.HasBody(m) {
			t.Errorf("HasBody(%s) = false", m)
		}
	}
}
