package client_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/client"
	"github.com/skillcat/skillcat/mock"
)

// The whole consumer flow: discover a catalog, pick a skill, check the
// request, invoke it and read its output. The catalog here is served on
// 127.0.0.1 with the mock endpoint, as skillcat serve --mock serves one.
func Example() {
	catalog := startCatalog()
	defer catalog.Close()
	ctx := context.Background()
	c := &client.Client{}

	// Discover: every listed descriptor fetched, its digest verified.
	cat, err := c.Discover(ctx, catalog.URL, client.DiscoverOptions{Type: skillcat.API})
	if err != nil {
		log.Fatal(err)
	}
	// Pick.
	skill := cat.Skills[0]
	d := skill.Descriptor
	fmt.Println(d.ID, d.Endpoint.EffectiveMethod(), d.Auth.Type)

	// Check: an invalid request is refused before anything is sent.
	bad := &skillcat.InvocationRequest{Caller: client.DefaultCaller, SkillID: d.ID, Inputs: json.RawMessage(`{"city": ""}`)}
	if err := client.CheckRequest(d, bad); err != nil {
		fmt.Println("refused:", err)
	}

	// Invoke: the credential goes where auth.type says, the response and
	// its output are validated, an accepted execution is polled.
	resp, err := c.Invoke(ctx, d, json.RawMessage(`{"city": "Berlin"}`), client.InvokeOptions{
		Credential: client.Credential{Secret: "demo-key"},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.Status, string(resp.Output))
	// Output:
	// weather.forecast GET api_key
	// refused: request:1:10: inputs.city: must not be empty
	// succeeded {"high_c":3.5}
}

// Invoke reports a failed execution in the response, and a response that
// breaks the binding as an error.
func ExampleClient_Invoke() {
	catalog := startCatalog()
	defer catalog.Close()
	ctx := context.Background()
	c := &client.Client{}
	skill, err := c.DiscoverSkill(ctx, catalog.URL, "weather.forecast", client.DiscoverOptions{})
	if err != nil {
		log.Fatal(err)
	}
	opts := client.InvokeOptions{Credential: client.Credential{Secret: "demo-key"}, RequestID: "req-1"}

	// The mock knows only the examples' inputs: other valid inputs fail.
	resp, err := c.Invoke(ctx, skill.Descriptor, json.RawMessage(`{"city": "Rome"}`), opts)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.Status, resp.Error.Code)

	// Without the credential nothing is sent.
	_, err = c.Invoke(ctx, skill.Descriptor, json.RawMessage(`{"city": "Berlin"}`), client.InvokeOptions{})
	fmt.Println(errors.Is(err, client.ErrCredential))
	// Output:
	// failed no_matching_example
	// true
}

// startCatalog serves a catalog of one skill and its mock endpoint, as
// skillcat serve --mock does.
func startCatalog() *httptest.Server {
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	d := &skillcat.SkillDescriptor{
		Protocol: skillcat.CurrentProtocol(), ID: "weather.forecast", Name: "Weather Forecast", Version: "1.0.0",
		CapabilityType: skillcat.API, Description: "Daily highs.", Provider: skillcat.Provider{Name: "Example"},
		Endpoint: skillcat.Endpoint{URL: srv.URL + mock.MountPath + mock.SkillPath("weather.forecast"), Method: "GET"},
		Inputs:   json.RawMessage(`{"type":"object","properties":{"city":{"type":"string","minLength":1}},"required":["city"]}`),
		Output:   json.RawMessage(`{"type":"object","properties":{"high_c":{"type":"number"}},"required":["high_c"]}`),
		Auth:     skillcat.Auth{Type: skillcat.AuthAPIKey, In: "header", Name: "X-Api-Key"},
		Access:   skillcat.Public,
		Examples: []skillcat.Example{{Title: "Berlin", Inputs: json.RawMessage(`{"city":"Berlin"}`), Output: json.RawMessage(`{"high_c":3.5}`)}},
	}
	data, _ := d.Encode()
	sum := sha256.Sum256(data)
	index, _ := (&skillcat.SkillIndex{Protocol: skillcat.CurrentProtocol(), Skills: []skillcat.IndexEntry{{
		ID: d.ID, Name: d.Name, Version: d.Version, CapabilityType: d.CapabilityType, Access: d.Access,
		Summary: "Daily highs.", DescriptorURL: "../skills/weather.forecast.json", Digest: "sha256:" + hex.EncodeToString(sum[:]),
	}}}).Encode()
	serve := func(body []byte) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write(body)
		}
	}
	mux.Handle(skillcat.WellKnownPath, serve(index))
	mux.Handle("/skills/weather.forecast.json", serve(data))
	mux.Handle(mock.MountPath+"/", http.StripPrefix(mock.MountPath, mock.New(d)))
	return srv
}
