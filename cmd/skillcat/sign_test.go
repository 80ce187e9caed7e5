package main

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"io/fs"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillcat/skillcat/internal/treetest"
	"github.com/skillcat/skillcat/jose"
)

// keygen runs skillcat keygen into dir and returns the key file, the
// public JWK file and the key.
func keygen(t *testing.T, dir string) (keyFile, jwkFile string, key *jose.Signer) {
	t.Helper()
	keyFile, jwkFile = filepath.Join(dir, "key.pem"), filepath.Join(dir, "key.jwk")
	code, stdout, stderr := runSkillcat(t, nil, "keygen", "--out", keyFile)
	if code != 0 {
		t.Fatalf("keygen: exit %d: %s", code, stderr)
	}
	if err := os.WriteFile(jwkFile, []byte(stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(keyFile)
	key, err := jose.ParsePrivateKey(data)
	if err != nil {
		t.Fatalf("the key keygen wrote: %v", err)
	}
	return keyFile, jwkFile, key
}

func TestKeygen(t *testing.T) {
	dir := t.TempDir()
	keyFile, jwkFile, key := keygen(t, dir)
	info, err := os.Stat(keyFile)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode: %v, %v; want 0600", info.Mode(), err)
	}
	var jwk map[string]string
	data, _ := os.ReadFile(jwkFile)
	if err := json.Unmarshal(data, &jwk); err != nil {
		t.Fatalf("stdout is not a JWK: %v\n%s", err, data)
	}
	want := map[string]string{"kty": "OKP", "crv": "Ed25519", "alg": "EdDSA", "use": "sig", "kid": jose.Thumbprint(key.Public().Key)}
	for k, v := range want {
		if jwk[k] != v {
			t.Errorf("JWK %s: got %q, want %q", k, jwk[k], v)
		}
	}
	if _, ok := jwk["d"]; ok {
		t.Error("the printed JWK holds the private key")
	}
	before, _ := os.ReadFile(keyFile)
	if code, _, stderr := runSkillcat(t, nil, "keygen", "--out", keyFile); code != exitUsage || !strings.Contains(stderr, "refusing to overwrite") {
		t.Errorf("keygen over an existing key: exit %d, %s", code, stderr)
	}
	if after, _ := os.ReadFile(keyFile); !bytes.Equal(before, after) {
		t.Error("keygen overwrote an existing key")
	}
	if code, _, _ := runSkillcat(t, nil, "keygen"); code != exitUsage {
		t.Errorf("keygen without --out: exit %d, want %d", code, exitUsage)
	}
}

// TestSignedBuild signs the sample catalog, checks the signatures and
// that no byte of the private key reaches the output, the cache or the
// log, then verifies the served site with discover --verify-key, and with
// every way a signature can be refused.
func TestSignedBuild(t *testing.T) {
	dir := t.TempDir()
	keyFile, jwkFile, key := keygen(t, dir)
	pemData, _ := os.ReadFile(keyFile)
	out := filepath.Join(dir, "site", "public")
	environ := map[string]string{"SOURCE_DATE_EPOCH": "1700000000"}
	code, stdout, stderr := runSkillcat(t, environ, "build", "--content", sampleContent, "--out", out, "--sign-key", keyFile)
	if code != 0 {
		t.Fatalf("build --sign-key: exit %d: %s", code, stderr)
	}
	signed := []string{".well-known/skills.json", "types/api.json", "types/knowledge.json", "types/plugin.json", "types/task.json"}
	pinned := []jose.PublicKey{key.Public()}
	for _, doc := range signed {
		payload, err := os.ReadFile(filepath.Join(out, doc))
		if err != nil {
			t.Fatal(err)
		}
		sig, err := os.ReadFile(filepath.Join(out, doc+".jws"))
		if err != nil {
			t.Fatalf("%s has no signature: %v", doc, err)
		}
		h, err := jose.ParseHeader(string(sig))
		if err != nil || h.Alg != "EdDSA" || h.Kid != key.Public().KID || h.Typ == "" || h.Iat != 1700000000 {
			t.Errorf("%s.jws header: %+v, %v", doc, h, err)
		}
		if _, err := jose.Verify(string(sig), payload, pinned); err != nil {
			t.Errorf("%s.jws: %v", doc, err)
		}
	}
	jwks, err := os.ReadFile(filepath.Join(out, ".well-known", "jwks.json"))
	if err != nil {
		t.Fatal(err)
	}
	if keys, err := jose.ParsePublicKeys(jwks); err != nil || len(keys) != 1 || keys[0].KID != key.Public().KID {
		t.Errorf("jwks.json: %v, %v", keys, err)
	}
	headers, _ := os.ReadFile(filepath.Join(out, "_headers"))
	for _, want := range []string{"/*.jws\n  Content-Type: application/jose", "/.well-known/jwks.json\n  Content-Type: application/jwk-set+json"} {
		if !bytes.Contains(headers, []byte(want)) {
			t.Errorf("_headers lacks %q", want)
		}
	}

	t.Run("SecretNowhere", func(t *testing.T) {
		block, _ := pem.Decode(pemData)
		secrets := [][]byte{pemData, bytes.TrimSpace(bytes.Split(pemData, []byte("\n"))[1]), block.Bytes[len(block.Bytes)-32:]}
		for _, text := range []string{stdout, stderr} {
			for _, s := range secrets {
				if bytes.Contains([]byte(text), s) {
					t.Fatal("the build's log shows the private key")
				}
			}
		}
		filepath.WalkDir(filepath.Dir(out), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, _ := os.ReadFile(p)
			for _, s := range secrets {
				if bytes.Contains(data, s) {
					t.Errorf("%s holds the private key", p)
				}
			}
			return nil
		})
	})

	t.Run("EnvironmentKeyDeterministic", func(t *testing.T) {
		other := filepath.Join(t.TempDir(), "public")
		env := map[string]string{"SOURCE_DATE_EPOCH": "1700000000", signEnv: string(pemData)}
		if code, _, stderr := runSkillcat(t, env, "build", "--content", sampleContent, "--out", other, "--no-cache", "--quiet"); code != 0 {
			t.Fatalf("build with %s: exit %d: %s", signEnv, code, stderr)
		}
		if d := treetest.Diff(treeSums(t, other, false), treeSums(t, out, false)); d != "" {
			t.Errorf("a build signed from the environment differs from one signed from the file:\n%s", d)
		}
	})

	t.Run("ErrNotEd25519", func(t *testing.T) {
		ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		der, _ := x509.MarshalPKCS8PrivateKey(ec)
		bad := filepath.Join(t.TempDir(), "ec.pem")
		os.WriteFile(bad, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600)
		code, _, stderr := runSkillcat(t, nil, "build", "--content", sampleContent, "--out", filepath.Join(t.TempDir(), "p"), "--sign-key", bad)
		if code != exitUsage || !strings.Contains(stderr, "Ed25519") {
			t.Errorf("ECDSA key: exit %d, %s; want exit 2 naming Ed25519", code, stderr)
		}
		code, _, stderr = runSkillcat(t, map[string]string{signEnv: "not a key"}, "build", "--content", sampleContent, "--out", filepath.Join(t.TempDir(), "p"))
		if code != exitUsage || !strings.Contains(stderr, signEnv) || strings.Contains(stderr, "not a key") {
			t.Errorf("bad %s: exit %d, %s; want exit 2 naming the variable, not its value", signEnv, code, stderr)
		}
	})

	srv := httptest.NewServer(staticHost(out))
	defer srv.Close()
	t.Run("Verified", func(t *testing.T) {
		code, stdout, stderr := runCmd(t, "discover", srv.URL, "--verify-key", jwkFile)
		if code != 0 || !strings.Contains(stderr, "verifies with the pinned key "+key.Public().KID) || !strings.Contains(stdout, "geocode.address") {
			t.Fatalf("discover --verify-key: exit %d\n%s\n%s", code, stdout, stderr)
		}
		pub := filepath.Join(t.TempDir(), "pub.pem")
		os.WriteFile(pub, jose.MarshalPublicPEM(key.Public()), 0o644)
		if code, _, stderr := runCmd(t, "discover", srv.URL, "--verify-key", pub); code != 0 {
			t.Errorf("discover --verify-key PEM: exit %d: %s", code, stderr)
		}
		if code, _, stderr := runCmd(t, "discover", srv.URL+"/types/api.json", "--verify-key", jwkFile); code != 0 {
			t.Errorf("discover of a signed type index: exit %d: %s", code, stderr)
		}
	})
	t.Run("UnverifiedSaysKid", func(t *testing.T) {
		code, _, stderr := runCmd(t, "discover", srv.URL)
		if code != 0 || !strings.Contains(stderr, "signed by key "+key.Public().KID) {
			t.Errorf("discover without a key: exit %d, %s", code, stderr)
		}
	})

	refused := func(t *testing.T, site string, key string) string {
		t.Helper()
		srv := httptest.NewServer(staticHost(site))
		defer srv.Close()
		code, stdout, stderr := runCmd(t, "discover", srv.URL, "--verify-key", key)
		if code != exitInvalid || !strings.Contains(stderr, "signature") || stdout != "" {
			t.Fatalf("exit %d, want 1 with a message about the signature and nothing listed\nstdout: %s\nstderr: %s", code, stdout, stderr)
		}
		return stderr
	}
	t.Run("ErrWrongKey", func(t *testing.T) {
		_, otherJWK, _ := keygen(t, t.TempDir())
		refused(t, out, otherJWK)
	})
	t.Run("ErrMissing", func(t *testing.T) {
		site := filepath.Join(t.TempDir(), "public")
		copyTree(t, out, site)
		os.Remove(filepath.Join(site, ".well-known", "skills.json.jws"))
		refused(t, site, jwkFile)
	})
	t.Run("ErrOneByte", func(t *testing.T) {
		site := filepath.Join(t.TempDir(), "public")
		copyTree(t, out, site)
		p := filepath.Join(site, ".well-known", "skills.json")
		data, _ := os.ReadFile(p)
		os.WriteFile(p, bytes.Replace(data, []byte("Geocoding"), []byte("Geocodinh"), 1), 0o644)
		refused(t, site, jwkFile)
	})
	t.Run("ErrDescriptorChanged", func(t *testing.T) {
		// The signature covers each descriptor through its digest.
		site := filepath.Join(t.TempDir(), "public")
		copyTree(t, out, site)
		p := filepath.Join(site, "skills", "geocode.address.json")
		data, _ := os.ReadFile(p)
		os.WriteFile(p, bytes.Replace(data, []byte("Geocoding"), []byte("Geocodinh"), 1), 0o644)
		srv := httptest.NewServer(staticHost(site))
		defer srv.Close()
		code, _, stderr := runCmd(t, "discover", srv.URL, "--verify-key", jwkFile)
		if code != exitInvalid || !strings.Contains(stderr, "geocode.address") || !strings.Contains(stderr, "digest mismatch") {
			t.Errorf("changed descriptor: exit %d, %s", code, stderr)
		}
	})
	t.Run("ErrPinnedKeyIsPrivate", func(t *testing.T) {
		code, _, stderr := runCmd(t, "discover", srv.URL, "--verify-key", keyFile)
		if code != exitUsage || !strings.Contains(stderr, "never pinned") {
			t.Errorf("a private key as --verify-key: exit %d, %s", code, stderr)
		}
	})

	// An implementation of JOSE independent of ours verifies the build.
	t.Run("CrossCheckJose", func(t *testing.T) {
		script := filepath.Join("..", "..", "scripts", "josecheck")
		if _, err := exec.LookPath("node"); err != nil || !exists(filepath.Join(script, "node_modules", "jose")) {
			if os.Getenv("CI") != "" {
				t.Fatalf("the jose cross-check cannot run in CI: node or %s/node_modules missing; CI must run: npm ci --prefix %s", script, script)
			}
			t.Skipf("jose cross-check skipped: node or %s/node_modules missing; run: cd %s && npm ci", script, script)
		}
		cmd := exec.Command("node", filepath.Join(script, "verify.mjs"), out, jwkFile)
		report, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(report), "5 passed, 0 failed") {
			t.Fatalf("jose refused the signatures: %v\n%s", err, report)
		}
		site := filepath.Join(t.TempDir(), "public")
		copyTree(t, out, site)
		p := filepath.Join(site, "types", "api.json")
		data, _ := os.ReadFile(p)
		os.WriteFile(p, append(data, ' '), 0o644)
		if report, err := exec.Command("node", filepath.Join(script, "verify.mjs"), site, jwkFile).CombinedOutput(); err == nil {
			t.Fatalf("jose accepted a changed document:\n%s", report)
		}
	})
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// TestKeygenSaysWhereThePublicKeyIs: the public key goes to standard
// output, which the README redirects to a file (> public-key.jwk), so the
// note on stderr must not call it "the public key above".
func TestKeygenSaysWhereThePublicKeyIs(t *testing.T) {
	code, _, stderr := runSkillcat(t, nil, "keygen", "--out", filepath.Join(t.TempDir(), "key.pem"))
	if code != 0 || strings.Contains(stderr, "above") || !strings.Contains(stderr, "written to standard output") {
		t.Errorf("keygen: exit %d, stderr %q; want the public key said to be on standard output", code, stderr)
	}
}
