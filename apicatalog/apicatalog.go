// Package apicatalog writes an API catalog (RFC 9727): a linkset (RFC 9264,
// application/linkset+json) served at /.well-known/api-catalog, with one
// link context per API. It knows nothing of how a site is laid out: the
// caller gives every URL.
//
// Each context's anchor is an API's endpoint URL, with the links
// service-desc (its machine-readable description), service-doc (its
// documentation for people) and service-meta (more metadata: the skill
// index), as RFC 8631 defines them. Skills that share one endpoint share
// one context, so each anchor appears once; contexts are in anchor order
// and links in the order given, so the same APIs give the same bytes.
package apicatalog

import (
	"bytes"
	"encoding/json"
	"sort"
)

// Profile is the profile URI (RFC 7284) that marks a linkset as an API
// catalog, as RFC 9727 registers it.
const Profile = "https://www.rfc-editor.org/info/rfc9727"

// ContentType is the media type /.well-known/api-catalog is served with.
const ContentType = `application/linkset+json; profile="` + Profile + `"`

// API is one API of the catalog.
type API struct {
	Anchor string // the endpoint URL
	Desc   []Link // service-desc
	Doc    []Link // service-doc
	Meta   []Link // service-meta
}

// Link is one link target.
type Link struct {
	Href  string `json:"href"`
	Type  string `json:"type,omitempty"`
	Title string `json:"title,omitempty"`
}

// context is one link context object of the linkset; its members are the
// anchor and the relation types, each with its targets.
type context struct {
	Anchor string `json:"anchor"`
	Desc   []Link `json:"service-desc,omitempty"`
	Doc    []Link `json:"service-doc,omitempty"`
	Meta   []Link `json:"service-meta,omitempty"`
}

// Encode writes the API catalog of the APIs: a linkset in anchor order,
// two-space indent, no HTML escaping, a final newline.
func Encode(apis []API) ([]byte, error) {
	byAnchor := map[string]*context{}
	var anchors []string
	for _, a := range apis {
		c, ok := byAnchor[a.Anchor]
		if !ok {
			c = &context{Anchor: a.Anchor}
			byAnchor[a.Anchor] = c
			anchors = append(anchors, a.Anchor)
		}
		c.Desc = appendNew(c.Desc, a.Desc)
		c.Doc = appendNew(c.Doc, a.Doc)
		c.Meta = appendNew(c.Meta, a.Meta)
	}
	sort.Strings(anchors)
	doc := struct {
		Linkset []*context `json:"linkset"`
	}{Linkset: make([]*context, 0, len(anchors))}
	for _, a := range anchors {
		doc.Linkset = append(doc.Linkset, byAnchor[a])
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// appendNew appends the links of add that list does not hold yet.
func appendNew(list, add []Link) []Link {
	for _, l := range add {
		dup := false
		for _, have := range list {
			if have == l {
				dup = true
				break
			}
		}
		if !dup {
			list = append(list, l)
		}
	}
	return list
}
