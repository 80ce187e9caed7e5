package apicatalog_test

import (
	"encoding/json"
	"testing"

	"github.com/skillcat/skillcat/apicatalog"
)

func TestEncode(t *testing.T) {
	desc := func(h string) []apicatalog.Link { return []apicatalog.Link{{Href: h, Type: "application/json"}} }
	meta := []apicatalog.Link{{Href: "skills.json", Type: "application/json"}}
	data, err := apicatalog.Encode([]apicatalog.API{
		{Anchor: "https://b.example/run", Desc: desc("../skills/b.json"), Meta: meta},
		{Anchor: "https://a.example/run", Desc: desc("../skills/a1.json"), Meta: meta},
		{Anchor: "https://a.example/run", Desc: desc("../skills/a2.json"), Meta: meta},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Linkset []map[string]json.RawMessage `json:"linkset"`
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, data)
	}
	if len(got.Linkset) != 2 {
		t.Fatalf("got %d link contexts, want 2 (one per anchor):\n%s", len(got.Linkset), data)
	}
	var anchors []string
	for _, c := range got.Linkset {
		var a string
		json.Unmarshal(c["anchor"], &a)
		anchors = append(anchors, a)
		var targets []apicatalog.Link
		if err := json.Unmarshal(c["service-meta"], &targets); err != nil || len(targets) != 1 {
			t.Errorf("%s: service-meta = %s, want the one shared link once", a, c["service-meta"])
		}
		if _, ok := c["service-doc"]; ok {
			t.Errorf("%s: an empty relation is written", a)
		}
	}
	if anchors[0] != "https://a.example/run" || anchors[1] != "https://b.example/run" {
		t.Errorf("anchors %q, want them sorted", anchors)
	}
	var first []apicatalog.Link
	json.Unmarshal(got.Linkset[0]["service-desc"], &first)
	if len(first) != 2 || first[0].Href != "../skills/a1.json" || first[1].Href != "../skills/a2.json" {
		t.Errorf("service-desc of the shared anchor = %+v, want both descriptors in order", first)
	}
	empty, err := apicatalog.Encode(nil)
	if err != nil || string(empty) != "{\n  \"linkset\": []\n}\n" {
		t.Errorf("Encode(nil) = %q, %v; want an empty linkset", empty, err)
	}
}
