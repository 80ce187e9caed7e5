package jose_test

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"strings"
	"testing"

	"github.com/skillcat/skillcat/jose"
)

// The key and signature of RFC 8037 Appendix A.
const (
	rfcX         = "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"
	rfcThumb     = "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k"
	rfcPayload   = "Example of Ed25519 signing"
	rfcSignature = "eyJhbGciOiJFZERTQSJ9..hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg"
)

func TestRFC8037Vectors(t *testing.T) {
	x, _ := base64.RawURLEncoding.DecodeString(rfcX)
	if got := jose.Thumbprint(x); got != rfcThumb {
		t.Fatalf("Thumbprint = %s, want %s", got, rfcThumb)
	}
	keys, err := jose.ParsePublicKeys([]byte(`{"kty":"OKP","crv":"Ed25519","x":"` + rfcX + `"}`))
	if err != nil {
		t.Fatal(err)
	}
	if keys[0].KID != rfcThumb {
		t.Errorf("kid = %s, want the thumbprint %s", keys[0].KID, rfcThumb)
	}
	if _, err := jose.Verify(rfcSignature, []byte(rfcPayload), keys); err != nil {
		t.Errorf("RFC 8037 A.4 signature: %v", err)
	}
	if _, err := jose.Verify(rfcSignature, []byte(rfcPayload+"."), keys); !errors.Is(err, jose.ErrBadSignature) {
		t.Errorf("changed payload: got %v, want ErrBadSignature", err)
	}
}

