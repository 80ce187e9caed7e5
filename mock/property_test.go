package mock_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/client"
	"github.com/skillcat/skillcat/mock"
	"pgregory.net/rapid"
)

// genType is a JSON Schema of one input and a generator of its values.
type genType struct {
	schema string
	value  func(t *rapid.T, label string) string
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

var inputTypes = []genType{
	{`{"type":"string"}`, func(t *rapid.T, l string) string {
		// Characters a query encoding must carry: & = + % # ? space, quotes, non-ASCII.
		return jsonString(rapid.StringOfN(rapid.SampledFrom([]rune("ab &=+%#?\"\\/é漢😀\u2028")), 0, 12, -1).Draw(t, l))
	}},
	{`{"type":"integer"}`, func(t *rapid.T, l string) string {
		return rapid.SampledFrom([]string{"0", "-7", "42", "123456789012345678901234567890", "1e2", "5.0"}).Draw(t, l)
	}},
	{`{"type":"number"}`, func(t *rapid.T, l string) string {
		return rapid.SampledFrom([]string{"0.1", "1.50", "-0.125", "3e-7", "1E+30", "0.30000000000000004", "7"}).Draw(t, l)
	}},
	{`{"type":"boolean"}`, func(t *rapid.T, l string) string { return rapid.SampledFrom([]string{"true", "false"}).Draw(t, l) }},
	{`{"type":"array","items":{"type":"integer"}}`, func(t *rapid.T, l string) string {
		n := rapid.IntRange(0, 3).Draw(t, l+".n")
		items := make([]string, n)
		for i := range items {
			items[i] = strconv.Itoa(rapid.IntRange(-1000, 1000).Draw(t, l+".item"))
		}
		return "[" + strings.Join(items, ",") + "]"
	}},
	{`{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]}`, func(t *rapid.T, l string) string {
		return `{"x":` + jsonString(rapid.StringMatching(`[a-z]{0,5}`).Draw(t, l)) + `}`
	}},
}

var auths = []struct {
	auth string
	cred client.Credential
}{
	{`{"type":"none"}`, client.Credential{}},
	{`{"type":"api_key","in":"header","name":"X-Api-Key"}`, client.Credential{Secret: "pk-1"}},
	{`{"type":"api_key","in":"query","name":"key"}`, client.Credential{Secret: "pk-1"}},
	{`{"type":"oauth2","token_url":"https://auth.example.com/token"}`, client.Credential{Secret: "pk-1"}},
	{`{"type":"custom","instructions":"Send X-Token."}`, client.Credential{Header: http.Header{"X-Token": {"pk-1"}}}},
}

// genDescriptor draws a valid descriptor with examples, the credential its
// auth takes and the index of the example to call.
func genDescriptor(t *rapid.T) (*skillcat.SkillDescriptor, client.Credential, int) {
	id := rapid.StringMatching(`[a-z][a-z0-9]{0,8}([._-][a-z0-9]{1,5}){0,2}`).Draw(t, "id")
	method := rapid.SampledFrom([]string{"GET", "POST", "PUT", "PATCH", "DELETE"}).Draw(t, "method")
	a := auths[rapid.IntRange(0, len(auths)-1).Draw(t, "auth")]
	names := rapid.SliceOfNDistinct(rapid.StringMatching(`[a-z][a-z_]{0,6}`), 1, 5, rapid.ID[string]).Draw(t, "names")
	types := make([]genType, len(names))
	var props, required []string
	for i, name := range names {
		types[i] = inputTypes[rapid.IntRange(0, len(inputTypes)-1).Draw(t, "type")]
		props = append(props, jsonString(name)+":"+types[i].schema)
		if rapid.Bool().Draw(t, "required") {
			required = append(required, jsonString(name))
		}
	}
	inputs := `{"type":"object","properties":{` + strings.Join(props, ",") + `},"required":[` + strings.Join(required, ",") + `],"additionalProperties":false}`
	var examples []string
	for e := range rapid.IntRange(1, 3).Draw(t, "examples") {
		var members []string
		for i, name := range names {
			if containsQuoted(required, name) || rapid.Bool().Draw(t, "present") {
				members = append(members, jsonString(name)+":"+types[i].value(t, name))
			}
		}
		output := inputTypes[rapid.IntRange(0, len(inputTypes)-1).Draw(t, "output")].value(t, "output")
		examples = append(examples, fmt.Sprintf(`{"title":"Example %d","inputs":{%s},"output":{"value":%s}}`, e, strings.Join(members, ","), output))
	}
	doc := fmt.Sprintf(`{"protocol":{"version":"1.0.0"},"id":%q,"name":"Generated","version":"1.0.0","capability_type":"api",
		"description":"A generated skill.","provider":{"name":"Rapid"},"endpoint":{"url":"https://api.example.com/x","method":%q},
		"inputs":%s,"output":{"type":"object","required":["value"]},"auth":%s,"access":"public","examples":[%s]}`,
		id, method, inputs, a.auth, strings.Join(examples, ","))
	d, vs := skillcat.ParseDescriptor("generated.json", []byte(doc))
	if vs.HasErrors() {
		t.Fatalf("generated an invalid descriptor: %v\n%s", vs, doc)
	}
	return d, a.cred, rapid.IntRange(0, len(d.Examples)-1).Draw(t, "call")
}

func containsQuoted(quoted []string, name string) bool {
	for _, q := range quoted {
		if q == jsonString(name) {
			return true
		}
	}
	return false
}

func compactText(raw json.RawMessage) string {
	n, err := skillcat.ParseJSON(raw)
	if err != nil {
		return "invalid: " + err.Error()
	}
	return string(n.AppendJSON(nil))
}

// TestPropertyInvokeMock: for random descriptors and example inputs,
// invoking the skill on the mock, over real HTTP with every method and
// auth type, returns the output of the first example with those inputs,
// numbers exactly as written.
func TestPropertyInvokeMock(t *testing.T) {
	const name = "Feature: skill-sharing-protocol, Invocation: for random descriptors and example inputs, invoke against the mock returns the example's output"
	t.Log(name)
	var mu sync.Mutex
	skills := map[string]*skillcat.SkillDescriptor{}
	h := &mock.Handler{Credential: "pk-1", Skill: func(id string) *skillcat.SkillDescriptor {
		mu.Lock()
		defer mu.Unlock()
		return skills[id]
	}}
	srv := httptest.NewServer(h)
	defer srv.Close()
	c := &client.Client{}
	var runs atomic.Int64
	t.Run(name, func(t *testing.T) {
		rapid.Check(t, func(t *rapid.T) {
			runs.Add(1)
			d, cred, k := genDescriptor(t)
			mu.Lock()
			skills[d.ID] = d
			mu.Unlock()
			want := d.Examples[k].Output
			for _, ex := range d.Examples {
				if diffs, _ := skillcat.DiffJSON("inputs", d.Examples[k].Inputs, ex.Inputs, false); len(diffs) == 0 {
					want = ex.Output
					break
				}
			}
			resp, err := c.Invoke(context.Background(), d, d.Examples[k].Inputs, client.InvokeOptions{
				Credential: cred, Endpoint: srv.URL + mock.SkillPath(d.ID),
			})
			if err != nil {
				t.Fatalf("%s %s: %v", d.Endpoint.EffectiveMethod(), d.Auth.Type, err)
			}
			if resp.Status != skillcat.StatusSucceeded {
				t.Fatalf("%s %s: got %s %+v, want succeeded", d.Endpoint.EffectiveMethod(), d.Auth.Type, resp.Status, resp.Error)
			}
			if got, w := compactText(resp.Output), compactText(want); got != w {
				t.Fatalf("got output %s, want %s", got, w)
			}
		})
	})
	if runs.Load() < 100 && !testing.Short() {
		t.Errorf("checked %d cases, want at least 100", runs.Load())
	}
}
