// Package client is the consumer side of the Skill Sharing Protocol: it
// discovers a provider's published catalog over HTTP, verifies every
// descriptor it lists, checks invocation requests before they are sent, and
// invokes skills.
// It imports the protocol package and the standard library only.
//
// # Discovery
//
// Discover fetches a provider's SkillIndex from /.well-known/skills.json,
// then every descriptor the index lists, and returns a Catalog of verified
// skills:
//
//	index URL ──GET──► version rule ──► ParseIndex ──► type filter
//	    │
//	    └──► for each entry, at most Concurrency at a time:
//	         resolve descriptor_url ──GET──► sha256 digest ──► version rule
//	         ──► ParseDescriptor ──► id, name, version, type and access
//	         agree with the entry ──► VerifiedSkill
//
// A problem with the index stops discovery. A problem with a descriptor is
// recorded and the others are still verified, so Discover returns the good
// skills together with a *DiscoveryError listing every bad one. Skills and
// problems are ordered by id.
//
// # Versions
//
// A document whose protocol major is above Client.SupportedMajor is an error
// wrapping skillcat.ErrIncompatibleVersion that names both versions, and
// nothing else of it is processed. A lower or equal major is processed; but
// this package validates only the documents of protocol major
// skillcat.SupportedMajor, so a document of a higher major that a client has
// been told to accept is an error wrapping ErrUnknownMajor.
//
// # Safety
//
// Every document comes from a stranger, so every fetch is bounded:
//
//   - URLs must be https; plain http is accepted only for loopback hosts
//     (localhost, 127.0.0.0/8, ::1), so that a local preview works. A
//     non-loopback http URL fails before any network access.
//   - At most five redirects are followed, never from https to http, and a
//     descriptor listed by an https index must be https too.
//   - A response must be 200 OK with a JSON media type (application/json or
//     any +json type); an HTML page is rejected.
//   - A response body is read up to MaxBytes; a longer one is an error.
//   - Each request, body included, must complete within Timeout.
//   - A document's checks against its own schemas have a budget of
//     skillcat.MaxValidationSteps and its numbers are bounded
//     (skillcat.CheckNumber), so no document can make verification take
//     exponential time or crash it.
//
// Discovery as a whole is bounded too, whatever the catalog holds: it
// ends within Deadline (DefaultDeadline, 10 minutes), and it stops fetching
// once MaxFailures descriptors in a row (DefaultMaxFailures, 20) could not
// be fetched, which a server that trickles its bytes causes within about
// MaxFailures/Concurrency × Timeout (90 seconds with the defaults), and
// once the descriptors it fetched pass MaxTotalBytes (DefaultMaxTotalBytes,
// 1 GiB), since it holds every one. The descriptors not verified then are
// each a problem wrapping ErrStopped.
// No panic escapes this package: one while verifying a document is that
// document's problem.
//
// # Invocation
//
// Invoke calls a skill over the HTTP binding of docs/protocol.md
// ("Invocation over HTTP"), with the same transport and limits:
//
//	inputs ──► CheckRequest (nothing sent if invalid) ──► JSON body, or query for GET/DELETE
//	       ──► credential where auth.type puts it ──► ParseResponse ──► skill_id, output schema
//	       ──► accepted/running: poll Location (Retry-After) until terminal or Wait
//
// A credential goes only to the endpoint's origin: a redirect to another
// origin drops every header but Accept, User-Agent and Content-Type, and a
// status URL on another origin is refused. Poll resumes an execution from
// its status URL.
package client

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	skillcat "github.com/skillcat/skillcat"
)

// Defaults of a Client whose fields are left zero.
const (
	DefaultMaxBytes    = 10 << 20 // 10 MiB per document
	DefaultConcurrency = 8
	DefaultTimeout     = 30 * time.Second
	DefaultDeadline    = 10 * time.Minute
	DefaultMaxFailures = 20

	// DefaultMaxTotalBytes bounds the descriptors one Discover (or
	// Changes) fetches, 1 GiB: a 100,000-skill catalog of 4 KB descriptors
	// holds 400 MB, and a hostile index of 3,000 descriptors of 1 MB each
	// made skillcat discover hold 8.3 GB before it was there.
	DefaultMaxTotalBytes = 1 << 30

	// MaxRedirects is how many redirects one fetch follows.
	MaxRedirects = 5
)

