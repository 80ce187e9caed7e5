package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"

	"github.com/skillcat/skillcat/jose"
)

// ErrSignature is wrapped by the problem of a catalog whose index is not
// accepted by the pinned keys (DiscoverOptions.VerifyKeys): its signature
// is missing, made with a key that is not pinned, or does not verify over
// the bytes served.
var ErrSignature = errors.New("signature not accepted")

// Signature says what a catalog's index signature (<index URL>.jws) is.
type Signature struct {
	// URL is where the signature was looked for.
	URL string

	// Signed reports that a signature was found there; KID is the key it
	// names, which is only a claim unless Verified.
	Signed bool
	KID    string

	// Verified reports that a pinned key verified the signature over the
	// exact bytes of the index.
	Verified bool
}

// signatureURL returns the URL of the detached signature of the document
// at u: its path with ".jws" added.
func signatureURL(u *url.URL) *url.URL {
	sig := *u
	sig.Path += ".jws"
	sig.RawPath = ""
	return &sig
}

// signature fetches and, when keys are pinned, verifies the detached
// signature of an index whose bytes are data and which was served from
// indexURL. With pinned keys every failure is an error wrapping
// ErrSignature; without, a missing or unreadable signature just reads as
// unsigned.
func (c *Client) signature(ctx context.Context, hc *http.Client, indexURL *url.URL, data []byte, pinned []jose.PublicKey) (Signature, error) {
	u := signatureURL(indexURL)
	sig := Signature{URL: u.String()}
	text, err := c.fetchSignature(ctx, hc, u)
	if err != nil {
		if len(pinned) == 0 || ctx.Err() != nil {
			return sig, ctx.Err()
		}
		return sig, fmt.Errorf("%w: the index is not signed: %s: %v", ErrSignature, u.Redacted(), err)
	}
	h, err := jose.ParseHeader(text)
	if err != nil {
		if len(pinned) == 0 {
			return sig, nil
		}
		return sig, fmt.Errorf("%w: %s: %v", ErrSignature, u.Redacted(), err)
	}
	sig.Signed, sig.KID = true, h.Kid
	if len(pinned) == 0 {
		return sig, nil
	}
	if _, err := jose.Verify(text, data, pinned); err != nil {
		return sig, fmt.Errorf("%w: %s: %v", ErrSignature, u.Redacted(), err)
	}
	sig.Verified = true
	return sig, nil
}

// fetchSignature GETs a signature: at most jose.MaxSignatureSize bytes, of
// any media type but HTML (static hosts serve .jws as they please; the
// signature vouches for itself).
func (c *Client) fetchSignature(ctx context.Context, hc *http.Client, u *url.URL) (string, error) {
	rctx, cancel := context.WithTimeout(ctx, c.timeout())
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("User-Agent", c.userAgent())
	req.Header.Set("Accept", "application/jose")
	resp, err := hc.Do(req)
	if err != nil {
		return "", c.requestError(ctx, rctx, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("HTTP %d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "text/html" {
		return "", fmt.Errorf("%w: got an HTML page, want a JWS", ErrContentType)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, jose.MaxSignatureSize+1))
	if err != nil {
		return "", c.requestError(ctx, rctx, err)
	}
	if len(body) > jose.MaxSignatureSize {
		return "", &detailError{ErrTooLarge, fmt.Sprintf("signature larger than %d bytes", jose.MaxSignatureSize)}
	}
	return string(body), nil
}
