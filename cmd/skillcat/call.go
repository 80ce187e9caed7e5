package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/textproto"
	"strings"
	"time"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/client"
	"github.com/skillcat/skillcat/jose"
)

// What discover, show, invoke and test-endpoints share: positional
// arguments among flags, the client's flags, usage errors, the credential
// from the environment, the skill from a catalog, and which exit code a
// failure earns.

// exitNetwork is the exit code of a failure to reach a server.
const exitNetwork = exitInternal

// DefaultCredentialEnv is the environment variable invoke and
// test-endpoints read the credential from unless --auth-env names another.
const DefaultCredentialEnv = "SKILLCAT_CREDENTIAL"

// parseArgs parses flags that may come before, between or after the
// positional arguments, and returns the positional ones, or the exit code
// to stop with (-1 to go on).
func parseArgs(e *env, fs *flag.FlagSet, args []string) ([]string, int) {
	var pos []string
	for {
		if code := parseFlags(e, fs, args); code >= 0 {
			return nil, code
		}
		if fs.NArg() == 0 {
			return pos, -1
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// The environment variables of an OAuth 2.0 client that obtains its own
// access token (the client credentials grant).
const (
	ClientIDEnv     = "SKILLCAT_CLIENT_ID"
	ClientSecretEnv = "SKILLCAT_CLIENT_SECRET"
)

// credential reads the credential for auth from the environment variable
// name: the key of an api_key, the access token of an oauth2, or the
// header lines ("Name: value", one a line) a custom auth's instructions ask
// for. For an oauth2 auth with name unset and $SKILLCAT_CLIENT_ID and
// $SKILLCAT_CLIENT_SECRET set, the access token is obtained from
// auth.token_url with the client credentials grant, for scopes. An auth of
// type none takes nothing. An unset variable gives an empty Credential;
// Invoke then says which one the skill needs. It also returns the secret
// values to keep out of what is printed.
func credential(ctx context.Context, e *env, c *client.Client, auth skillcat.Auth, name string, scopes []string) (client.Credential, []string, error) {
	cred, err := envCredential(e, auth, name)
	if err != nil || auth.Type != skillcat.AuthOAuth2 || cred.Secret != "" {
		return cred, secrets(cred), err
	}
	id, secret := e.getenv(ClientIDEnv), e.getenv(ClientSecretEnv)
	if id == "" || secret == "" {
		return cred, nil, nil
	}
	hide := basicSecrets(id, secret)
	token, err := c.ClientCredentials(ctx, auth.TokenURL, id, secret, scopes)
	if err != nil {
		return cred, hide, fmt.Errorf("$%s and $%s: %w", ClientIDEnv, ClientSecretEnv, err)
	}
	cred.Secret = token
	return cred, longestFirst(append(hide, secrets(cred)...)), nil
}

// envCredential reads a credential from the environment variable name.
func envCredential(e *env, auth skillcat.Auth, name string) (client.Credential, error) {
	v := e.getenv(name)
	if v == "" || auth.Type == skillcat.AuthNone {
		return client.Credential{}, nil
	}
	if auth.Type != skillcat.AuthCustom {
		return client.Credential{Secret: strings.TrimSpace(v)}, nil
	}
	h := http.Header{}
	for i, line := range strings.Split(strings.TrimSpace(v), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		k, val, ok := strings.Cut(line, ":")
		k = strings.TrimSpace(k)
		if !ok || k == "" || strings.ContainsAny(k, " \t") {
			return client.Credential{}, fmt.Errorf("$%s line %d: want a header line \"Name: value\" for the custom auth (the value is not shown)", name, i+1)
		}
		h.Add(textproto.CanonicalMIMEHeaderKey(k), strings.TrimSpace(val))
	}
	return client.Credential{Header: h}, nil
}

// clientFlags are the flags of every command that reads a published
// catalog (discover, show, invoke): the time allowed for each request and
// the keys the index must be signed by.
type clientFlags struct {
	timeout    time.Duration
	verifyKeys stringList
}

// addClientFlags adds --timeout and --verify-key to fs.
func addClientFlags(fs *flag.FlagSet) *clientFlags {
	f := &clientFlags{}
	fs.DurationVar(&f.timeout, "timeout", client.DefaultTimeout, "time allowed for each request, body included")
	fs.Var(&f.verifyKeys, "verify-key", "require the index to be signed by this pinned public key `file` (JWK, JWK Set or PEM); repeatable")
	return f
}

// problem returns what is wrong with the flags' values, or "".
func (f *clientFlags) problem() string {
	if f.timeout <= 0 {
		return fmt.Sprintf("--timeout must be positive; got %v", f.timeout)
	}
	return ""
}

// client returns the client the flags describe.
func (f *clientFlags) client() *client.Client {
	return &client.Client{Timeout: f.timeout, UserAgent: client.UserAgent(Version)}
}

// pinned reads the public keys of every --verify-key file, or prints why
// one cannot be read and returns the exit code (-1 to go on).
func (f *clientFlags) pinned(e *env) ([]jose.PublicKey, int) {
	var pinned []jose.PublicKey
	for _, name := range f.verifyKeys {
		keys, code := readPublicKeys(e, "--verify-key", name)
		if code >= 0 {
			return nil, code
		}
		pinned = append(pinned, keys...)
	}
	return pinned, -1
}

// usageError returns how command cmd reports a usage error: the problem,
// a pointer to --help, and exit code 2.
func usageError(e *env, cmd string) func(format string, a ...any) int {
	return func(format string, a ...any) int {
		fmt.Fprintf(e.stderr, "skillcat: "+cmd+": "+format+"\n", a...)
		fmt.Fprintln(e.stderr, "Run \"skillcat "+cmd+" --help\" for usage.")
		return exitUsage
	}
}

// findSkill discovers the skill id of the catalog at baseURL, its digest
// verified, and the index's signature too: by one of the keys of the
// --verify-key files when any is given, and whenever the index is signed.
// On failure it prints the problem and returns the exit code: 2 for an id
// the catalog does not list or an unreadable key file, 3 when the catalog
// could not be reached, 1 otherwise.
func findSkill(ctx context.Context, e *env, cmd string, c *client.Client, f *clientFlags, baseURL, id string) (*client.VerifiedSkill, int) {
	pinned, code := f.pinned(e)
	if code >= 0 {
		return nil, code
	}
	s, err := c.DiscoverSkill(ctx, baseURL, id, client.DiscoverOptions{VerifyKeys: pinned, CheckSignature: true})
	if err == nil {
		for _, v := range s.Warnings {
			fmt.Fprintf(e.stderr, "skillcat: %s: %s: %s\n", cmd, id, printable(v.Error()))
		}
		return s, -1
	}
	for _, line := range strings.Split(err.Error(), "\n") {
		fmt.Fprintf(e.stderr, "skillcat: %s: %s\n", cmd, printable(line))
	}
	switch {
	case errors.Is(err, client.ErrNotListed):
		return nil, exitUsage
	case isNetwork(err):
		return nil, exitNetwork
	}
	return nil, exitInvalid
}

// isNetwork reports whether err is a failure to reach a server or to hear
// from it in time, rather than something wrong with what it said.
func isNetwork(err error) bool {
	var ne net.Error
	var oe *net.OpError
	return errors.As(err, &ne) || errors.As(err, &oe) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, client.ErrStillRunning)
}

// catalogArg checks a catalog URL argument as discover does.
func catalogArg(raw string) error {
	if !strings.Contains(raw, "://") {
		return fmt.Errorf("%q has no scheme; write the catalog's address in full, such as https://%s/ (http:// only for a local site)", raw, strings.TrimSuffix(raw, "/"))
	}
	_, err := client.IndexURL(raw)
	return err
}
