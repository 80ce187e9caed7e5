package client

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/jose"
)

// DiscoverOptions narrows what Discover fetches.
type DiscoverOptions struct {
	// Type, when set, keeps only the skills of that capability type; the
	// descriptors of other skills are not fetched.
	Type skillcat.CapabilityType

	// Progress, when set, is called after each descriptor is done, with
	// how many are done and how many there are; calls never overlap.
	Progress func(done, total int)
	// VerifyKeys, when set, are the keys the consumer pins: the index must
	// carry a detached signature (<index URL>.jws) that one of them
	// verifies over the exact bytes served, or discovery stops with a
	// problem wrapping ErrSignature before any descriptor is fetched. A key
	// the site itself publishes is never trusted for that.
	VerifyKeys []jose.PublicKey

	// CheckSignature, when set without VerifyKeys, looks for the index's
	// signature and reports in Catalog.Signature whether there is one and
	// which key it names (unverified: only pinned keys verify).
	CheckSignature bool
}

// Catalog is a discovered catalog: its index and the skills whose
// descriptors were fetched and verified.
type Catalog struct {
	// IndexURL is the URL the index was served from, after redirects;
	// relative descriptor URLs resolve against it.
	IndexURL string

	// Index is the index as served, every entry included whatever the
	// type filter.
	Index *skillcat.SkillIndex

	// Signature says whether the index is signed, by which key, and
	// whether a pinned key verified it.
	Signature Signature

	// Warnings are the index's warnings, such as an unknown member; they
	// do not fail discovery.
	Warnings skillcat.Violations

	// Skills are the verified skills, of the requested type if any,
	// ordered by id. A skill whose descriptor failed is not among them.
	Skills []VerifiedSkill
}

// VerifiedSkill is one skill of a catalog whose descriptor was verified:
// served as JSON, with the digest of its index entry, valid, and agreeing
// with the entry on id, name, version, capability_type and access.
type VerifiedSkill struct {
	// Entry is the skill's index entry.
	Entry skillcat.IndexEntry

	// URL is the absolute URL of the descriptor: the entry's
	// descriptor_url resolved against the index URL.
	URL string

	// Descriptor is the parsed, validated descriptor.
	Descriptor *skillcat.SkillDescriptor

	// Warnings are the descriptor's warnings, such as an unknown member
	// that looks like a typo; they do not fail verification.
	Warnings skillcat.Violations

	// Signature is the index's signature as DiscoverSkill checked it
	// (Discover reports it once, in Catalog.Signature).
	Signature Signature
}

// Problem is why one document of a catalog was not accepted.
type Problem struct {
	// ID is the skill's id, or "" for a problem with the index itself.
	ID string

	// URL is the document's URL (or the descriptor_url as written, when it
	// is not a valid URL reference).
	URL string

	// Err says what is wrong. It may be skillcat.Violations, one per
	// violation found in the document, or match one of this package's
	// sentinel errors, skillcat.ErrIncompatibleVersion or
	// context.DeadlineExceeded.
	Err error
}

// Error formats the problem as "id: url: reason". When Err is
// skillcat.Violations, it has one such line per violation, each reading
// "id: url:line:col: field: reason".
func (p Problem) Error() string {
	prefix := ""
	if p.ID != "" {
		prefix = p.ID + ": "
	}
	if vs, ok := p.Err.(skillcat.Violations); ok && len(vs) > 0 {
		lines := make([]string, len(vs))
		for i, v := range vs {
			lines[i] = prefix + v.Error()
		}
		return strings.Join(lines, "\n")
	}
	return prefix + p.URL + ": " + p.Err.Error()
}

// Unwrap returns Err.
func (p Problem) Unwrap() error { return p.Err }

// DiscoveryError lists every problem found while discovering a catalog,
// ordered by id. A problem with the index itself is the only one.
type DiscoveryError struct {
	IndexURL string
	Problems []Problem
}