// The errors a discovery problem may wrap, for errors.Is.
var (
	// ErrHTTPSRequired means a URL is plain http on a host that is not a
	// loopback host.
	ErrHTTPSRequired = errors.New("https required")

	// ErrRedirect means a redirect was refused: too many of them, or one
	// from https to http.
	ErrRedirect = errors.New("redirect refused")

	// ErrContentType means a response's Content-Type is not JSON.
	ErrContentType = errors.New("unexpected Content-Type")

	// ErrTooLarge means a response body is longer than Client.MaxBytes.
	ErrTooLarge = errors.New("response too large")

	// ErrDigestMismatch means the bytes served at a descriptor_url do not
	// hash to the digest its index entry gives.
	ErrDigestMismatch = errors.New("digest mismatch")

	// ErrEntryMismatch means a descriptor's id, name, version,
	// capability_type or access differs from its index entry.
	ErrEntryMismatch = errors.New("descriptor does not match its index entry")

	// ErrUnknownMajor means a document's protocol major is accepted by the
	// client's SupportedMajor but is above skillcat.SupportedMajor, the only
	// major this package can validate.
	ErrUnknownMajor = errors.New("protocol major unknown to this client")

	// ErrStopped means a descriptor was not verified because discovery
	// stopped first: its Deadline passed, or MaxFailures descriptors in a
	// row could not be fetched.
	ErrStopped = errors.New("discovery stopped")

	// ErrInternal means verifying a document hit a bug of this package (a
	// panic); the document is reported and the others are still verified.
	ErrInternal = errors.New("internal error")
)

// Client discovers and verifies published skill catalogs. The zero value is
// ready to use with the defaults; a Client is safe for concurrent use and
// its fields must not change while it is in use.
type Client struct {
	// HTTPClient sends the requests; nil means one using
	// http.DefaultTransport. Its CheckRedirect, if any, runs after this
	// package's redirect policy, and its Timeout, if any, applies as well
	// as the Timeout below.
	HTTPClient *http.Client

	// SupportedMajor is the protocol major the client reads; 0 means
	// skillcat.SupportedMajor (1).
	SupportedMajor uint64

	// MaxBytes caps the size of each document; 0 means DefaultMaxBytes.
	MaxBytes int64

	// Concurrency bounds how many descriptors are fetched at once; 0 means
	// DefaultConcurrency.
	Concurrency int

	// Timeout bounds each request, from connecting to reading the last
	// byte of the body; 0 means DefaultTimeout.
	Timeout time.Duration

	// UserAgent is sent with every request; "" means DefaultUserAgent.
	UserAgent string

	// Deadline bounds a whole Discover, the index and every descriptor;
	// 0 means DefaultDeadline.
	Deadline time.Duration

	// MaxTotalBytes stops Discover (and Changes) once the descriptors it
	// fetched pass that many bytes in all, since it holds every one; 0
	// means DefaultMaxTotalBytes. The descriptors not verified then are
	// problems wrapping ErrStopped. FeedDocuments, which holds every
	// document of a feed, stops with ErrFeedTooLarge once they pass it.
	MaxTotalBytes int64

	// MaxFailures stops Discover once that many descriptors in a row could
	// not be fetched (a network error, a timeout, an HTTP error status, a
	// response too large or not JSON); 0 means DefaultMaxFailures and a
	// negative value never stops. Invalid descriptors do not count.
	MaxFailures int
}

// UserAgent returns the User-Agent header of skillcat release version:
// "skillcat/<version> (+https://github.com/skillcat/skillcat)".
func UserAgent(version string) string {
	return "skillcat/" + version + " (+https://github.com/skillcat/skillcat)"
}

// modulePath is the module this package belongs to.
const modulePath = "github.com/skillcat/skillcat"

// DefaultUserAgent is UserAgent of the skillcat module version this program
// was built with ("dev" when it is not known).
var DefaultUserAgent = UserAgent(moduleVersion())

func moduleVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	v := ""
	if bi.Main.Path == modulePath {
		v = bi.Main.Version
	}
	for _, dep := range bi.Deps {
		if dep.Path == modulePath {
			v = dep.Version
		}
	}
	if v == "" || v == "(devel)" {
		return "dev"
	}
	return strings.TrimPrefix(v, "v")
}

func (c *Client) supportedMajor() uint64 {
	if c.SupportedMajor == 0 {
		return skillcat.SupportedMajor
	}
	return c.SupportedMajor
}

