package client_test

import (
	"encoding/json"
	"strings"
	"testing"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/client"
)

func TestCheckRequest(t *testing.T) {
	d := descriptor("weather.forecast", skillcat.API, skillcat.Public)
	request := func(edit func(r *skillcat.InvocationRequest)) *skillcat.InvocationRequest {
		r := &skillcat.InvocationRequest{
			Caller:  skillcat.Caller{ID: "agent-7", Type: skillcat.CallerAgent},
			SkillID: d.ID,
			Inputs:  json.RawMessage(`{"q": "Berlin"}`),
		}
		if edit != nil {
			edit(r)
		}
		return r
	}
	t.Run("OK", func(t *testing.T) {
		if err := client.CheckRequest(d, request(nil)); err != nil {
			t.Errorf("got %v, want none", err)
		}
	})
	for _, c := range []struct {
		name string
		edit func(r *skillcat.InvocationRequest)
		want []string
	}{
		{"ErrInputs", func(r *skillcat.InvocationRequest) { r.Inputs = json.RawMessage(`{"q": ""}`) }, []string{"inputs.q"}},
		{"ErrMissingInput", func(r *skillcat.InvocationRequest) { r.Inputs = json.RawMessage(`{}`) }, []string{"inputs"}},
		{"ErrSkillID", func(r *skillcat.InvocationRequest) { r.SkillID = "geocode" }, []string{"skill_id", `"weather.forecast"`, `"geocode"`}},
		{"ErrCaller", func(r *skillcat.InvocationRequest) { r.Caller = skillcat.Caller{} }, []string{"caller"}},
		{"ErrNoInputs", func(r *skillcat.InvocationRequest) { r.Inputs = nil }, []string{"inputs"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := client.CheckRequest(d, request(c.edit))
			if err == nil {
				t.Fatal("got no error")
			}
			if _, ok := skillcat.AsViolations(err); !ok {
				t.Errorf("got %T, want skillcat.Violations", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("got %q, want it to mention %s", err, w)
				}
			}
		})
	}
	t.Run("ErrNil", func(t *testing.T) {
		if err := client.CheckRequest(nil, request(nil)); err == nil {
			t.Error("got no error for a nil descriptor")
		}
	})
}