// Error lists the problems, one line each (see Problem.Error).
func (e *DiscoveryError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap returns each problem, so that errors.Is finds a sentinel such as
// ErrDigestMismatch in any of them.
func (e *DiscoveryError) Unwrap() []error {
	errs := make([]error, len(e.Problems))
	for i, p := range e.Problems {
		errs[i] = p
	}
	return errs
}

// Discover fetches the catalog at baseURL (see IndexURL for the forms it
// may take), verifies every descriptor its index lists (only those of
// opts.Type when set), and returns the catalog.
//
// An invalid baseURL, or one that is plain http on a non-loopback host
// (ErrHTTPSRequired), is an error before any network access. A problem with
// the index (fetching it, its version, its validity) returns a nil Catalog
// and a *DiscoveryError with that one problem; an incompatible protocol
// version matches skillcat.ErrIncompatibleVersion and no descriptor is
// fetched. Problems with descriptors return the Catalog of the good skills
// together with a *DiscoveryError listing each bad descriptor once. When
// ctx ends first, the error is ctx's. Discovery as a whole ends within
// Deadline, and stops after MaxFailures failed fetches in a row; the
// descriptors not verified then are problems wrapping ErrStopped.
func (c *Client) Discover(ctx context.Context, baseURL string, opts DiscoverOptions) (cat *Catalog, err error) {
	defer func() {
		if r := recover(); r != nil {
			cat, err = nil, fmt.Errorf("discover %s: %w: %v", baseURL, ErrInternal, r)
		}
	}()
	if opts.Type != "" && !slices.Contains(skillcat.CapabilityTypes, opts.Type) {
		return nil, fmt.Errorf("unknown capability type %q; want one of plugin, api, knowledge, task", opts.Type)
	}
	u, err := IndexURL(baseURL)
	if err != nil {
		return nil, err
	}
	hc := c.httpClient()
	parent := ctx
	ctx, cancel := c.bounded(ctx, "not verified: discovery")
	defer cancel()
	index, warnings, final, sig, err := c.openIndex(ctx, parent, hc, u, opts)
	if err != nil {
		return nil, err
	}

	entries := index.Skills
	if opts.Type != "" {
		entries = index.Filter(opts.Type)
	}
	skills, problems := c.fetchSkills(ctx, hc, final, entries, opts.Progress)
	if parent.Err() != nil {
		return nil, fmt.Errorf("discover %s: %w", u.Redacted(), context.Cause(parent))
	}
	cat = &Catalog{IndexURL: final.String(), Index: index, Signature: sig, Warnings: warnings, Skills: skills}
	if len(problems) > 0 {
		return cat, &DiscoveryError{IndexURL: final.String(), Problems: problems}
	}
	return cat, nil
}

// openIndex fetches the index at u within ctx, checks its version,
// validity and, as opts asks, its signature (Discover and DiscoverSkill
// alike), and returns it with its warnings and the URL it came from. A
// problem is a *DiscoveryError with that one problem, or the error of
// parent (the caller's context) when that ended first.
func (c *Client) openIndex(ctx, parent context.Context, hc *http.Client, u *url.URL, opts DiscoverOptions) (*skillcat.SkillIndex, skillcat.Violations, *url.URL, Signature, error) {
	index, warnings, data, final, err := c.fetchIndex(ctx, hc, u)
	var sig Signature
	if err == nil && (opts.CheckSignature || len(opts.VerifyKeys) > 0) {
		// With pinned keys, the index must be signed by one of them; a
		// signature cut short by the deadline is the index's problem.
		sig, err = c.signature(ctx, hc, final, data, opts.VerifyKeys)
		if err != nil && ctx.Err() == nil {
			return nil, nil, nil, sig, &DiscoveryError{IndexURL: final.String(), Problems: []Problem{{URL: signatureURL(final).Redacted(), Err: err}}}
		}
	}
	if err != nil {
		if parent.Err() != nil {
			return nil, nil, nil, sig, fmt.Errorf("discover %s: %w", u.Redacted(), context.Cause(parent))
		}
		return nil, nil, nil, sig, &DiscoveryError{IndexURL: u.String(), Problems: []Problem{{URL: final.Redacted(), Err: err}}}
	}
	return index, warnings, final, sig, nil
}

// fetchIndex fetches, version-checks and parses the index at u. It returns
// the index, its warnings, its bytes as served, and the URL it came from (u
// itself when the fetch failed).
func (c *Client) fetchIndex(ctx context.Context, hc *http.Client, u *url.URL) (*skillcat.SkillIndex, skillcat.Violations, []byte, *url.URL, error) {
	data, final, err := c.fetch(ctx, hc, u)
	if err != nil {
		return nil, nil, nil, u, err
	}
	if err := c.checkVersion(data); err != nil {
		return nil, nil, nil, final, err
	}
	index, vs := skillcat.ParseIndex(final.Redacted(), data)
	if err := vs.Err(); err != nil {
		return nil, nil, nil, final, err
	}
	return index, vs, data, final, nil
}

// fetchSkills fetches and verifies the descriptors of entries, at most
// Concurrency at a time, and returns the good skills and the problems, both
// ordered by id. After MaxFailures failed fetches in a row, or once the
// descriptors fetched pass MaxTotalBytes, it fetches no more: the entries
// left are problems wrapping ErrStopped.
func (c *Client) fetchSkills(ctx context.Context, hc *http.Client, base *url.URL, entries []skillcat.IndexEntry,
	progress func(done, total int)) ([]VerifiedSkill, []Problem) {
	type result struct {
		skill VerifiedSkill
		url   string
		err   error
		done  bool
	}
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	results := make([]result, len(entries))
	var mu sync.Mutex // guards failures, done and the progress calls
	failures, done := 0, 0
	maxFailures := c.maxFailures()
	held := c.newHeld()
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(c.concurrency(), len(entries)) {
		wg.Go(func() {
			for i := range jobs {
				s, u, err := c.verifySkill(ctx, hc, base, entries[i], held)
				results[i] = result{s, u, err, true}
				mu.Lock()
				if errors.Is(err, errHeld) {
					stop(err)
				} else if errors.Is(err, errFetch) {
					failures++
					if maxFailures > 0 && failures >= maxFailures {
						stop(&detailError{ErrStopped, fmt.Sprintf("not verified: discovery stopped after %d descriptors in a row could not be fetched", failures)})
					}
				} else if err == nil {
					failures = 0
				}
				done++
				if progress != nil {
					progress(done, len(entries))
				}
				mu.Unlock()
			}
		})
	}
feed:
	for i := range entries {
		select {
		case jobs <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()

	var skills []VerifiedSkill
	var problems []Problem
	for i, r := range results {
		if !r.done {
			r.url, r.err = entries[i].DescriptorURL, context.Cause(ctx)
		}
		if r.err != nil {
			problems = append(problems, Problem{ID: entries[i].ID, URL: r.url, Err: r.err})
			continue
		}
		skills = append(skills, r.skill)
	}
	slices.SortStableFunc(skills, func(a, b VerifiedSkill) int { return cmp.Compare(a.Entry.ID, b.Entry.ID) })
	slices.SortStableFunc(problems, func(a, b Problem) int { return cmp.Compare(a.ID, b.ID) })
	return skills, problems
}

// held counts the bytes of the descriptors one Discover or Changes has
// fetched, against Client.MaxTotalBytes; a nil *held counts nothing.
type held struct {
	n, max int64
}

// errHeld marks the error of the descriptor whose bytes passed the budget.
var errHeld = errors.New("descriptors over budget")

func (c *Client) newHeld() *held { return &held{max: c.maxTotalBytes()} }

// add counts n bytes more; past the budget it is an error wrapping
// ErrStopped and errHeld.
func (h *held) add(n int) error {
	if h == nil {
		return nil
	}
	if atomic.AddInt64(&h.n, int64(n)) <= h.max {
		return nil
	}
	return &heldError{fmt.Sprintf("not verified: discovery stopped once the descriptors fetched passed %d MiB (Client.MaxTotalBytes)", h.max>>20)}
}

// heldError is errHeld's error, which wraps ErrStopped as well.
type heldError struct{ msg string }

func (e *heldError) Error() string   { return e.msg }
func (e *heldError) Unwrap() []error { return []error{ErrStopped, errHeld} }

// errFetch marks an error of fetching a document (as opposed to what the
// document holds), which counts towards MaxFailures.
var errFetch = errors.New("fetch failed")

// fetchError is an error of fetching a document.
type fetchError struct{ err error }

func (e *fetchError) Error() string   { return e.err.Error() }
func (e *fetchError) Unwrap() []error { return []error{e.err, errFetch} }

// verifySkill is fetchSkill with a panic turned into the entry's problem:
// whatever a document holds, it must not crash a program that discovers.
func (c *Client) verifySkill(ctx context.Context, hc *http.Client, base *url.URL, e skillcat.IndexEntry, held *held) (s VerifiedSkill, u string, err error) {
	defer func() {
		if r := recover(); r != nil {
			s, u, err = VerifiedSkill{}, e.DescriptorURL, fmt.Errorf("%w while verifying the descriptor: %v", ErrInternal, r)
		}
	}()
	return c.fetchSkill(ctx, hc, base, e, held)
}

// fetchSkill fetches and verifies the descriptor of one entry. It returns
// the skill, or the descriptor's URL and what is wrong with it.
func (c *Client) fetchSkill(ctx context.Context, hc *http.Client, base *url.URL, e skillcat.IndexEntry, held *held) (VerifiedSkill, string, error) {
	ref, err := url.Parse(e.DescriptorURL)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return VerifiedSkill{}, e.DescriptorURL, fmt.Errorf("invalid descriptor_url: %w", err)
	}
	u := base.ResolveReference(ref)
	u.Fragment, u.RawFragment = "", ""
	name := u.Redacted()
	if err := checkURL(u); err != nil {
		return VerifiedSkill{}, name, err
	}
	if base.Scheme == "https" && u.Scheme != "https" {
		return VerifiedSkill{}, name, &detailError{ErrHTTPSRequired, "https required: the index is served over https, its descriptors must be too"}
	}

	d, vs, err := c.fetchDescriptor(ctx, hc, u, e.Digest, held)
	if err != nil {
		return VerifiedSkill{}, name, err
	}
	if err := matchEntry(e, d); err != nil {
		return VerifiedSkill{}, name, err
	}
	return VerifiedSkill{Entry: e, URL: u.String(), Descriptor: d, Warnings: vs}, name, nil
}

// StatusError is the error of a document served with a status other than
// 200 OK.
type StatusError struct {
	Code int
}

// Error reads "HTTP 404 Not Found".
func (e *StatusError) Error() string {
	return fmt.Sprintf("HTTP %d %s", e.Code, http.StatusText(e.Code))
}

// fetchDescriptor fetches the descriptor at u and checks it: its digest,
// the version rule, and its validity. Its warnings come back with it. A
// failure to fetch it is a *fetchError. Its bytes count towards held
// (nil: none), and past the budget it is errHeld.
func (c *Client) fetchDescriptor(ctx context.Context, hc *http.Client, u *url.URL, digest string, held *held) (*skillcat.SkillDescriptor, skillcat.Violations, error) {
	if err := held.add(0); err != nil {
		return nil, nil, err
	}
	data, _, err := c.fetch(ctx, hc, u)
	if err != nil {
		if ctx.Err() == nil {
			err = &fetchError{err}
		}
		return nil, nil, err
	}
	if err := held.add(len(data)); err != nil {
		return nil, nil, err
	}
	if err := checkDigest(digest, data); err != nil {
		return nil, nil, err
	}
	if err := c.checkVersion(data); err != nil {
		return nil, nil, err
	}
	d, vs := skillcat.ParseDescriptorContext(ctx, u.Redacted(), data)
	if ctx.Err() != nil {
		return nil, nil, context.Cause(ctx)
	}
	if err := vs.Err(); err != nil {
		return nil, nil, err
	}
	return d, vs, nil
}

// fetch GETs u and returns the body and the URL it came from after
// redirects. It enforces the status, media type, size and time limits.
func (c *Client) fetch(ctx context.Context, hc *http.Client, u *url.URL) ([]byte, *url.URL, error) {
	return c.get(ctx, hc, u, "application/json", checkContentType)
}

// get is fetch with the Accept header and media type check given.
func (c *Client) get(ctx context.Context, hc *http.Client, u *url.URL, accept string, checkType func(string) error) ([]byte, *url.URL, error) {
	rctx, cancel := context.WithTimeout(ctx, c.timeout())
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("User-Agent", c.userAgent())
	req.Header.Set("Accept", accept)
	resp, err := hc.Do(req)
	if err != nil {
		return nil, nil, c.requestError(ctx, rctx, err)
	}
	defer resp.Body.Close()

	if resp.StatusCode != http.StatusOK {
		return nil, nil, &StatusError{Code: resp.StatusCode}
	}
	if err := checkType(resp.Header.Get("Content-Type")); err != nil {
		return nil, nil, err
	}
	limit := c.maxBytes()
	tooLarge := &detailError{ErrTooLarge, "response larger than " + strconv.FormatInt(limit, 10) + " bytes"}
	if resp.ContentLength > limit {
		return nil, nil, tooLarge
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, nil, c.requestError(ctx, rctx, err)
	}
	if int64(len(body)) > limit {
		return nil, nil, tooLarge
	}
	return body, resp.Request.URL, nil
}

// requestError turns an error of a request into one that reads well after
// the URL: without Go's "Get <url>:" and with timeouts in plain words.
func (c *Client) requestError(parent, rctx context.Context, err error) error {
	if parent.Err() != nil {
		return context.Cause(parent)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if errors.Is(rctx.Err(), context.DeadlineExceeded) {
		return &detailError{context.DeadlineExceeded, "timed out after " + c.timeout().String()}
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return &detailError{context.DeadlineExceeded, "timed out: " + err.Error()}
	}
	return err
}

// checkContentType accepts application/json and any +json media type.
func checkContentType(ct string) error {
	if ct == "" {
		return fmt.Errorf("%w: none given; want application/json", ErrContentType)
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json")) {
		return nil
	}
	if mt == "text/html" || mt == "application/xhtml+xml" {
		return fmt.Errorf("%w %q: got an HTML page, want a JSON document (application/json)", ErrContentType, ct)
	}
	return fmt.Errorf("%w %q; want application/json", ErrContentType, ct)
}

// checkDigest compares a "sha256:<hex>" digest with the hash of data.
func checkDigest(want string, data []byte) error {
	if !strings.HasPrefix(want, "sha256:") {
		return fmt.Errorf("unsupported digest %q; want sha256:<64 hex digits>", want)
	}
	sum := sha256.Sum256(data)
	got := "sha256:" + hex.EncodeToString(sum[:])
	if !strings.EqualFold(got, want) {
		return fmt.Errorf("%w: index says %s, served bytes hash to %s", ErrDigestMismatch, want, got)
	}
	return nil
}

// checkVersion applies the version rule to a document's protocol.version
// before it is parsed: a major above the client's is an error wrapping
// skillcat.ErrIncompatibleVersion; an accepted major above the one this
// package validates is an error wrapping ErrUnknownMajor. A document whose
// version cannot be read here is left to the parser to report.
func (c *Client) checkVersion(data []byte) error {
	var head struct {
		Protocol *struct {
			Version *string `json:"version"`
		} `json:"protocol"`
	}
	if json.Unmarshal(data, &head) != nil || head.Protocol == nil || head.Protocol.Version == nil {
		return nil
	}
	v, err := skillcat.ParseVersion(*head.Protocol.Version)
	if err != nil {
		return nil
	}
	if err := skillcat.CheckCompatible(v, c.supportedMajor()); err != nil {
		return fmt.Errorf("protocol.version: %w", err)
	}
	if v.Major > skillcat.SupportedMajor {
		return &detailError{ErrUnknownMajor, fmt.Sprintf(
			"protocol.version: protocol version %s is within the supported major (%d.x), but this client can validate only %d.x documents",
			v, c.supportedMajor(), skillcat.SupportedMajor)}
	}
	return nil
}

// matchEntry checks that a descriptor says what its index entry says.
func matchEntry(e skillcat.IndexEntry, d *skillcat.SkillDescriptor) error {
	var diffs []string
	for _, f := range []struct{ name, index, desc string }{
		{"id", e.ID, d.ID},
		{"name", e.Name, d.Name},
		{"version", e.Version, d.Version},
		{"capability_type", string(e.CapabilityType), string(d.CapabilityType)},
		{"access", string(e.Access), string(d.Access)},
	} {
		if f.index != f.desc {
			diffs = append(diffs, fmt.Sprintf("%s: index says %q, descriptor says %q", f.name, f.index, f.desc))
		}
	}
	if diffs == nil {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrEntryMismatch, strings.Join(diffs, "; "))
}
