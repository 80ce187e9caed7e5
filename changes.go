package skillcat

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
)

// ChangesPath is where a catalog serves its change feed, beside the
// Well-Known index at the site's root.
const ChangesPath = "/changes/index.json"

// ChangePageSize is how many events a full page of a change feed holds. A
// full page never changes again; only the last page grows.
const ChangePageSize = 1000

// ChangeOp is what an event did to a skill of the listed catalog.
type ChangeOp string

// The change operations.
const (
	OpUpsert ChangeOp = "upsert" // the skill was added or its descriptor changed
	OpDelete ChangeOp = "delete" // the skill was removed, or became private
)

// ChangeFeed is the change feed's entry document, /changes/index.json. Its
// pages hold events numbered 1 … Latest, each page a run of them. Epoch
// names the history: a consumer that sees it change starts again from 0.
type ChangeFeed struct {
	Protocol struct {
		Version string `json:"version"`
	} `json:"protocol"`
	Epoch  string          `json:"epoch"`
	Latest int64           `json:"latest"`
	Pages  []ChangePageRef `json:"pages"`
}

// ChangePageRef points at one page of events: its URL (a URI reference
// resolved against the feed document's own URL), the first and last
// sequence numbers it holds, and the digest ("sha256:" + hex) of its bytes.
type ChangePageRef struct {
	URL    string `json:"url"`
	From   int64  `json:"from"`
	To     int64  `json:"to"`
	Digest string `json:"digest"`
}

// ChangePage is one page of a change feed.
type ChangePage struct {
	Events []ChangeEvent `json:"events"`
}

// ChangeEvent is one change of the listed catalog. An upsert carries the
// new descriptor's version, digest and URL; a delete carries the version
// and digest of what was removed, and no URL. At is the build's date
// (RFC 3339) when the build had one.
type ChangeEvent struct {
	Seq           int64    `json:"seq"`
	Op            ChangeOp `json:"op"`
	ID            string   `json:"id"`
	Version       string   `json:"version"`
	Digest        string   `json:"digest"`
	DescriptorURL string   `json:"descriptor_url,omitempty"`
	At            string   `json:"at,omitempty"`
}

// EncodeChanges returns a feed document or page as published: indented
// JSON with a final newline, members in declaration order.
func EncodeChanges(v any) []byte {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		panic(fmt.Sprintf("encode changes: %v", err)) // only fixed struct types reach here
	}
	return append(data, '\n')
}

// ErrChangeFeed is wrapped by every error ParseChangeFeed and
// ParseChangePage return.
var ErrChangeFeed = errors.New("invalid change feed")

var (
	digestPattern = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
	idPattern     = regexp.MustCompile(`^[a-z0-9]+([._-][a-z0-9]+)*$`)
)

// ParseChangeFeed decodes and checks a feed document: the version rule
// (an incompatible major is ErrIncompatibleVersion), a non-empty epoch,
// and pages that are contiguous runs from 1 to Latest, each with a digest.
func ParseChangeFeed(data []byte, supportedMajor uint64) (*ChangeFeed, error) {
	var f ChangeFeed
	if err := strictDecode(data, &f); err != nil {
		return nil, err
	}
	v, err := ParseVersion(f.Protocol.Version)
	if err != nil {
		return nil, fmt.Errorf("%w: protocol.version: %v", ErrChangeFeed, err)
	}
	if err := CheckCompatible(v, supportedMajor); err != nil {
		return nil, err
	}
	switch {
	case f.Epoch == "":
		return nil, fmt.Errorf("%w: epoch is missing", ErrChangeFeed)
	case f.Latest < 0:
		return nil, fmt.Errorf("%w: latest is %d", ErrChangeFeed, f.Latest)
	}
	next := int64(1)
	for i, p := range f.Pages {
		switch {
		case p.URL == "":
			return nil, fmt.Errorf("%w: pages[%d].url is missing", ErrChangeFeed, i)
		case p.From != next || p.To < p.From:
			return nil, fmt.Errorf("%w: pages[%d] holds %d–%d; want a run starting at %d", ErrChangeFeed, i, p.From, p.To, next)
		case !digestPattern.MatchString(p.Digest):
			return nil, fmt.Errorf("%w: pages[%d].digest %q is not sha256:<64 hex>", ErrChangeFeed, i, p.Digest)
		}
		next = p.To + 1
	}
	if next-1 != f.Latest {
		return nil, fmt.Errorf("%w: the pages end at %d but latest is %d", ErrChangeFeed, next-1, f.Latest)
	}
	return &f, nil
}

// ParseChangePage decodes and checks a page that the feed says holds the
// events from … to: every sequence number once, rising by one, and every
// event well formed.
func ParseChangePage(data []byte, from, to int64) (*ChangePage, error) {
	var p ChangePage
	if err := strictDecode(data, &p); err != nil {
		return nil, err
	}
	if int64(len(p.Events)) != to-from+1 {
		return nil, fmt.Errorf("%w: the page holds %d events; the feed says %d–%d", ErrChangeFeed, len(p.Events), from, to)
	}
	for i, e := range p.Events {
		if want := from + int64(i); e.Seq != want {
			return nil, fmt.Errorf("%w: events[%d].seq is %d; want %d (sequence numbers rise by one)", ErrChangeFeed, i, e.Seq, want)
		}
		if err := e.check(); err != nil {
			return nil, fmt.Errorf("%w: events[%d]: %v", ErrChangeFeed, i, err)
		}
	}
	return &p, nil
}

func (e ChangeEvent) check() error {
	switch {
	case e.Op != OpUpsert && e.Op != OpDelete:
		return fmt.Errorf("op must be \"upsert\" or \"delete\"; got %q", e.Op)
	case len(e.ID) > 128 || !idPattern.MatchString(e.ID):
		return fmt.Errorf("id %q is not a skill id", e.ID)
	case !digestPattern.MatchString(e.Digest):
		return fmt.Errorf("digest %q is not sha256:<64 hex>", e.Digest)
	case e.Op == OpUpsert && e.DescriptorURL == "":
		return errors.New("an upsert needs descriptor_url")
	}
	return nil
}

// strictDecode decodes one JSON object into v; unknown members are
// allowed, as everywhere in the protocol.
func strictDecode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: %v", ErrChangeFeed, err)
	}
	if dec.More() {
		return fmt.Errorf("%w: data after the JSON object", ErrChangeFeed)
	}
	return nil
}

// Replay folds events into the state they describe: for each id still
// listed, its last upsert. Events must be in sequence order.
func Replay(state map[string]ChangeEvent, events []ChangeEvent) {
	for _, e := range events {
		if e.Op == OpDelete {
			delete(state, e.ID)
		} else {
			state[e.ID] = e
		}
	}
}
