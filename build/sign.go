package build

import (
	"github.com/skillcat/skillcat/jose"
)

// SignatureType is the "typ" of the protected header of every catalog
// signature: the signed bytes are a SkillIndex document.
const SignatureType = "skill-index+jws"

// signature returns the detached JWS of one index document (its exact
// bytes), made with cfg.Signer, and iat set to the build's date when it
// has one, so that the same sources and key give the same signature.
func signature(cfg Config, doc []byte) []byte {
	var iat int64
	if !cfg.Time.IsZero() {
		iat = cfg.Time.Unix()
	}
	return []byte(cfg.Signer.Sign(doc, SignatureType, iat))
}

// keySet is /.well-known/jwks.json: the signing key first, then the
// published extra keys (for rotation), each once. Only public keys are
// ever written.
func keySet(cfg Config) []byte {
	var keys []jose.PublicKey
	if cfg.Signer != nil {
		keys = append(keys, cfg.Signer.Public())
	}
	keys = append(keys, cfg.PublishKeys...)
	return jose.MarshalKeySet(keys)
}
