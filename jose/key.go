package jose

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"slices"
)

// b64 is the unpadded base64url encoding of JOSE, strict about trailing bits.
var b64 = base64.RawURLEncoding.Strict()

// ErrNotEd25519 is wrapped by the error for a key of another algorithm.
var ErrNotEd25519 = errors.New("not an Ed25519 key")

// Signer signs with one Ed25519 private key. It never prints or encodes
// the private key except through MarshalPEM.
type Signer struct {
	key ed25519.PrivateKey
	pub PublicKey
}

// GenerateKey makes a new Ed25519 key from r (crypto/rand when nil).
func GenerateKey(r io.Reader) (*Signer, error) {
	if r == nil {
		r = rand.Reader
	}
	_, priv, err := ed25519.GenerateKey(r)
	if err != nil {
		return nil, fmt.Errorf("generate key: %w", err)
	}
	return newSigner(priv), nil
}

func newSigner(priv ed25519.PrivateKey) *Signer {
	pub := priv.Public().(ed25519.PublicKey)
	return &Signer{key: priv, pub: PublicKey{Key: pub, KID: Thumbprint(pub)}}
}

// ParsePrivateKey reads an Ed25519 private key from PEM ("PRIVATE KEY",
// PKCS#8). Any other kind of key or block is refused with a message that
// says what it is, never with the key's bytes.
func ParsePrivateKey(data []byte) (*Signer, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, errors.New("no PEM block found: want an Ed25519 private key as written by skillcat keygen (-----BEGIN PRIVATE KEY-----)")
	}
	if block.Type != "PRIVATE KEY" {
		return nil, fmt.Errorf("PEM block is %q: want \"PRIVATE KEY\" (PKCS#8) holding an Ed25519 key", block.Type)
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, errors.New("PEM block is not a valid PKCS#8 private key")
	}
	priv, ok := k.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("%w: the key is a %T", ErrNotEd25519, k)
	}
	return newSigner(priv), nil
}

