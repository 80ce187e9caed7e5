package jose

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Errors of Verify, each wrapped with detail; all of them mean the
// signature is not accepted.
var (
	// ErrMalformed: the text is not a compact JWS with a detached payload
	// and a protected header this package accepts.
	ErrMalformed = errors.New("malformed signature")
	// ErrUnknownKey: the signature names a key that is not pinned.
	ErrUnknownKey = errors.New("signature made with a key that is not pinned")
	// ErrBadSignature: no pinned key verifies the signature over the
	// payload, so the document or the signature was changed.
	ErrBadSignature = errors.New("signature does not verify")
)

// MaxSignatureSize bounds the text Verify and ParseHeader read.
const MaxSignatureSize = 16 << 10

// Header is the protected header of a skillcat signature, encoded with its
// members in this order.
type Header struct {
	Alg string `json:"alg"`
	Kid string `json:"kid,omitempty"`
	Typ string `json:"typ,omitempty"`
	// Iat is when the document was signed, in seconds since 1970; 0 when
	// the build had no date (so that the same sources give the same bytes).
	Iat int64 `json:"iat,omitempty"`
}

// Sign returns a compact JWS over payload with a detached payload
// ("header..signature"), with alg EdDSA and the signer's key id. Ed25519
// signatures are deterministic: the same key, header and payload give the
// same text.
func (s *Signer) Sign(payload []byte, typ string, iat int64) string {
	h, _ := json.Marshal(Header{Alg: "EdDSA", Kid: s.pub.KID, Typ: typ, Iat: iat})
	protected := b64.EncodeToString(h)
	sig := ed25519.Sign(s.key, signingInput(protected, payload))
	return protected + ".." + b64.EncodeToString(sig)
}

func signingInput(protected string, payload []byte) []byte {
	in := make([]byte, 0, len(protected)+1+b64.EncodedLen(len(payload)))
	in = append(in, protected...)
	in = append(in, '.')
	return b64.AppendEncode(in, payload)
}

// ParseHeader reads the protected header of a detached compact JWS without
// verifying anything, to say which key claims to have signed.
func ParseHeader(jws string) (Header, error) {
	h, _, _, err := split(jws)
	return h, err
}

// Verify checks a detached compact JWS over payload against the pinned
// keys and returns the key that verified it. A kid in the header selects
// among the pinned keys (one not pinned is ErrUnknownKey); without one,
// every pinned key is tried. A pinned key of small order verifies nothing
// (see ErrWeakKey), however the caller made it.
func Verify(jws string, payload []byte, pinned []PublicKey) (PublicKey, error) {
	h, protected, sig, err := split(jws)
	if err != nil {
		return PublicKey{}, err
	}
	var candidates []PublicKey
	for _, k := range pinned {
		if h.Kid == "" || k.KID == h.Kid {
			candidates = append(candidates, k)
		}
	}
	if len(candidates) == 0 {
		return PublicKey{}, fmt.Errorf("%w: kid %q", ErrUnknownKey, h.Kid)
	}
	in := signingInput(protected, payload)
	for _, k := range candidates {
		if len(k.Key) == ed25519.PublicKeySize && !smallOrder(k.Key) && ed25519.Verify(k.Key, in, sig) {
			return k, nil
		}
	}
	return PublicKey{}, fmt.Errorf("%w (kid %q)", ErrBadSignature, h.Kid)
}

// split takes a detached compact JWS apart: the decoded header, the
// protected header as written, and the signature bytes.
func split(jws string) (Header, string, []byte, error) {
	jws = strings.TrimSpace(jws)
	if len(jws) > MaxSignatureSize {
		return Header{}, "", nil, fmt.Errorf("%w: %d bytes is more than %d", ErrMalformed, len(jws), MaxSignatureSize)
	}
	parts := strings.Split(jws, ".")
	if len(parts) != 3 {
		return Header{}, "", nil, fmt.Errorf("%w: want three dot-separated parts (header..signature)", ErrMalformed)
	}
	if parts[1] != "" {
		return Header{}, "", nil, fmt.Errorf("%w: the payload part is not empty; want a detached payload", ErrMalformed)
	}
	raw, err := b64.DecodeString(parts[0])
	if err != nil {
		return Header{}, "", nil, fmt.Errorf("%w: the header is not base64url", ErrMalformed)
	}
	var members map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&members); err != nil || dec.More() {
		return Header{}, "", nil, fmt.Errorf("%w: the header is not a JSON object", ErrMalformed)
	}
	if _, ok := members["crit"]; ok {
		return Header{}, "", nil, fmt.Errorf("%w: the header has critical extensions (crit) this verifier does not know", ErrMalformed)
	}
	if b, ok := members["b64"]; ok && string(b) != "true" {
		return Header{}, "", nil, fmt.Errorf("%w: unencoded payloads (b64) are not accepted", ErrMalformed)
	}
	// Header parameter names are case sensitive (RFC 7515 section 4);
	// json.Unmarshal into Header would take "ALG" for alg.
	var h Header
	for _, m := range []struct {
		name string
		dst  any
	}{{"alg", &h.Alg}, {"kid", &h.Kid}, {"typ", &h.Typ}, {"iat", &h.Iat}} {
		if v, ok := members[m.name]; ok {
			if err := json.Unmarshal(v, m.dst); err != nil {
				return Header{}, "", nil, fmt.Errorf("%w: header member %s: %v", ErrMalformed, m.name, err)
			}
		}
	}
	if h.Alg != "EdDSA" {
		return Header{}, "", nil, fmt.Errorf("%w: alg %q; want EdDSA", ErrMalformed, h.Alg)
	}
	sig, err := b64.DecodeString(parts[2])
	if err != nil || len(sig) != ed25519.SignatureSize {
		return Header{}, "", nil, fmt.Errorf("%w: the signature is not a base64url Ed25519 signature", ErrMalformed)
	}
	return h, parts[0], sig, nil
}