func (c *Client) maxBytes() int64 {
	if c.MaxBytes <= 0 {
		return DefaultMaxBytes
	}
	return c.MaxBytes
}

func (c *Client) concurrency() int {
	if c.Concurrency <= 0 {
		return DefaultConcurrency
	}
	return c.Concurrency
}

func (c *Client) timeout() time.Duration {
	if c.Timeout <= 0 {
		return DefaultTimeout
	}
	return c.Timeout
}

func (c *Client) deadline() time.Duration {
	if c.Deadline <= 0 {
		return DefaultDeadline
	}
	return c.Deadline
}

// bounded returns ctx bounded by the client's Deadline; what ends by then
// ends with an error wrapping ErrStopped that says so.
func (c *Client) bounded(ctx context.Context, what string) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, c.deadline(), &detailError{ErrStopped,
		what + " stopped at its deadline of " + c.deadline().String()})
}

func (c *Client) maxTotalBytes() int64 {
	if c.MaxTotalBytes <= 0 {
		return DefaultMaxTotalBytes
	}
	return c.MaxTotalBytes
}

func (c *Client) maxFailures() int {
	if c.MaxFailures == 0 {
		return DefaultMaxFailures
	}
	return c.MaxFailures
}

func (c *Client) userAgent() string {
	if c.UserAgent == "" {
		return DefaultUserAgent
	}
	return c.UserAgent
}

// httpClient returns the client to send requests with: a copy of
// HTTPClient (or a zero http.Client) with the redirect policy in front.
func (c *Client) httpClient() *http.Client {
	var hc http.Client
	if c.HTTPClient != nil {
		hc = *c.HTTPClient
	}
	next := hc.CheckRedirect
	hc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if err := checkRedirect(req, via); err != nil {
			return err
		}
		if next != nil {
			return next(req, via)
		}
		return nil
	}
	return &hc
}

// checkRedirect follows at most MaxRedirects redirects, never from https to
// http, and only to URLs that checkURL accepts.
func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > MaxRedirects {
		return &detailError{ErrRedirect, "stopped after " + strconv.Itoa(MaxRedirects) + " redirects"}
	}
	if prev := via[len(via)-1]; prev.URL.Scheme == "https" && req.URL.Scheme != "https" {
		return &detailError{ErrRedirect, "refused redirect from https to " + req.URL.Redacted()}
	}
	if err := checkURL(req.URL); err != nil {
		return &detailError{err, "refused redirect to " + req.URL.Redacted() + ": " + err.Error()}
	}
	return nil
}

// IndexURL returns the URL of the SkillIndex of a catalog given by base:
// base with /.well-known/skills.json appended, or base itself when its path
// ends in ".json" (the well-known URL, or another document in SkillIndex
// format such as /types/api.json). A trailing slash on base does not
// matter; a fragment is dropped. The URL must be absolute and https, or
// http on a loopback host; otherwise the error wraps ErrHTTPSRequired or
// says what is wrong.
func IndexURL(base string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, errors.New("invalid URL " + strconv.Quote(base) + ": " + err.Error())
	}
	if !u.IsAbs() || u.Host == "" {
		return nil, errors.New(strconv.Quote(base) + " is not an absolute URL; want one like https://skills.example.com")
	}
	if err := checkURL(u); err != nil {
		return nil, fmt.Errorf("%s: %w", u.Redacted(), err)
	}
	u.Fragment, u.RawFragment = "", ""
	if !strings.HasSuffix(u.Path, ".json") {
		if u.Path == "" {
			u.Path = "/"
		}
		u = u.JoinPath(skillcat.WellKnownPath)
	}
	return u, nil
}

// checkURL accepts https URLs, and http URLs of loopback hosts.
func checkURL(u *url.URL) error {
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if isLoopback(u.Hostname()) {
			return nil
		}
		return &detailError{ErrHTTPSRequired, "https required: plain http is accepted only for localhost, 127.0.0.0/8 and ::1"}
	}
	return &detailError{ErrHTTPSRequired, "unsupported URL scheme " + strconv.Quote(u.Scheme) + "; want https"}
}

// isLoopback reports whether host is localhost or a loopback IP address.
func isLoopback(host string) bool {
	if strings.EqualFold(strings.TrimSuffix(host, "."), "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// detailError is an error with its own message that matches a sentinel.
type detailError struct {
	err error
	msg string
}

func (e *detailError) Error() string { return e.msg }
func (e *detailError) Unwrap() error { return e.err }