// MarshalPEM encodes the private key as PKCS#8 PEM.
func (s *Signer) MarshalPEM() ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(s.key)
	if err != nil {
		return nil, fmt.Errorf("encode private key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}

// Public returns the signer's public key, with its thumbprint as key id.
func (s *Signer) Public() PublicKey { return s.pub }

// PublicKey is an Ed25519 public key and its key id, the RFC 7638
// thumbprint unless a JWK named another.
type PublicKey struct {
	Key ed25519.PublicKey
	KID string
}

// JWK is an Ed25519 public key as a JSON Web Key (RFC 8037), members in
// this order.
type JWK struct {
	Kty string `json:"kty"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	Kid string `json:"kid,omitempty"`
	Alg string `json:"alg,omitempty"`
	Use string `json:"use,omitempty"`
}

// JWK returns k as a JSON Web Key for signatures with EdDSA.
func (k PublicKey) JWK() JWK {
	return JWK{Kty: "OKP", Crv: "Ed25519", X: b64.EncodeToString(k.Key), Kid: k.KID, Alg: "EdDSA", Use: "sig"}
}

// Thumbprint is the RFC 7638 thumbprint of an Ed25519 public key: the
// base64url SHA-256 of its required JWK members in lexicographic order.
func Thumbprint(pub ed25519.PublicKey) string {
	sum := sha256.Sum256([]byte(`{"crv":"Ed25519","kty":"OKP","x":"` + b64.EncodeToString(pub) + `"}`))
	return b64.EncodeToString(sum[:])
}

// MarshalJWK encodes a public key as one JWK document.
func MarshalJWK(k PublicKey) []byte {
	data, _ := json.MarshalIndent(k.JWK(), "", "  ")
	return append(data, '\n')
}

// MarshalKeySet encodes keys as a JWK Set ({"keys": [...]}), in the order
// given, each key once.
func MarshalKeySet(keys []PublicKey) []byte {
	set := struct {
		Keys []JWK `json:"keys"`
	}{Keys: []JWK{}}
	var seen []string
	for _, k := range keys {
		if slices.Contains(seen, k.KID) {
			continue
		}
		seen = append(seen, k.KID)
		set.Keys = append(set.Keys, k.JWK())
	}
	data, _ := json.MarshalIndent(set, "", "  ")
	return append(data, '\n')
}

// ParsePublicKeys reads the public keys a verifier pins: a JWK, a JWK Set,
// or one or more PEM "PUBLIC KEY" blocks (PKIX). Every key must be
// Ed25519; a JWK's key id is kept when it has one, and is its thumbprint
// otherwise. A private key is refused, so that it is not pinned (and
// copied around) by mistake, and so is a key of small order (ErrWeakKey),
// for which anyone can make a signature that verifies.
func ParsePublicKeys(data []byte) ([]PublicKey, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '{' {
		return parseJWKDocument(trimmed)
	}
	var keys []PublicKey
	rest := trimmed
	for {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if block.Type != "PUBLIC KEY" {
			return nil, fmt.Errorf("PEM block is %q: want \"PUBLIC KEY\" (a private key is never pinned)", block.Type)
		}
		k, err := x509.ParsePKIXPublicKey(block.Bytes)
		if err != nil {
			return nil, errors.New("PEM block is not a valid PKIX public key")
		}
		pub, ok := k.(ed25519.PublicKey)
		if !ok {
			return nil, fmt.Errorf("%w: the key is a %T", ErrNotEd25519, k)
		}
		if smallOrder(pub) {
			return nil, fmt.Errorf("the PEM public key is %w", ErrWeakKey)
		}
		keys = append(keys, PublicKey{Key: pub, KID: Thumbprint(pub)})
	}
	if len(keys) == 0 {
		return nil, errors.New("no key found: want a JWK, a JWK Set or a PEM public key")
	}
	return keys, nil
}

// MarshalPublicPEM encodes a public key as a PEM "PUBLIC KEY" block.
func MarshalPublicPEM(k PublicKey) []byte {
	der, _ := x509.MarshalPKIXPublicKey(k.Key)
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}

// rawJWK is a JWK as read, with the members a private key would carry.
type rawJWK struct {
	Kty string `json:"kty"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	D   string `json:"d"`
	Kid string `json:"kid"`
	Alg string `json:"alg"`
	Use string `json:"use"`
}

func parseJWKDocument(data []byte) ([]PublicKey, error) {
	var doc struct {
		Keys []rawJWK `json:"keys"`
		rawJWK
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("not a JWK or JWK Set: %w", err)
	}
	raws := doc.Keys
	if raws == nil {
		raws = []rawJWK{doc.rawJWK}
	}
	keys := make([]PublicKey, 0, len(raws))
	for i, r := range raws {
		k, err := r.publicKey()
		if err != nil {
			if doc.Keys != nil {
				return nil, fmt.Errorf("keys[%d]: %w", i, err)
			}
			return nil, err
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return nil, errors.New("the JWK Set holds no keys")
	}
	return keys, nil
}

func (r rawJWK) publicKey() (PublicKey, error) {
	switch {
	case r.D != "":
		return PublicKey{}, errors.New("the JWK holds a private key (\"d\"); pin the public key only")
	case r.Kty != "OKP" || r.Crv != "Ed25519":
		return PublicKey{}, fmt.Errorf("%w: kty %q, crv %q (want OKP, Ed25519)", ErrNotEd25519, r.Kty, r.Crv)
	case r.Alg != "" && r.Alg != "EdDSA":
		return PublicKey{}, fmt.Errorf("the JWK is for alg %q; want EdDSA", r.Alg)
	case r.Use != "" && r.Use != "sig":
		return PublicKey{}, fmt.Errorf("the JWK is for use %q; want sig", r.Use)
	}
	x, err := b64.DecodeString(r.X)
	if err != nil || len(x) != ed25519.PublicKeySize {
		return PublicKey{}, errors.New("the JWK's \"x\" is not a base64url Ed25519 public key of 32 bytes")
	}
	if smallOrder(x) {
		return PublicKey{}, fmt.Errorf("the JWK's \"x\" is %w", ErrWeakKey)
	}
	kid := r.Kid
	if kid == "" {
		kid = Thumbprint(x)
	}
	return PublicKey{Key: ed25519.PublicKey(x), KID: kid}, nil
}
