package build

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"slices"
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
// removed. Full pages are copied byte for byte, so they never change;
// only the last page grows. A private skill is never listed, so no event
// of this build names it; and when the history names a skill that is
// private now (it was listed once), the feed starts a new history, a new
// epoch, since its pages cannot forget: nothing of a private skill stays
// in the output. Pages are named by their epoch, so a new history never
// reuses a URL an earlier one gave other bytes.

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
	known  *feedState // the events replayed, from the cache; nil when not known
}

// feedState is what a feed's events replay to: the last upsert of each
// skill listed, and the ids the feed names that a delete removed since.
type feedState struct {
	listed map[string]skillcat.ChangeEvent
	gone   map[string]bool
}

// replay applies events to the state.
func (s *feedState) replay(events []skillcat.ChangeEvent) {
	skillcat.Replay(s.listed, events)
	for _, e := range events {
		if e.Op == skillcat.OpDelete {
			s.gone[e.ID] = true
		} else {
			delete(s.gone, e.ID)
		}
	}
}

// names reports whether the feed names any of the ids.
func (s *feedState) names(ids map[string]bool) bool {
	for id := range ids {
		if _, ok := s.listed[id]; ok || s.gone[id] {
			return true
		}
	}
	return false
}

func newFeedState() *feedState {
	return &feedState{listed: map[string]skillcat.ChangeEvent{}, gone: map[string]bool{}}
}

// feedStatePart is the kind of the rebuild cache's part that holds what a
// change feed's events replay to (the last event of each skill listed),
// keyed by the digest of the feed's document, which pins every page by
// its digest: a rebuild that finds the feed it continues known does not
// parse its full pages again (encodeFeedState).
const feedStatePart = "feed-state"

