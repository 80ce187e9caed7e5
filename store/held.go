package store

import (
	"bytes"
	"slices"
	"strings"
)

// heldRows are the rows a load into the empty temporary index added, held
// for the commit, which inserts their tags in id order (tagged,
// Loader.addTags), and for Listing, which gives the listed ones back.
// Nothing in them holds a pointer: each row's strings lie one after
// another in one byte slice and each tag is a number, where a []Row of
// 100,000 skills was some 1.4 million pointers (a row's strings and its
// tags) for the collector to follow at every collection of the load,
// fifty or so in a build of that size. A private row is held only for its
// tags: its id and source.
type heldRows struct {
	text     []byte // the rows' strings (heldFields), row after row
	rows     []heldRow
	tags     []int32 // the rows' tags, row after row, each its place in tagNames
	tagAt    map[string]int32
	tagNames []string
}

// heldRow is one row of heldRows.
type heldRow struct {
	end     int // where its strings end in text
	lens    [heldFields]int32
	tagsEnd int // where its tags end in tags
	listed  bool
}

// heldFields is the number of a row's strings that heldRows keeps, and
// heldID and heldSource the places of two of them in heldFieldsOf.
const (
	heldFields = 9
	heldID     = 0
	heldSource = 7
)

// heldFieldsOf returns pointers to the strings of r that heldRows keeps:
// every string but its descriptor and tags.
func heldFieldsOf(r *Row) [heldFields]*string {
	return [heldFields]*string{&r.ID, &r.Name, &r.Version, &r.CapabilityType, &r.Access,
		&r.Summary, &r.ProviderName, &r.Source, &r.Digest}
}

// add holds the row s; listed says whether it is listed (not private).
func (h *heldRows) add(s *Row, listed bool) {
	r := heldRow{listed: listed}
	for f, p := range heldFieldsOf(s) {
		if !listed && f != heldID && f != heldSource {
			continue
		}
		h.text = append(h.text, *p...)
		r.lens[f] = int32(len(*p))
	}
	r.end = len(h.text)
	for _, tag := range s.Tags {
		t, ok := h.tagAt[tag]
		if !ok {
			if h.tagAt == nil {
				h.tagAt = map[string]int32{}
			}
			t = int32(len(h.tagNames))
			tag = strings.Clone(tag) // not the parse's text
			h.tagAt[tag] = t
			h.tagNames = append(h.tagNames, tag)
		}
		h.tags = append(h.tags, t)
	}
	r.tagsEnd = len(h.tags)
	h.rows = append(h.rows, r)
}

// rowText is the text of row i's strings, all of them.
func (h *heldRows) rowText(i int) []byte {
	start := 0
	if i > 0 {
		start = h.rows[i-1].end
	}
	return h.text[start:h.rows[i].end]
}

// field is string f of row i.
func (h *heldRows) field(i, f int) []byte {
	b := h.rowText(i)
	for _, n := range h.rows[i].lens[:f] {
		b = b[n:]
	}
	return b[:h.rows[i].lens[f]]
}

// tagsOf is the tags of row i, as places in tagNames.
func (h *heldRows) tagsOf(i int) []int32 {
	start := 0
	if i > 0 {
		start = h.rows[i-1].tagsEnd
	}
	return h.tags[start:h.rows[i].tagsEnd]
}

// listing returns the listed rows that keep (by source), in the order
// they were held: as ListedEntries reads them, with no descriptor. Their
// strings share one allocation, and their tags one slice.
func (h *heldRows) listing(keep func(source []byte) bool) []Row {
	var kept []int
	size, ntags := 0, 0
	for i := range h.rows {
		if h.rows[i].listed && keep(h.field(i, heldSource)) {
			kept = append(kept, i)
			size += len(h.rowText(i))
			ntags += len(h.tagsOf(i))
		}
	}
	var b strings.Builder
	b.Grow(size)
	for _, i := range kept {
		b.Write(h.rowText(i))
	}
	all := b.String()
	tags := make([]string, 0, ntags)
	rows := make([]Row, len(kept))
	for k, i := range kept {
		r := &rows[k]
		for f, p := range heldFieldsOf(r) {
			*p, all = all[:h.rows[i].lens[f]], all[h.rows[i].lens[f]:]
		}
		if ts := h.tagsOf(i); len(ts) > 0 {
			at := len(tags)
			for _, t := range ts {
				tags = append(tags, h.tagNames[t])
			}
			r.Tags = tags[at:len(tags):len(tags)]
		}
	}
	return rows
}

// tagged returns the rows with tags that keep (by source), in id order,
// holding only their ids, sources and tags (tagNames is shared): what
// Loader.addTags reads, a fraction of the rows' text.
func (h *heldRows) tagged(keep func(source []byte) bool) *heldRows {
	var at []int
	for i := range h.rows {
		if len(h.tagsOf(i)) > 0 && keep(h.field(i, heldSource)) {
			at = append(at, i)
		}
	}
	slices.SortFunc(at, func(a, b int) int { return bytes.Compare(h.field(a, heldID), h.field(b, heldID)) })
	t := &heldRows{rows: make([]heldRow, 0, len(at)), tagNames: h.tagNames}
	for _, i := range at {
		var r heldRow
		for _, f := range [...]int{heldID, heldSource} {
			b := h.field(i, f)
			t.text = append(t.text, b...)
			r.lens[f] = int32(len(b))
		}
		r.end = len(t.text)
		t.tags = append(t.tags, h.tagsOf(i)...)
		r.tagsEnd = len(t.tags)
		t.rows = append(t.rows, r)
	}
	return t
}
