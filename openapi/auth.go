package openapi

import (
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	skillcat "github.com/skillcat/skillcat"
)

// authOf maps an operation's security requirement onto a descriptor's
// auth. The requirement is a list of alternatives, each naming schemes
// that are all needed; the first alternative whose first scheme maps is
// used, and what else the requirement names is reported as dropped.
// required is false when no auth is needed, or when an empty alternative
// ({}) makes it optional.
func authOf(doc *document, reqs openapi3.SecurityRequirements, base, at string, warn func(string, string)) (auth skillcat.Auth, required bool) {
	auth = skillcat.Auth{Type: skillcat.AuthNone}
	if len(reqs) == 0 {
		return auth, false
	}
	required = true
	chosen := false
	for i, alt := range reqs {
		if len(alt) == 0 {
			required = false
			continue
		}
		names := sortedKeys(alt)
		for j, name := range names {
			p := fmt.Sprintf("%s/%d/%s", at, i, escape(name))
			if chosen {
				warn(p, fmt.Sprintf("security scheme %q dropped: a descriptor has one auth, and %s", name, describe(auth)))
				continue
			}
			a, ok := schemeAuth(doc, name, alt[name], base)
			if !ok {
				warn(p, fmt.Sprintf("security scheme %q dropped: it is not defined in components.securitySchemes", name))
				continue
			}
			auth, chosen = a, true
			if j+1 < len(names) {
				// Later schemes of the same alternative are also needed.
				for _, other := range names[j+1:] {
					auth = also(doc, auth, other)
				}
				break
			}
		}
	}
	if !chosen {
		return skillcat.Auth{Type: skillcat.AuthNone}, false
	}
	return auth, required
}

// also adds to auth's instructions that scheme other is needed as well,
// making it custom auth when it was not.
func also(doc *document, auth skillcat.Auth, other string) skillcat.Auth {
	more, ok := schemeAuth(doc, other, nil, "")
	if !ok {
		return auth
	}
	text := instructionsOf(auth) + "\n\nAlso: " + instructionsOf(more)
	return skillcat.Auth{Type: skillcat.AuthCustom, Instructions: text}
}

// describe says in words what auth a descriptor got.
func describe(a skillcat.Auth) string {
	switch a.Type {
	case skillcat.AuthAPIKey:
		return fmt.Sprintf("it uses the API key %q in the %s", a.Name, a.In)
	case skillcat.AuthOAuth2:
		return "it uses OAuth 2.0"
	}
	return "it uses the first scheme listed"
}

// instructionsOf phrases any auth as instructions.
func instructionsOf(a skillcat.Auth) string {
	switch a.Type {
	case skillcat.AuthAPIKey:
		where := "header"
		if a.In == "query" {
			where = "query parameter"
		}
		return fmt.Sprintf("Send the API key in the %s %q.", where, a.Name)
	case skillcat.AuthOAuth2:
		return "Get an OAuth 2.0 access token from " + a.TokenURL + " and send it as `Authorization: Bearer <token>`."
	case skillcat.AuthCustom:
		return a.Instructions
	}
	return "Nothing."
}