// knownFeed returns the replayed state the cache keeps for the feed whose
// document has the digest, if any.
type knownFeed func(digest string) (*feedState, bool, error)

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
			h.known, h.first = state, feed.Pages[len(feed.Pages)-1].From
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
		if h.known != nil && i < len(feed.Pages)-1 {
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
// page; restarted is set when the history named a skill that withheld
// (the ids of the private skills) holds, so a new one began. With the
// rebuild cache, it takes from it what the previous feed's events replay
// to, and keeps what this feed's do (feedStatePart).
func changeFeed(ctx context.Context, cfg Config, r routes, listed []store.Row, withheld map[string]bool, cache *store.CacheTx) (files []File, restarted bool, err error) {
	var known knownFeed
	if cache != nil {
		known = func(digest string) (*feedState, bool, error) {
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
		return nil, false, err
	}
	if err != nil && !cfg.ResetChanges {
		return nil, false, fmt.Errorf("%w (build with --reset-changes to start a new history, which followers see as a new epoch)", err)
	}
	epoch := ""
	if h != nil {
		epoch = h.feed.Epoch
	}
	if cfg.ResetChanges {
		h = nil
	}
	state := newFeedState()
	if h != nil {
		if h.known != nil {
			state = h.known
		} else {
			state.replay(h.events)
		}
		if state.names(withheld) {
			// A skill listed once is private now: its pages cannot
			// forget it, so a new history starts without it.
			h, state, restarted = nil, newFeedState(), true
		}
	}
	var events []skillcat.ChangeEvent
	var pages [][]byte
	first := int64(1)
	if h != nil {
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
	ids := make([]string, 0, len(listed)+len(state.listed))
	now := make(map[string]*store.Row, len(listed))
	for i := range listed {
		now[listed[i].ID] = &listed[i]
		ids = append(ids, listed[i].ID)
	}
	for id := range state.listed {
		if now[id] == nil {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		before, was := state.listed[id]
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
	// The new pages' bytes first: a new history's epoch, which names
	// them, digests them all.
	var encoded [][]byte
	var ranges [][2]int64
	for len(pending) > 0 {
		k := min(int64(len(pending)), pageSize)
		encoded = append(encoded, skillcat.EncodeChanges(skillcat.ChangePage{Events: pending[:k]}))
		ranges = append(ranges, [2]int64{pending[0].Seq, pending[k-1].Seq})
		pending = pending[k:]
	}
	feed := skillcat.ChangeFeed{Latest: seq, Pages: []skillcat.ChangePageRef{}}
	feed.Protocol.Version = skillcat.CurrentVersion
	page := func(file string, from, to int64, data []byte) {
		files = append(files, File{Path: file, Data: data})
		feed.Pages = append(feed.Pages, skillcat.ChangePageRef{URL: r.link(r.changes(), file), From: from, To: to, Digest: digestOf(data)})
	}
	for i := range keep {
		file, _ := pageFile(r, refs[i].URL)
		page(file, refs[i].From, refs[i].To, pages[i])
	}
	if h == nil {
		feed.Epoch = newEpoch(epoch, cfg.Time, encoded)
	} else {
		feed.Epoch = h.feed.Epoch
	}
	for i, data := range encoded {
		from, to := ranges[i][0], ranges[i][1]
		page(r.changePage(feed.Epoch, from, to), from, to, data)
	}
	doc := skillcat.EncodeChanges(feed)
	files = append(files, File{Path: r.changes(), Data: doc})
	if cache != nil {
		state.replay(fresh)
		if err := cache.PutPart(ctx, feedStatePart, digestOf(doc), encodeFeedState(state)); err != nil {
			return nil, false, err
		}
	}
	return files, restarted, nil
}

// encodeFeedState writes a replayed state for the cache (feedStatePart):
// a line "id\tversion\tdigest\tdescriptor URL" for each skill listed, in
// id order, then a line "id" for each id gone, in order; a rebuild reads
// it back faster than JSON. Should a field hold a tab or a line break, it
// is a line break and a JSON array instead, of the four strings of each
// skill listed and the one string of each id gone (no line of the text
// form begins with a line break).
func encodeFeedState(state *feedState) string {
	ids := slices.Sorted(maps.Keys(state.listed))
	gone := slices.Sorted(maps.Keys(state.gone))
	var b strings.Builder
	for _, id := range ids {
		e := state.listed[id]
		for i, f := range [...]string{id, e.Version, e.Digest, e.DescriptorURL} {
			if strings.ContainsAny(f, "\t\n") {
				return encodeFeedStateJSON(ids, gone, state)
			}
			if i > 0 {
				b.WriteByte('\t')
			}
			b.WriteString(f)
		}
		b.WriteByte('\n')
	}
	for _, id := range gone {
		if id == "" || strings.ContainsAny(id, "\t\n") {
			return encodeFeedStateJSON(ids, gone, state)
		}
		b.WriteString(id)
		b.WriteByte('\n')
	}
	return b.String()
}

// encodeFeedStateJSON is encodeFeedState's JSON form.
func encodeFeedStateJSON(ids, gone []string, state *feedState) string {
	rows := make([][]string, 0, len(ids)+len(gone))
	for _, id := range ids {
		e := state.listed[id]
		rows = append(rows, []string{id, e.Version, e.Digest, e.DescriptorURL})
	}
	for _, id := range gone {
		rows = append(rows, []string{id})
	}
	data, _ := json.Marshal(rows)
	return "\n" + string(data)
}

// decodeFeedState reads what encodeFeedState wrote.
func decodeFeedState(data string) (*feedState, error) {
	state := newFeedState()
	add := func(r []string) error {
		switch len(r) {
		case 4:
			state.listed[r[0]] = skillcat.ChangeEvent{Op: skillcat.OpUpsert, ID: r[0], Version: r[1], Digest: r[2], DescriptorURL: r[3]}
		case 1:
			state.gone[r[0]] = true
		default:
			return fmt.Errorf("bad row of %d fields", len(r))
		}
		return nil
	}
	if rest, ok := strings.CutPrefix(data, "\n"); ok {
		var rows [][]string
		if err := json.Unmarshal([]byte(rest), &rows); err != nil {
			return nil, err
		}
		for _, r := range rows {
			if err := add(r); err != nil {
				return nil, err
			}
		}
		return state, nil
	}
	for line := range strings.SplitSeq(data, "\n") {
		if line == "" {
			continue
		}
		r := strings.Split(line, "\t")
		if err := add(r); err != nil {
			return nil, fmt.Errorf("line %q: %w", line, err)
		}
	}
	return state, nil
}

// newEpoch names a new history: a digest of the history it replaces (if
// any), the build's date and every page, so that the same sources give
// the same epoch, a reset never reuses the epoch it replaced, and two new
// histories that differ in any page (not only the first: a deploy without
// its previous feed and date) never share a page URL.
func newEpoch(previous string, t time.Time, pages [][]byte) string {
	h := sha256.New()
	fmt.Fprintf(h, "skillcat changes\x00%s\x00%d\x00", previous, t.Unix())
	for i, p := range pages {
		if i > 0 { // a page's JSON holds no NUL: the first alone hashes as before
			fmt.Fprintf(h, "\x00%d\x00", len(p))
		}
		h.Write(p)
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
	return r.published(r.changePages(), r.descriptor(id))
}

// digestOf is "sha256:" and the hex SHA-256 of data.
func digestOf(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}
