package build

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
	"time"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/store"
)

// The change feed (/changes/index.json and its pages) tells a follower what
// changed in the listed catalog from one build to the next. Its history is
// the previous feed: Config.Previous, or the output being replaced. Each
// build replays it, compares the result with the skills it lists, and
// appends one event per difference, in id order: an upsert for a skill
// added or whose descriptor (digest or URL) changed, a delete for a skill
// removed or made private. Full pages are copied byte for byte, so they
// never change; only the last page grows. A private skill is never listed,
// so it never appears.

// ErrPreviousFeed is wrapped when the previous change feed cannot be
// continued: it is damaged, or of an incompatible version. Config.
// ResetChanges starts a new history instead.
var ErrPreviousFeed = errors.New("previous change feed cannot be continued")

// pageSize is how many events a full page holds (a variable so that tests
// can fill pages with few events).
var pageSize int64 = skillcat.ChangePageSize

// history is a previous feed as read: its document, every page's bytes,
// and its events from the one numbered first on, in order: all of them,
// or, when the rebuild cache knew the feed (state), the last page's.
type history struct {
	feed   *skillcat.ChangeFeed
	events []skillcat.ChangeEvent
	first  int64
	pages  [][]byte
	state  map[string]skillcat.ChangeEvent // the events replayed, from the cache; nil when not known
}

// feedStatePart is the kind of the rebuild cache's part that holds what a
// change feed's events replay to (the last event of each skill listed),
// keyed by the digest of the feed's document, which pins every page by
// its digest: a rebuild that finds the feed it continues known does not
// parse its full pages again. The data is a JSON array of [id, version,
// digest, descriptor_url], by id.
const feedStatePart = "feed-state"

// knownFeed returns the replayed state the cache keeps for the feed whose
// document has the digest, if any.
type knownFeed func(digest string) (map[string]skillcat.ChangeEvent, bool, error)

// readHistory reads and checks the feed in fsys. A tree without a feed
// gives a nil history (a new one starts); a feed that is there but cannot
// be continued is an error wrapping ErrPreviousFeed, returned with as much
// of the history as was read (its epoch at least, when it could be read).
func readHistory(r routes, fsys fs.FS, known knownFeed) (*history, error) {
	if fsys == nil {
		return nil, nil
	}
	data, err := fs.ReadFile(fsys, r.changes())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrPreviousFeed, err)
	}
	feed, err := skillcat.ParseChangeFeed(data, skillcat.SupportedMajor)
	if err != nil {
		// Keep what the epoch was, so that a reset never reuses it.
		var named struct{ Epoch string }
		json.Unmarshal(data, &named)
		return &history{feed: &skillcat.ChangeFeed{Epoch: named.Epoch}}, fmt.Errorf("%w: %s: %v", ErrPreviousFeed, r.changes(), err)
	}
	h := &history{feed: feed, first: 1}
	if known != nil {
		state, ok, err := known(digestOf(data))
		if err != nil {
			return nil, err
		}
		if ok && len(feed.Pages) > 0 {
			h.state, h.first = state, feed.Pages[len(feed.Pages)-1].From
		}
	}
	for i, ref := range feed.Pages {
		name, ok := pageFile(r, ref.URL)
		if !ok {
			return h, fmt.Errorf("%w: page URL %q is not a page of this feed", ErrPreviousFeed, ref.URL)
		}
		page, err := fs.ReadFile(fsys, name)
		if err != nil {
			return h, fmt.Errorf("%w: %v", ErrPreviousFeed, err)
		}
		if got := digestOf(page); got != ref.Digest {
			return h, fmt.Errorf("%w: %s: digest is %s; the feed says %s", ErrPreviousFeed, name, got, ref.Digest)
		}
		h.pages = append(h.pages, page)
		if h.state != nil && i < len(feed.Pages)-1 {
			continue // replayed already: its events are not needed
		}
		p, err := skillcat.ParseChangePage(page, ref.From, ref.To)
		if err != nil {
			return h, fmt.Errorf("%w: %s: %v", ErrPreviousFeed, name, err)
		}
		h.events = append(h.events, p.Events...)
	}
	return h, nil
}

// pageFile maps a page URL of a feed document (relative to it) to the
// page's file, which must be in the feed's pages folder.
func pageFile(r routes, ref string) (string, bool) {
	if strings.ContainsAny(ref, ":?#\\") {
		return "", false
	}
	name := path.Join(path.Dir(r.changes()), ref)
	dir, file := path.Split(name)
	return name, dir == r.changePages() && file != ""
}

