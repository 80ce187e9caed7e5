// Package jose is skillcat's adapter for the JOSE formats it uses to sign
// catalogs: Ed25519 keys as PEM (PKCS#8 private, PKIX public) and as JSON
// Web Keys (RFC 8037), key sets (RFC 7517), RFC 7638 thumbprints as key
// ids, and JSON Web Signatures in compact serialization with a detached
// payload (RFC 7515 Appendix F).
//
// A signature covers a document's exact bytes: the signing input is
// BASE64URL(protected header) || "." || BASE64URL(payload), and the
// serialization leaves the payload out ("header..signature"). Nothing is
// canonicalized, so a verifier needs the bytes as served, not a re-encoding.
//
// Verification trusts only the keys its caller pins: a key named by the
// document or published beside it is never a reason to accept a signature.
// The package uses only the standard library.
package jose