// schemeAuth maps one security scheme: apiKey in a header or the query to
// api_key; oauth2 with a token URL to oauth2; http bearer and basic,
// openIdConnect, mutualTLS, an apiKey cookie and an implicit-only oauth2
// to custom auth whose instructions say what to send.
func schemeAuth(doc *document, name string, scopes []string, base string) (skillcat.Auth, bool) {
	if doc.t.Components == nil {
		return skillcat.Auth{}, false
	}
	ref := doc.t.Components.SecuritySchemes[name]
	if ref == nil || ref.Value == nil {
		return skillcat.Auth{}, false
	}
	s := ref.Value
	note := ""
	if d := strings.TrimSpace(s.Description); d != "" {
		note = "\n\n" + d
	}
	custom := func(text string) (skillcat.Auth, bool) {
		return skillcat.Auth{Type: skillcat.AuthCustom, Instructions: text + note}, true
	}
	switch strings.ToLower(s.Type) {
	case "apikey":
		in := strings.ToLower(s.In)
		if (in == "header" || in == "query") && s.Name != "" {
			return skillcat.Auth{Type: skillcat.AuthAPIKey, In: in, Name: s.Name}, true
		}
		if s.Name == "" {
			return custom("Send an API key (the document does not say under which name).")
		}
		return custom(fmt.Sprintf("Send the API key in the cookie %q.", s.Name))
	case "http":
		switch strings.ToLower(s.Scheme) {
		case "bearer":
			token := "a bearer token"
			if s.BearerFormat != "" {
				token = "a bearer token (" + s.BearerFormat + ")"
			}
			return custom("Send " + token + " in the `Authorization` header: `Authorization: Bearer <token>`.")
		case "basic":
			return custom("Use HTTP Basic authentication: send `Authorization: Basic <base64 of user:password>`.")
		case "":
			return custom("Use HTTP authentication in the `Authorization` header.")
		}
		return custom(fmt.Sprintf("Use HTTP %q authentication in the `Authorization` header.", s.Scheme))
	case "oauth2":
		return oauth2Auth(s, scopes, base, note)
	case "openidconnect":
		return custom(fmt.Sprintf("Get an OpenID Connect token from the provider described at %s and send it as `Authorization: Bearer <token>`.", s.OpenIdConnectUrl))
	case "mutualtls":
		return custom("Present a client TLS certificate the service trusts (mutual TLS).")
	}
	return custom(fmt.Sprintf("Authenticate with the %q scheme %q.", s.Type, name))
}

// oauth2Auth maps an oauth2 scheme, taking its flows in this order:
// authorizationCode, clientCredentials, password. Scopes are every scope
// the chosen flow defines. An implicit flow alone has no token URL and
// becomes custom auth.
func oauth2Auth(s *openapi3.SecurityScheme, scopes []string, base, note string) (skillcat.Auth, bool) {
	if f := s.Flows; f != nil {
		for _, flow := range []*openapi3.OAuthFlow{f.AuthorizationCode, f.ClientCredentials, f.Password} {
			if flow == nil {
				continue
			}
			token := absURL(flow.TokenURL, base)
			if token == "" {
				continue
			}
			a := skillcat.Auth{Type: skillcat.AuthOAuth2, TokenURL: token}
			if flow == f.AuthorizationCode {
				a.AuthorizationURL = absURL(flow.AuthorizationURL, base)
			}
			a.Scopes = scopeMap(flow.Scopes, scopes)
			return a, true
		}
		if f.Implicit != nil {
			text := "Get an OAuth 2.0 access token with the implicit flow"
			if u := absURL(f.Implicit.AuthorizationURL, base); u != "" {
				text += " at " + u
			}
			return skillcat.Auth{Type: skillcat.AuthCustom, Instructions: text + " and send it as `Authorization: Bearer <token>`." + note}, true
		}
	}
	return skillcat.Auth{Type: skillcat.AuthCustom, Instructions: "Get an OAuth 2.0 access token and send it as `Authorization: Bearer <token>`." + note}, true
}

// scopeMap returns the flow's scopes with their descriptions, and any
// scope the requirement names that the flow does not describe.
func scopeMap(defined map[string]string, needed []string) map[string]string {
	if len(defined) == 0 && len(needed) == 0 {
		return nil
	}
	m := make(map[string]string, len(defined))
	for k, v := range defined {
		m[k] = v
	}
	sort.Strings(needed)
	for _, k := range needed {
		if _, ok := m[k]; !ok {
			m[k] = ""
		}
	}
	return m
}

// absURL resolves u against base and returns it when it is an absolute
// http(s) URL that a descriptor accepts, or "".
func absURL(u, base string) string {
	u = strings.TrimSpace(u)
	if u == "" {
		return ""
	}
	pu, err := url.Parse(u)
	if err != nil {
		return ""
	}
	if !pu.IsAbs() && base != "" {
		if b, err := url.Parse(base); err == nil {
			pu = b.ResolveReference(pu)
		}
	}
	s := pu.String()
	if !skillcat.IsHTTPURL(s) {
		return ""
	}
	return s
}
