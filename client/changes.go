package client

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"
	"sync"

	skillcat "github.com/skillcat/skillcat"
)

// Errors of following a change feed.
var (
	// ErrEpochChanged means the feed's history was reset (its epoch is not
	// the one the follower knows): sequence numbers start again, and the
	// follower resyncs from 0.
	ErrEpochChanged = errors.New("change feed epoch changed")

	// ErrFeedBackwards means the feed's latest sequence number is below
	// one the follower has already seen, in the same epoch: the feed lost
	// history. That is an error, never a silent resync.
	ErrFeedBackwards = errors.New("change feed went backwards")

	// ErrFeedTooLarge means the events after the follower's Since name more
	// skills than ChangesOptions.MaxSkills: following them would hold too
	// much; fetch the index instead. FeedDocuments returns it for a feed
	// of more than MaxFeedPages pages or Client.MaxTotalBytes bytes.
	ErrFeedTooLarge = errors.New("change feed too large")
)

// DefaultMaxFeedSkills is ChangesOptions.MaxSkills when it is left zero:
// ten times the largest catalog skillcat is built for (0.8 GB of events,
// ids of 121 characters, in skillcat discover), where a hostile feed could
// otherwise name skills until the Deadline (6,000,000 in 150 s, 7.8 GB, on
// a loopback server).
const DefaultMaxFeedSkills = 1_000_000

// ChangesOptions says where a follower of a change feed stands.
type ChangesOptions struct {
	// Since is the last sequence number already seen; 0 replays the
	// whole history.
	Since int64

	// Epoch, when set, is the epoch Since belongs to; a feed of another
	// epoch is ErrEpochChanged.
	Epoch string

	// MaxSkills bounds how many skills (distinct ids) the events after
	// Since may name; more is ErrFeedTooLarge. 0 means
	// DefaultMaxFeedSkills.
	MaxSkills int
}

// Changes is what changed in a catalog after a sequence number.
type Changes struct {
	// FeedURL is the feed document's URL, after redirects.
	FeedURL string

	// Epoch and Latest are where the follower stands after these changes:
	// pass them as ChangesOptions next time.
	Epoch  string
	Latest int64

	// Events are the changes after Since, collapsed to the last event of
	// each id, in sequence order.
	Events []skillcat.ChangeEvent

	// Skills are the verified descriptors of the upserted skills (digest
	// as in their event, valid, of that id and version), ordered by id. A
	// skill whose descriptor failed is not among them.
	Skills []VerifiedSkill
}

