package build

import (
	"iter"
	"slices"

	"github.com/skillcat/skillcat/store"
)

// records is the record of every file of a new tree, by path. A map of
// paths to the index of their record in pointer-free slices: the collector
// then scans a map of 24-byte slots (a path and a number) and slices with
// no pointer in them, where a map of the records themselves is 120-byte
// slots to scan, twice as many as there are files (a large map's tables
// are half full), at every collection of a render: ~63 MB at 100,000
// skills, for ~13 MB of map and ~29 MB of records here. A record's key and
// size are in one slice, its hash and identity in another, made only once
// a record has either: a build without the rebuild cache (and no previous
// record) fills neither, and its 275,000 records at 100,000 skills are
// then 11 MB, not 29. The output's mutex guards it.
type records struct {
	at    map[string]int32
	sized []sizedRecord
	ids   []idRecord // nil while every record's hash and identity are zero; else as long as sized
	// prev is the previous build's record, or nil; changed are the paths
	// whose record was set to one other than prev's (set), each once, and
	// kept counts the paths prev holds too: the rebuild cache's record is
	// brought up to date by the difference (store.CacheTx.UpdateOutputs).
	prev    map[string]store.CachedOutput
	changed []string
	kept    int
}

// sizedRecord is the part of a record every build fills.
type sizedRecord struct {
	key     store.Digest
	size    int64
	changed bool // in records.changed
}

// idRecord is the part of a record only a build that hashes its files or
// notes their identities fills.
type idRecord struct {
	hash store.Digest
	stat store.FileID
}

// newRecords returns records of a new tree whose previous build recorded
// prev (nil for none), with room for as many files: a rebuild's are about
// those of the build before, and its 27,500 records at 10,000 skills,
// grown from none, allocated ~16 MB (a slice grows by a quarter at a time
// past 256 elements), four times what they hold.
func newRecords(prev map[string]store.CachedOutput) records {
	return records{at: make(map[string]int32, len(prev)), sized: make([]sizedRecord, 0, len(prev)), prev: prev}
}

// get returns the record of path.
func (r *records) get(path string) (store.CachedOutput, bool) {
	i, ok := r.at[path]
	if !ok {
		return store.CachedOutput{}, false
	}
	return r.rec(i), true
}

// rec is record i.
func (r *records) rec(i int32) store.CachedOutput {
	rec := store.CachedOutput{Key: r.sized[i].key, Size: r.sized[i].size}
	if r.ids != nil {
		rec.Hash, rec.Stat = r.ids[i].hash, r.ids[i].stat
	}
	return rec
}

// set records rec for path, replacing the record it had.
func (r *records) set(path string, rec store.CachedOutput) {
	prev, ok := r.prev[path]
	id := idRecord{rec.Hash, rec.Stat}
	if r.ids == nil && id != (idRecord{}) {
		r.ids = make([]idRecord, len(r.sized), cap(r.sized))
	}
	i, had := r.at[path]
	if !had {
		i = int32(len(r.sized))
		r.at[path] = i
		r.sized = append(r.sized, sizedRecord{})
		if r.ids != nil {
			r.ids = append(r.ids, idRecord{})
		}
		if ok {
			r.kept++
		}
	}
	changed := r.sized[i].changed
	if !changed && (!ok || rec != prev) {
		changed = true
		r.changed = append(r.changed, path)
	}
	r.sized[i] = sizedRecord{rec.Key, rec.Size, changed}
	if r.ids != nil {
		r.ids[i] = id
	}
}

// len is the number of files recorded.
func (r *records) len() int { return len(r.sized) }

// all yields every path and its record, in no order.
func (r *records) all() iter.Seq2[string, store.CachedOutput] {
	return func(yield func(string, store.CachedOutput) bool) {
		for p, i := range r.at {
			if !yield(p, r.rec(i)) {
				return
			}
		}
	}
}

// asMap returns the records as one map, for the rebuild cache.
func (r *records) asMap() map[string]store.CachedOutput {
	m := make(map[string]store.CachedOutput, len(r.sized))
	for p, i := range r.at {
		m[p] = r.rec(i)
	}
	return m
}

// since returns the paths whose record is not the one the previous
// build's record holds: the paths set to another record or new, and the
// previous record's paths that no record holds (looked for only when some
// are missing).
func (r *records) since() []string {
	paths := r.changed
	if r.kept < len(r.prev) {
		paths = slices.Clone(paths)
		for p := range r.prev {
			if _, ok := r.at[p]; !ok {
				paths = append(paths, p)
			}
		}
	}
	return paths
}
