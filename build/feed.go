package build

import (
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

// history is a previous feed as read: its document and every page's events
// and bytes, in order.
type history struct {
	feed   *skillcat.ChangeFeed
	events []skillcat.ChangeEvent
	pages  [][]byte
}

// readHistory reads and checks the feed in fsys. A tree without a feed
// gives a nil history (a new one starts); a feed that is there but cannot
// be continued is an error wrapping ErrPreviousFeed, returned with as much
// of the history as was read (its epoch at least, when it could be read).
func readHistory(r routes, fsys fs.FS) (*history, error) {
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
	h := &history{feed: feed}
	for _, ref := range feed.Pages {
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
		p, err := skillcat.ParseChangePage(page, ref.From, ref.To)
		if err != nil {
			return h, fmt.Errorf("%w: %s: %v", ErrPreviousFeed, name, err)
		}
		h.events = append(h.events, p.Events...)
		h.pages = append(h.pages, page)
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
// page.
func changeFeed(cfg Config, r routes, listed []store.Row) ([]File, error) {
	h, err := readHistory(r, previousFeed(cfg))
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
	if h != nil {
		skillcat.Replay(state, h.events)
		events, pages = h.events, h.pages
	}
	at := ""
	if !cfg.Time.IsZero() {
		at = cfg.Time.UTC().Format(time.RFC3339)
	}
	seq := int64(len(events))
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
			pending = append(append([]skillcat.ChangeEvent(nil), events[last.From-1:]...), fresh...)
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
	files = append(files, File{Path: r.changes(), Data: skillcat.EncodeChanges(feed)})
	return files, nil
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