// Changes follows the change feed of the catalog at baseURL (any form
// IndexURL takes; the feed is /changes/index.json beside the Well-Known
// index). It fetches the feed and the pages holding events after
// opts.Since, checks every page's digest and that sequence numbers rise by
// one, and fetches and verifies the descriptor of every upsert. A bad
// descriptor is a problem in the *DiscoveryError returned with the
// Changes of the rest; a bad feed or page is an error and no Changes.
// Following ends within Deadline, as discovery does, and holds the events
// of at most opts.MaxSkills skills.
func (c *Client) Changes(ctx context.Context, baseURL string, opts ChangesOptions) (*Changes, error) {
	ctx, cancel := c.bounded(ctx, "following the change feed")
	defer cancel()
	hc := c.httpClient()
	feedURL, feed, err := c.fetchFeed(ctx, hc, baseURL)
	if err != nil {
		return nil, err
	}
	switch {
	case opts.Epoch != "" && opts.Epoch != feed.Epoch:
		return nil, fmt.Errorf("%s: %w: the feed's epoch is %s, not %s: its history was reset; follow it again from 0", feedURL.Redacted(), ErrEpochChanged, feed.Epoch, opts.Epoch)
	case opts.Since > feed.Latest:
		return nil, fmt.Errorf("%s: %w: latest is %d, below %d already seen, in the same epoch %s", feedURL.Redacted(), ErrFeedBackwards, feed.Latest, opts.Since, feed.Epoch)
	case opts.Since < 0:
		return nil, fmt.Errorf("since must be 0 or more; got %d", opts.Since)
	}
	maxSkills := opts.MaxSkills
	if maxSkills <= 0 {
		maxSkills = DefaultMaxFeedSkills
	}
	last := map[string]skillcat.ChangeEvent{}
	err = c.eachPage(ctx, hc, feedURL, feed, opts.Since, func(u *url.URL, _ []byte, p *skillcat.ChangePage) error {
		for _, e := range p.Events {
			if e.Seq <= opts.Since {
				continue
			}
			if e.DescriptorURL != "" {
				ref, err := url.Parse(e.DescriptorURL)
				if err != nil {
					return fmt.Errorf("%s: event %d: invalid descriptor_url %q", u.Redacted(), e.Seq, e.DescriptorURL)
				}
				e.DescriptorURL = u.ResolveReference(ref).String()
			}
			last[e.ID] = e
			if len(last) > maxSkills {
				return fmt.Errorf("%s: %w: the events after %d name more than %d skills; fetch the index instead", u.Redacted(), ErrFeedTooLarge, opts.Since, maxSkills)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	ch := &Changes{FeedURL: feedURL.String(), Epoch: feed.Epoch, Latest: feed.Latest}
	for _, e := range last {
		ch.Events = append(ch.Events, e)
	}
	slices.SortFunc(ch.Events, func(a, b skillcat.ChangeEvent) int { return cmp.Compare(a.Seq, b.Seq) })

	var problems []Problem
	ch.Skills, problems = c.fetchUpserts(ctx, hc, ch.Events)
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	if len(problems) > 0 {
		return ch, &DiscoveryError{IndexURL: ch.FeedURL, Problems: problems}
	}
	return ch, nil
}

// MaxFeedPages bounds how many pages FeedDocuments fetches: 10,000 pages of
// at most skillcat.ChangePageSize events, ten million events, a hundred
// times the history of a reset of a 100,000-skill catalog. A hostile feed
// of many one-event pages otherwise had the build fetch until the
// Deadline.
const MaxFeedPages = 10_000

// FeedDocuments fetches the whole change feed of the catalog at baseURL,
// checked as Changes checks it, and returns its documents by their path in
// the site ("changes/index.json", "changes/pages/5f65e4a5812cc40b-1-1000.json"), so that a
// build can continue the live site's history. A site that serves no feed
// document (404 or 410) has no history: no documents and no error.
// Fetching ends within Deadline. What it holds is bounded: a page of more
// than skillcat.ChangePageSize events is refused (wrapping
// skillcat.ErrChangeFeed) before it is fetched, and a feed of more than
// MaxFeedPages pages, or whose documents pass MaxTotalBytes, is
// ErrFeedTooLarge.
func (c *Client) FeedDocuments(ctx context.Context, baseURL string) (map[string][]byte, error) {
	ctx, cancel := c.bounded(ctx, "fetching the change feed")
	defer cancel()
	hc := c.httpClient()
	feedURL, feed, err := c.fetchFeed(ctx, hc, baseURL)
	var se *StatusError
	if errors.As(err, &se) && (se.Code == http.StatusNotFound || se.Code == http.StatusGone) {
		return map[string][]byte{}, nil
	}
	if err != nil {
		return nil, err
	}
	if n := len(feed.Pages); n > MaxFeedPages {
		return nil, fmt.Errorf("%s: %w: it lists %d pages; a build continues at most %d (client.MaxFeedPages)", feedURL.Redacted(), ErrFeedTooLarge, n, MaxFeedPages)
	}
	for i, p := range feed.Pages {
		if n := p.To - p.From + 1; n > skillcat.ChangePageSize {
			return nil, fmt.Errorf("%s: %w: pages[%d] holds %d events (%d–%d); a page holds at most %d", feedURL.Redacted(), skillcat.ErrChangeFeed, i, n, p.From, p.To, skillcat.ChangePageSize)
		}
	}
	docs := map[string][]byte{strings.TrimPrefix(skillcat.ChangesPath, "/"): feed.raw}
	held, limit := int64(len(feed.raw)), c.maxTotalBytes()
	dir := path.Dir(feedURL.Path) + "/"
	err = c.eachPage(ctx, hc, feedURL, feed, 0, func(u *url.URL, data []byte, _ *skillcat.ChangePage) error {
		rel, ok := strings.CutPrefix(u.Path, dir)
		if !ok || u.Host != feedURL.Host || rel == "" || strings.Contains(rel, "..") {
			return fmt.Errorf("%s: a page outside the feed's folder cannot be continued", u.Redacted())
		}
		if held += int64(len(data)); held > limit {
			return fmt.Errorf("%s: %w: its documents pass %d bytes (Client.MaxTotalBytes) at %s", feedURL.Redacted(), ErrFeedTooLarge, limit, u.Redacted())
		}
		docs[path.Join(path.Dir(strings.TrimPrefix(skillcat.ChangesPath, "/")), rel)] = data
		return nil
	})
	if err != nil {
		return nil, err
	}
	return docs, nil
}

// fetchedFeed is a feed document and its bytes as served.
type fetchedFeed struct {
	*skillcat.ChangeFeed
	raw []byte
}

// fetchFeed fetches and checks the feed document of the catalog at baseURL.
func (c *Client) fetchFeed(ctx context.Context, hc *http.Client, baseURL string) (*url.URL, fetchedFeed, error) {
	index, err := IndexURL(baseURL)
	if err != nil {
		return nil, fetchedFeed{}, err
	}
	u := index.ResolveReference(&url.URL{Path: "../" + strings.TrimPrefix(skillcat.ChangesPath, "/")})
	data, final, err := c.fetch(ctx, hc, u)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fetchedFeed{}, context.Cause(ctx)
		}
		return nil, fetchedFeed{}, fmt.Errorf("%s: %w", u.Redacted(), err)
	}
	feed, err := skillcat.ParseChangeFeed(data, c.supportedMajor())
	if err != nil {
		return nil, fetchedFeed{}, fmt.Errorf("%s: %w", final.Redacted(), err)
	}
	return final, fetchedFeed{feed, data}, nil
}

// eachPage fetches, in order, every page of feed holding events after
// since, checks its digest and sequence numbers, and hands it to f.
func (c *Client) eachPage(ctx context.Context, hc *http.Client, feedURL *url.URL, feed fetchedFeed, since int64, f func(*url.URL, []byte, *skillcat.ChangePage) error) error {
	for _, ref := range feed.Pages {
		if ref.To <= since {
			continue
		}
		r, err := url.Parse(ref.URL)
		if err != nil {
			return fmt.Errorf("%s: invalid page url %q", feedURL.Redacted(), ref.URL)
		}
		u := feedURL.ResolveReference(r)
		if err := checkURL(u); err != nil {
			return fmt.Errorf("%s: %w", u.Redacted(), err)
		}
		if feedURL.Scheme == "https" && u.Scheme != "https" {
			return fmt.Errorf("%s: %w", u.Redacted(), &detailError{ErrHTTPSRequired, "https required: the feed is served over https, its pages must be too"})
		}
		data, _, err := c.fetch(ctx, hc, u)
		if err != nil {
			if ctx.Err() != nil {
				return context.Cause(ctx)
			}
			return fmt.Errorf("%s: %w", u.Redacted(), err)
		}
		if err := checkDigest(ref.Digest, data); err != nil {
			return fmt.Errorf("%s: %w", u.Redacted(), err)
		}
		p, err := skillcat.ParseChangePage(data, ref.From, ref.To)
		if err != nil {
			return fmt.Errorf("%s: %w", u.Redacted(), err)
		}
		if err := f(u, data, p); err != nil {
			return err
		}
	}
	return nil
}

// fetchUpserts fetches and verifies the descriptors of the upsert events,
// at most Concurrency at a time.
func (c *Client) fetchUpserts(ctx context.Context, hc *http.Client, events []skillcat.ChangeEvent) ([]VerifiedSkill, []Problem) {
	var upserts []skillcat.ChangeEvent
	for _, e := range events {
		if e.Op == skillcat.OpUpsert {
			upserts = append(upserts, e)
		}
	}
	skills := make([]VerifiedSkill, len(upserts))
	errs := make([]error, len(upserts))
	held := c.newHeld()
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(c.concurrency(), len(upserts)) {
		wg.Go(func() {
			for i := range jobs {
				skills[i], errs[i] = c.fetchUpsert(ctx, hc, upserts[i], held)
			}
		})
	}
	for i := range upserts {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	var good []VerifiedSkill
	var problems []Problem
	for i, err := range errs {
		if err != nil {
			problems = append(problems, Problem{ID: upserts[i].ID, URL: upserts[i].DescriptorURL, Err: err})
			continue
		}
		good = append(good, skills[i])
	}
	slices.SortFunc(good, func(a, b VerifiedSkill) int { return cmp.Compare(a.Entry.ID, b.Entry.ID) })
	slices.SortFunc(problems, func(a, b Problem) int { return cmp.Compare(a.ID, b.ID) })
	return good, problems
}

// fetchUpsert fetches the descriptor an upsert points at and checks that
// it is the one the event names.
func (c *Client) fetchUpsert(ctx context.Context, hc *http.Client, e skillcat.ChangeEvent, held *held) (VerifiedSkill, error) {
	u, err := url.Parse(e.DescriptorURL)
	if err != nil {
		return VerifiedSkill{}, err
	}
	if err := checkURL(u); err != nil {
		return VerifiedSkill{}, err
	}
	d, vs, err := c.fetchDescriptor(ctx, hc, u, e.Digest, held)
	if err != nil {
		return VerifiedSkill{}, err
	}
	if d.ID != e.ID || d.Version != e.Version {
		return VerifiedSkill{}, fmt.Errorf("%w: the event says %s %s, the descriptor %s %s", ErrEntryMismatch, e.ID, e.Version, d.ID, d.Version)
	}
	entry := skillcat.IndexEntry{ID: d.ID, Name: d.Name, Version: d.Version, CapabilityType: d.CapabilityType,
		Access: d.Access, DescriptorURL: e.DescriptorURL, Digest: e.Digest}
	return VerifiedSkill{Entry: entry, URL: u.String(), Descriptor: d, Warnings: vs}, nil
}
