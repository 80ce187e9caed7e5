package client

import (
	"context"
	"fmt"
	"mime"
	"net/url"
	"strconv"
	"strings"
)

// FetchDocument GETs a document that is not a protocol document, such as
// an OpenAPI document or an A2A agent card to import, with the same limits
// as every other fetch: https only (http for loopback hosts), at most
// MaxRedirects redirects and never from https to http, MaxBytes and
// Timeout. The response must be 200 OK with a JSON or YAML media type, or
// text/plain (as raw file hosts serve them); an HTML page is refused. It
// returns the body and the URL it came from after redirects.
func (c *Client) FetchDocument(ctx context.Context, rawURL string) ([]byte, *url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil || !u.IsAbs() || u.Host == "" {
		return nil, nil, fmt.Errorf("%s is not an absolute URL; want one like https://example.com/openapi.yaml", strconv.Quote(rawURL))
	}
	if err := checkURL(u); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", u.Redacted(), err)
	}
	const accept = "application/json, application/yaml;q=0.9, text/yaml;q=0.9, text/plain;q=0.5"
	return c.get(ctx, c.httpClient(), u, accept, checkDocumentType)
}

// checkDocumentType accepts JSON (application/json, any +json type), YAML
// (application/yaml, text/yaml and their x- forms, any +yaml type) and
// text/plain.
func checkDocumentType(ct string) error {
	if ct == "" {
		return fmt.Errorf("%w: none given; want a JSON or YAML document", ErrContentType)
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err == nil {
		switch {
		case mt == "application/json", strings.HasSuffix(mt, "+json"),
			mt == "application/yaml", mt == "application/x-yaml", mt == "text/yaml", mt == "text/x-yaml",
			strings.HasSuffix(mt, "+yaml"), mt == "text/plain":
			return nil
		}
	}
	if mt == "text/html" || mt == "application/xhtml+xml" {
		return fmt.Errorf("%w %q: got an HTML page, want a JSON or YAML document", ErrContentType, ct)
	}
	return fmt.Errorf("%w %q; want a JSON or YAML document", ErrContentType, ct)
}