func TestSignVerify(t *testing.T) {
	s, err := jose.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	payload := []byte(`{"protocol":{"version":"1.0.0"},"skills":[]}` + "\n")
	sig := s.Sign(payload, "skill-index+jws", 1700000000)
	if sig != s.Sign(payload, "skill-index+jws", 1700000000) {
		t.Error("two signatures of the same bytes differ")
	}
	if parts := strings.Split(sig, "."); len(parts) != 3 || parts[1] != "" {
		t.Fatalf("not a detached compact JWS: %q", sig)
	}
	h, err := jose.ParseHeader(sig)
	if err != nil || h.Alg != "EdDSA" || h.Kid != s.Public().KID || h.Typ != "skill-index+jws" || h.Iat != 1700000000 {
		t.Fatalf("header = %+v, %v", h, err)
	}
	pinned := []jose.PublicKey{s.Public()}
	if k, err := jose.Verify(sig, payload, pinned); err != nil || k.KID != s.Public().KID {
		t.Fatalf("Verify = %v, %v", k.KID, err)
	}
	t.Run("ErrEveryByte", func(t *testing.T) {
		for i := range payload {
			changed := append([]byte(nil), payload...)
			changed[i] ^= 1
			if _, err := jose.Verify(sig, changed, pinned); !errors.Is(err, jose.ErrBadSignature) {
				t.Fatalf("byte %d changed: got %v", i, err)
			}
		}
	})
	t.Run("ErrUnknownKey", func(t *testing.T) {
		other, _ := jose.GenerateKey(nil)
		if _, err := jose.Verify(sig, payload, []jose.PublicKey{other.Public()}); !errors.Is(err, jose.ErrUnknownKey) {
			t.Fatalf("got %v, want ErrUnknownKey", err)
		}
		// A forger that names the pinned kid still fails on the signature.
		forged := other.Sign(payload, "skill-index+jws", 0)
		relabeled := []jose.PublicKey{{Key: s.Public().Key, KID: other.Public().KID}}
		if _, err := jose.Verify(forged, payload, relabeled); !errors.Is(err, jose.ErrBadSignature) {
			t.Fatalf("forged signature: got %v, want ErrBadSignature", err)
		}
	})
	t.Run("ErrMalformed", func(t *testing.T) {
		protected := strings.Split(sig, ".")[0]
		none := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none"}`))
		crit := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"EdDSA","crit":["x"],"x":1}`))
		for name, text := range map[string]string{
			"empty":       "",
			"attached":    protected + "." + base64.RawURLEncoding.EncodeToString(payload) + "." + strings.Split(sig, ".")[2],
			"two parts":   protected + "." + strings.Split(sig, ".")[2],
			"alg none":    none + ".." + strings.Split(sig, ".")[2],
			"crit":        crit + ".." + strings.Split(sig, ".")[2],
			"short sig":   protected + "..AAAA",
			"not base64":  "!!!.." + strings.Split(sig, ".")[2],
			"huge":        strings.Repeat("A", jose.MaxSignatureSize+1) + "..",
			"padded b64":  protected + ".." + strings.Split(sig, ".")[2] + "==",
			"header json": base64.RawURLEncoding.EncodeToString([]byte(`[1]`)) + ".." + strings.Split(sig, ".")[2],
		} {
			if _, err := jose.Verify(text, payload, pinned); !errors.Is(err, jose.ErrMalformed) {
				t.Errorf("%s: got %v, want ErrMalformed", name, err)
			}
		}
	})
}

func TestKeys(t *testing.T) {
	s, _ := jose.GenerateKey(nil)
	pemData, err := s.MarshalPEM()
	if err != nil {
		t.Fatal(err)
	}
	back, err := jose.ParsePrivateKey(pemData)
	if err != nil || back.Public().KID != s.Public().KID {
		t.Fatalf("ParsePrivateKey round trip: %v", err)
	}
	for name, data := range map[string][]byte{
		"jwk":  jose.MarshalJWK(s.Public()),
		"jwks": jose.MarshalKeySet([]jose.PublicKey{s.Public(), s.Public()}),
		"pem":  jose.MarshalPublicPEM(s.Public()),
	} {
		keys, err := jose.ParsePublicKeys(data)
		if err != nil || len(keys) != 1 || !keys[0].Key.Equal(s.Public().Key) || keys[0].KID != s.Public().KID {
			t.Errorf("%s: got %v, %v", name, keys, err)
		}
	}
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ecDER, _ := x509.MarshalPKCS8PrivateKey(ec)
	ecPub, _ := x509.MarshalPKIXPublicKey(&ec.PublicKey)
	_, edPriv, _ := ed25519.GenerateKey(rand.Reader)
	edDER, _ := x509.MarshalPKCS8PrivateKey(edPriv)
	t.Run("ErrPrivateKinds", func(t *testing.T) {
		for name, data := range map[string][]byte{
			"ecdsa":     pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: ecDER}),
			"public":    jose.MarshalPublicPEM(s.Public()),
			"not pem":   []byte("hello"),
			"bad pkcs8": pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte("xx")}),
		} {
			if _, err := jose.ParsePrivateKey(data); err == nil {
				t.Errorf("%s: accepted", name)
			} else if strings.Contains(err.Error(), string(pemData[30:60])) {
				t.Errorf("%s: the error shows key material", name)
			}
		}
		if _, err := jose.ParsePrivateKey(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: ecDER})); !errors.Is(err, jose.ErrNotEd25519) {
			t.Errorf("ecdsa: got %v, want ErrNotEd25519", err)
		}
	})
	t.Run("ErrPublicKinds", func(t *testing.T) {
		for name, data := range map[string][]byte{
			"ecdsa pem":   pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: ecPub}),
			"private pem": pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: edDER}),
			"private jwk": []byte(`{"kty":"OKP","crv":"Ed25519","x":"` + rfcX + `","d":"nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A"}`),
			"rsa jwk":     []byte(`{"kty":"RSA","n":"AQAB","e":"AQAB"}`),
			"short x":     []byte(`{"kty":"OKP","crv":"Ed25519","x":"AAAA"}`),
			"empty set":   []byte(`{"keys":[]}`),
			"wrong alg":   []byte(`{"kty":"OKP","crv":"Ed25519","x":"` + rfcX + `","alg":"ES256"}`),
			"nothing":     []byte(""),
		} {
			if _, err := jose.ParsePublicKeys(data); err == nil {
				t.Errorf("%s: accepted", name)
			}
		}
	})
}

// TestWeakKeysRefused: a public key of small order is never pinned nor
// published. For the identity, the signature R = identity, S = 0 verifies
// (crypto/ed25519 accepts it) over every payload, so pinning such a key,
// copied from a hostile jwks.json, would let anyone sign the catalog.
// The encodings are libsodium's blocklist (ge25519_has_small_order) and
// the same points with the sign bit set.
func TestWeakKeysRefused(t *testing.T) {
	identity := make([]byte, 32)
	identity[0] = 1
	forged := append(append([]byte(nil), identity...), make([]byte, 32)...)
	if !ed25519.Verify(identity, []byte("any payload at all"), forged) {
		t.Fatal("the premise: crypto/ed25519 no longer accepts the identity's universal signature")
	}
	weak := []string{
		"0000000000000000000000000000000000000000000000000000000000000000",
		"0100000000000000000000000000000000000000000000000000000000000000",
		"26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
		"c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
		"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
		"edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
		"eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
	}
	for _, h := range weak {
		for _, sign := range []byte{0, 0x80} {
			x, _ := hex.DecodeString(h)
			x[31] |= sign
			jwk := []byte(`{"kty":"OKP","crv":"Ed25519","x":"` + base64.RawURLEncoding.EncodeToString(x) + `"}`)
			if _, err := jose.ParsePublicKeys(jwk); !errors.Is(err, jose.ErrWeakKey) {
				t.Errorf("JWK %x: got %v, want ErrWeakKey", x, err)
			}
			der, err := x509.MarshalPKIXPublicKey(ed25519.PublicKey(x))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := jose.ParsePublicKeys(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})); !errors.Is(err, jose.ErrWeakKey) {
				t.Errorf("PEM %x: got %v, want ErrWeakKey", x, err)
			}
		}
	}
	h := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"EdDSA"}`))
	universal := h + ".." + base64.RawURLEncoding.EncodeToString(forged)
	if _, err := jose.Verify(universal, []byte("any payload at all"), []jose.PublicKey{{Key: identity, KID: "k"}}); !errors.Is(err, jose.ErrBadSignature) {
		t.Errorf("Verify with an identity key pinned by hand: got %v, want ErrBadSignature", err)
	}
	for range 100 {
		s, _ := jose.GenerateKey(nil)
		if _, err := jose.ParsePublicKeys(jose.MarshalJWK(s.Public())); err != nil {
			t.Fatalf("a generated key: %v", err)
		}
	}
}

