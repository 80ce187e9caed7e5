package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing/fstest"

	"github.com/skillcat/skillcat/build"
	"github.com/skillcat/skillcat/client"
	"github.com/skillcat/skillcat/jose"
)

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ", ") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

// signEnv is the environment variable that holds the signing key's PEM
// itself, as a CI secret does.
const signEnv = "SKILLCAT_SIGN_KEY"

// signing loads the signing key (--sign-key FILE, or the PEM in
// SKILLCAT_SIGN_KEY) and the extra public keys into cfg. Messages name the
// file or variable, never the key. It returns the exit code to stop with,
// or -1 to go on.
func signing(e *env, cfg *build.Config, keyFile string, publish []string) int {
	var pemData []byte
	where := ""
	switch {
	case keyFile != "":
		data, err := os.ReadFile(keyFile)
		if err != nil {
			fmt.Fprintf(e.stderr, "skillcat: --sign-key: %v\n", err)
			return exitUsage
		}
		pemData, where = data, "--sign-key "+keyFile
	case e.getenv(signEnv) != "":
		pemData, where = []byte(e.getenv(signEnv)), signEnv
	}
	if pemData != nil {
		s, err := jose.ParsePrivateKey(pemData)
		if err != nil {
			fmt.Fprintf(e.stderr, "skillcat: %s: %v\n", where, err)
			return exitUsage
		}
		cfg.Signer = s
	}
	for _, name := range publish {
		keys, code := readPublicKeys(e, "--publish-key", name)
		if code >= 0 {
			return code
		}
		cfg.PublishKeys = append(cfg.PublishKeys, keys...)
	}
	return -1
}

// readPublicKeys reads a JWK, JWK Set or PEM public key file.
func readPublicKeys(e *env, flag, name string) ([]jose.PublicKey, int) {
	data, err := os.ReadFile(name)
	if err != nil {
		fmt.Fprintf(e.stderr, "skillcat: %s: %v\n", flag, err)
		return nil, exitUsage
	}
	keys, err := jose.ParsePublicKeys(data)
	if err != nil {
		fmt.Fprintf(e.stderr, "skillcat: %s %s: %v\n", flag, name, err)
		return nil, exitUsage
	}
	return keys, -1
}

// previousFeed sets where the change feed's history comes from: a folder
// (a copy of the site), or the live site, fetched with the careful client.
func previousFeed(ctx context.Context, e *env, cfg *build.Config, previous []string) int {
	switch {
	case len(previous) == 0:
		return -1
	case len(previous) > 1:
		fmt.Fprintln(e.stderr, "skillcat: --previous may be given once")
		return exitUsage
	}
	p := previous[0]
	if !strings.Contains(p, "://") {
		if info, err := os.Stat(p); err != nil || !info.IsDir() {
			fmt.Fprintf(e.stderr, "skillcat: --previous %q: not a folder (give a copy of the site, or its URL)\n", p)
			return exitUsage
		}
		cfg.Previous = os.DirFS(p)
		return -1
	}
	c := &client.Client{UserAgent: client.UserAgent(Version)}
	docs, err := c.FeedDocuments(ctx, p)
	if err != nil {
		fmt.Fprintf(e.stderr, "skillcat: --previous %s: %s\n", printable(redactURL(p)), printable(err.Error()))
		return exitInternal
	}
	if len(docs) == 0 {
		fmt.Fprintf(e.stderr, "skillcat: note: %s serves no change feed yet; this build starts one\n", printable(p))
	}
	fsys := fstest.MapFS{}
	for name, data := range docs {
		fsys[name] = &fstest.MapFile{Data: data}
	}
	cfg.Previous = fsys
	return -1
}
