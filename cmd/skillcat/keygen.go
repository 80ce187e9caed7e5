package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/skillcat/skillcat/jose"
)

func init() {
	commands["keygen"] = command{summary: "make a new Ed25519 key for signing a catalog", run: runKeygen}
}

// runKeygen writes a new private key (PEM, PKCS#8, mode 0600) to --out and
// prints its public key as a JWK on stdout. It never overwrites a file.
func runKeygen(ctx context.Context, e *env, args []string) int {
	fs := newFlags(e, "keygen", "--out FILE")
	out := fs.String("out", "", "the `file` to write the new private key to (it must not exist)")
	if code := parseFlags(e, fs, args); code >= 0 {
		return code
	}
	switch {
	case fs.NArg() > 0:
		fmt.Fprintf(e.stderr, "skillcat keygen: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	case *out == "":
		fmt.Fprintln(e.stderr, "skillcat keygen: --out FILE is required: where to write the private key")
		return exitUsage
	}
	s, err := jose.GenerateKey(nil)
	if err != nil {
		fmt.Fprintf(e.stderr, "skillcat keygen: %v\n", err)
		return exitInternal
	}
	pemData, err := s.MarshalPEM()
	if err != nil {
		fmt.Fprintf(e.stderr, "skillcat keygen: %v\n", err)
		return exitInternal
	}
	if dir := filepath.Dir(*out); dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			fmt.Fprintf(e.stderr, "skillcat keygen: %v\n", err)
			return exitInternal
		}
	}
	f, err := os.OpenFile(*out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		fmt.Fprintf(e.stderr, "skillcat keygen: %s already exists; refusing to overwrite a key (choose another --out)\n", *out)
		return exitUsage
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "skillcat keygen: %v\n", err)
		return exitInternal
	}
	if _, err := f.Write(pemData); err != nil {
		f.Close()
		os.Remove(*out)
		fmt.Fprintf(e.stderr, "skillcat keygen: write %s: %v\n", *out, err)
		return exitInternal
	}
	if err := f.Close(); err != nil {
		os.Remove(*out)
		fmt.Fprintf(e.stderr, "skillcat keygen: write %s: %v\n", *out, err)
		return exitInternal
	}
	e.stdout.Write(jose.MarshalJWK(s.Public()))
	fmt.Fprintf(e.stderr, "skillcat keygen: wrote the private key to %s (mode 0600); keep it secret, e.g. as the CI secret SKILLCAT_SIGN_KEY.\n", *out)
	fmt.Fprintln(e.stderr, "skillcat keygen: the public key, written to standard output (kid "+s.Public().KID+"), is what consumers pin with discover --verify-key.")
	return exitOK
}