// TestHeaderNamesAreCaseSensitive: JOSE header parameter names are case
// sensitive (RFC 7515 section 4), so a header whose algorithm is named
// "ALG" or "Alg" has no alg and is refused, even when the pinned key made
// it: encoding/json would match those names to the alg field.
func TestHeaderNamesAreCaseSensitive(t *testing.T) {
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	pub := priv.Public().(ed25519.PublicKey)
	pinned := []jose.PublicKey{{Key: pub, KID: jose.Thumbprint(pub)}}
	payload := []byte(`{"protocol":{"version":"1.0.0"},"skills":[]}`)
	sign := func(header string) string {
		h := base64.RawURLEncoding.EncodeToString([]byte(header))
		in := h + "." + base64.RawURLEncoding.EncodeToString(payload)
		return h + ".." + base64.RawURLEncoding.EncodeToString(ed25519.Sign(priv, []byte(in)))
	}
	if _, err := jose.Verify(sign(`{"alg":"EdDSA"}`), payload, pinned); err != nil {
		t.Fatalf("the control: %v", err)
	}
	for _, header := range []string{
		`{"ALG":"EdDSA"}`,
		`{"Alg":"EdDSA"}`,
		`{"alg":"none","Alg":"EdDSA"}`,
		`{"alg":"EdDSA","KID":"` + jose.Thumbprint(pub) + `","kid":"other"}`,
	} {
		if _, err := jose.Verify(sign(header), payload, pinned); err == nil {
			t.Errorf("%s: accepted", header)
		}
	}
}
