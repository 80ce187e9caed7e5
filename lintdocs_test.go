package skillcat

import (
	"strings"
	"testing"
)

// TestLintOtherDocuments checks that the linter warns of unknown members in
// a SkillIndex, an InvocationRequest and an InvocationResponse as it does
// in a descriptor: a warning that names the place and a guess, none for
// "x-" members or a newer minor, and the document still parses.
func TestLintOtherDocuments(t *testing.T) {
	const entry = `{"id": "a.b", "name": "A", "version": "1.0.0", "capability_type": "api", "access": "public", "summary": "S.", "descriptor_url": "/skills/a.b.json", "digest": "sha256:` +
		"0000000000000000000000000000000000000000000000000000000000000000" + `"`
	parse := map[string]func(string) Violations{
		"index": func(doc string) Violations {
			x, vs := ParseIndex("index.json", []byte(doc))
			if x == nil {
				t.Fatalf("ParseIndex refused %s: %v", doc, vs)
			}
			return vs
		},
		"request": func(doc string) Violations {
			r, vs := ParseRequest("request.json", []byte(doc))
			if r == nil {
				t.Fatalf("ParseRequest refused %s: %v", doc, vs)
			}
			return vs
		},
		"response": func(doc string) Violations {
			r, vs := ParseResponse("response.json", []byte(doc))
			if r == nil {
				t.Fatalf("ParseResponse refused %s: %v", doc, vs)
			}
			return vs
		},
	}
	for _, c := range []struct {
		name, kind, doc string
		want            []string // each warning's "field: reason"
	}{
		{"IndexClean", "index", `{"protocol": {"version": "1.0.0"}, "skills": [` + entry + `}]}`, nil},
		{"IndexUnknownTop", "index", `{"protocol": {"version": "1.0.0"}, "generated_at": "2026-01-01", "skills": []}`,
			[]string{`generated_at: "generated_at" is not a SkillIndex member in protocol 1.0.0; if it is an extension of your own, name it "x-generated_at"`}},
		{"IndexTypoInEntry", "index", `{"protocol": {"version": "1.0.0"}, "skills": [` + entry + `, "sumary": "x"}]}`,
			[]string{`skills[0].sumary: unknown member "sumary"; did you mean "summary"?`}},
		{"IndexMemberOfProtocol", "index", `{"protocol": {"version": "1.0.0"}, "version": "1.0.0", "skills": []}`,
			[]string{`version: "version" is not a SkillIndex member; did you mean "protocol.version" or "skills[].version"?`}},
		{"IndexExtensionAndNewerMinor", "index", `{"protocol": {"version": "1.0.0"}, "x-generated_at": "2026", "skills": [` + entry + `, "x-rank": 1}]}`, nil},
		{"IndexNewerMinor", "index", `{"protocol": {"version": "1.4.0"}, "generated_at": "2026", "skills": []}`, nil},
		{"RequestTypo", "request", `{"caller": {"id": "a", "type": "agent", "tpye": "x"}, "skill_id": "a.b", "inputs": {}, "requestid": "r1"}`,
			[]string{`caller.tpye: unknown member "tpye"; did you mean "type"?`, `requestid: unknown member "requestid"; did you mean "request_id"?`}},
		{"RequestFreeInputsAndContext", "request", `{"caller": {"id": "a", "type": "agent"}, "skill_id": "a.b", "inputs": {"anything": 1}, "context": {"trace": "t"}}`, nil},
		{"ResponseUnknown", "response", `{"execution_id": "e1", "status": "succeeded", "skill_id": "a.b", "output": {"free": 1},
			"timestamps": {"created_at": "2026-01-01T00:00:00Z", "completed_at": "2026-01-01T00:00:01Z", "finished_at": "2026-01-01T00:00:01Z"}, "took_ms": 3}`,
			[]string{`timestamps.finished_at: "finished_at" is not a member of timestamps in protocol 1.0.0; if it is an extension of your own, name it "x-finished_at"`,
				`took_ms: "took_ms" is not an InvocationResponse member in protocol 1.0.0; if it is an extension of your own, name it "x-took_ms"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			vs := parse[c.kind](c.doc)
			var got []string
			for _, v := range vs {
				if v.Severity != SeverityWarning {
					t.Errorf("got an error %v, want warnings only", v)
				}
				if v.Line < 1 || v.Column < 1 {
					t.Errorf("warning %v has no position", v)
				}
				got = append(got, v.Field+": "+v.Reason)
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}