// previousFeed is the tree the previous feed is read from.
func previousFeed(cfg Config) fs.FS {
	if cfg.Previous != nil {
		return cfg.Previous
	}
	if _, err := os.Stat(cfg.Out); err != nil {
		return nil
	}
	return os.DirFS(cfg.Out)
}

// changeFeed returns the feed files of this build: the document and every
// page. With the rebuild cache, it takes from it what the previous feed's
// events replay to, and keeps what this feed's do (feedStatePart).
func changeFeed(ctx context.Context, cfg Config, r routes, listed []store.Row, cache *store.CacheTx) ([]File, error) {
	var known knownFeed
	if cache != nil {
		known = func(digest string) (map[string]skillcat.ChangeEvent, bool, error) {
			parts, err := cache.Parts(ctx, feedStatePart)
			if err != nil {
				return nil, false, fmt.Errorf("%w: %v", errCache, err)
			}
			data, ok := parts[digest]
			if !ok {
				return nil, false, nil
			}
			state, err := decodeFeedState(data)
			if err != nil {
				return nil, false, fmt.Errorf("%w: %s: %v", errCache, feedStatePart, err)
			}
			return state, true, nil
		}
	}
	h, err := readHistory(r, previousFeed(cfg), known)
	if errors.Is(err, errCache) {
		return nil, err
	}
	if err != nil && !cfg.ResetChanges {
		return nil, fmt.Errorf("%w (build with --reset-changes to start a new history, which followers see as a new epoch)", err)
	}
	epoch := ""
	if h != nil {
		epoch = h.feed.Epoch
	}
	if cfg.ResetChanges {
		h = nil
	}
	state := map[string]skillcat.ChangeEvent{}
	var events []skillcat.ChangeEvent
	var pages [][]byte
	first := int64(1)
	if h != nil {
		if h.state != nil {
			state = h.state
		} else {
			skillcat.Replay(state, h.events)
		}
		events, pages, first = h.events, h.pages, h.first
	}
	at := ""
	if !cfg.Time.IsZero() {
		at = cfg.Time.UTC().Format(time.RFC3339)
	}
	seq := first - 1 + int64(len(events))
	var fresh []skillcat.ChangeEvent
	next := func(e skillcat.ChangeEvent) {
		seq++
		e.Seq, e.At = seq, at
		fresh = append(fresh, e)
	}
	// Every id listed now or before, in order: one event for each that
	// differs.
	ids := make([]string, 0, len(listed)+len(state))
	now := make(map[string]*store.Row, len(listed))
	for i := range listed {
		now[listed[i].ID] = &listed[i]
		ids = append(ids, listed[i].ID)
	}
	for id := range state {
		if now[id] == nil {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		before, was := state[id]
		s := now[id]
		switch {
		case s == nil:
			next(skillcat.ChangeEvent{Op: skillcat.OpDelete, ID: id, Version: before.Version, Digest: before.Digest})
		case !was || before.Digest != s.Digest || before.DescriptorURL != feedDescriptorURL(r, id) || before.Version != s.Version:
			next(skillcat.ChangeEvent{Op: skillcat.OpUpsert, ID: id, Version: s.Version, Digest: s.Digest, DescriptorURL: feedDescriptorURL(r, id)})
		}
	}

	// Earlier pages stay as they were, byte for byte; when there are new
	// events, a last page that is not full takes them, and more pages
	// follow as they fill.
	var refs []skillcat.ChangePageRef
	if h != nil {
		refs = h.feed.Pages
	}
	keep := len(refs)
	pending := fresh
	if len(fresh) > 0 && keep > 0 {
		if last := refs[keep-1]; last.To-last.From+1 < pageSize {
			keep--
			pending = append(append([]skillcat.ChangeEvent(nil), events[last.From-first:]...), fresh...)
		}
	}
	feed := skillcat.ChangeFeed{Latest: seq, Pages: []skillcat.ChangePageRef{}}
	feed.Protocol.Version = skillcat.CurrentVersion
	var files []File
	page := func(file string, from, to int64, data []byte) {
		files = append(files, File{Path: file, Data: data})
		feed.Pages = append(feed.Pages, skillcat.ChangePageRef{URL: r.link(r.changes(), file), From: from, To: to, Digest: digestOf(data)})
	}
	for i := range keep {
		file, _ := pageFile(r, refs[i].URL)
		page(file, refs[i].From, refs[i].To, pages[i])
	}
	for len(pending) > 0 {
		k := min(int64(len(pending)), pageSize)
		from, to := pending[0].Seq, pending[k-1].Seq
		page(r.changePage(from, to), from, to, skillcat.EncodeChanges(skillcat.ChangePage{Events: pending[:k]}))
		pending = pending[k:]
	}
	if h == nil {
		feed.Epoch = newEpoch(epoch, cfg.Time, files)
	} else {
		feed.Epoch = h.feed.Epoch
	}
	doc := skillcat.EncodeChanges(feed)
	files = append(files, File{Path: r.changes(), Data: doc})
	if cache != nil {
		skillcat.Replay(state, fresh)
		if err := cache.PutPart(ctx, feedStatePart, digestOf(doc), encodeFeedState(state)); err != nil {
			return nil, err
		}
	}
	return files, nil
}

// encodeFeedState writes a replayed state for the cache (feedStatePart):
// a line "id\tversion\tdigest\tdescriptor URL" for each skill, in id
// order, which a rebuild reads back faster than JSON; or, should a field
// hold a tab or a line break, a line break and a JSON array of those four
// strings each (a line of four fields never begins with a line break).
func encodeFeedState(state map[string]skillcat.ChangeEvent) string {
	ids := make([]string, 0, len(state))
	for id := range state {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var b strings.Builder
	for _, id := range ids {
		e := state[id]
		for i, f := range [...]string{id, e.Version, e.Digest, e.DescriptorURL} {
			if strings.ContainsAny(f, "\t\n") {
				return encodeFeedStateJSON(ids, state)
			}
			if i > 0 {
				b.WriteByte('\t')
			}
			b.WriteString(f)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// encodeFeedStateJSON is encodeFeedState's JSON form.
func encodeFeedStateJSON(ids []string, state map[string]skillcat.ChangeEvent) string {
	rows := make([][4]string, len(ids))
	for i, id := range ids {
		e := state[id]
		rows[i] = [4]string{id, e.Version, e.Digest, e.DescriptorURL}
	}
	data, _ := json.Marshal(rows)
	return "\n" + string(data)
}

// decodeFeedState reads what encodeFeedState wrote.
func decodeFeedState(data string) (map[string]skillcat.ChangeEvent, error) {
	add := func(state map[string]skillcat.ChangeEvent, r [4]string) {
		state[r[0]] = skillcat.ChangeEvent{Op: skillcat.OpUpsert, ID: r[0], Version: r[1], Digest: r[2], DescriptorURL: r[3]}
	}
	if rest, ok := strings.CutPrefix(data, "\n"); ok {
		var rows [][4]string
		if err := json.Unmarshal([]byte(rest), &rows); err != nil {
			return nil, err
		}
		state := make(map[string]skillcat.ChangeEvent, len(rows))
		for _, r := range rows {
			add(state, r)
		}
		return state, nil
	}
	state := make(map[string]skillcat.ChangeEvent, strings.Count(data, "\n"))
	for line := range strings.SplitSeq(data, "\n") {
		if line == "" {
			continue
		}
		var r [4]string
		rest, ok := line, true
		for i := range r {
			if i < 3 {
				r[i], rest, ok = strings.Cut(rest, "\t")
			} else {
				r[i], ok = rest, !strings.Contains(rest, "\t")
			}
			if !ok {
				return nil, fmt.Errorf("bad line %q", line)
			}
		}
		add(state, r)
	}
	return state, nil
}

// newEpoch names a new history: a digest of the history it replaces (if
// any), the build's date and the first page, so that the same sources give
// the same epoch and a reset never reuses the epoch it replaced.
func newEpoch(previous string, t time.Time, files []File) string {
	h := sha256.New()
	fmt.Fprintf(h, "skillcat changes\x00%s\x00%d\x00", previous, t.Unix())
	if len(files) > 0 {
		h.Write(files[0].Data)
	}
	sum := hex.EncodeToString(h.Sum(nil))[:16]
	if sum == previous {
		sum = hex.EncodeToString(sha256.New().Sum([]byte(sum)))[:16]
	}
	return sum
}

// feedDescriptorURL is where an event points for a skill: absolute under
// the base URL, or relative to the pages (which share one folder).
func feedDescriptorURL(r routes, id string) string {
	return r.published(r.changePage(1, 1), r.descriptor(id))
}

// digestOf is "sha256:" and the hex SHA-256 of data.
func digestOf(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}
