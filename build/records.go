package build

import (
	"iter"

	"github.com/skillcat/skillcat/store"
)

// records is the record of every file of a new tree, by path. The paths
// are numbered (pathIndex) and each number is the index of its record in
// slices: nothing in it holds a pointer for the collector to scan or an
// object a path to mark, where a map of paths to their records was
// 275,000 strings and their map to scan at every collection of a build
// of 100,000 skills. A record's key and size are in one slice, its hash
// and identity in another, made only once a record has either: a build
// without the rebuild cache (and no previous record) fills neither, and
// its 275,000 records at 100,000 skills are then 11 MB, not 29. The
// output's mutex guards it.
type records struct {
	paths pathIndex
	sized []sizedRecord
	ids   []idRecord // nil while every record's hash and identity are zero; else as long as sized
	// prev is the previous build's record, or nil; changed are the
	// numbers of the paths whose record was set to one other than prev's
	// (set), each once, and kept counts the paths prev holds too: the
	// rebuild cache's record is brought up to date by the difference
	// (store.CacheTx.UpdateOutputs). Without a previous record every path
	// is changed, and none is noted.
	prev    map[string]store.CachedOutput
	changed []int32
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
	return records{paths: newPathIndex(len(prev)), sized: make([]sizedRecord, 0, len(prev)), prev: prev}
}

// get returns the record of path.
func (r *records) get(path string) (store.CachedOutput, bool) {
	i, ok := r.paths.find(path)
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
	i, had := r.paths.find(path)
	if !had {
		i = r.paths.add(path)
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
		if r.prev != nil {
			r.changed = append(r.changed, i)
		}
	}
	r.sized[i] = sizedRecord{rec.Key, rec.Size, changed}
	if r.ids != nil {
		r.ids[i] = id
	}
}

// len is the number of files recorded.
func (r *records) len() int { return len(r.sized) }

// all yields every path and its record, in the order they were first
// set.
func (r *records) all() iter.Seq2[string, store.CachedOutput] {
	return func(yield func(string, store.CachedOutput) bool) {
		for i := range int32(r.paths.len()) {
			if !yield(r.paths.at(i), r.rec(i)) {
				return
			}
		}
	}
}

// asMap returns the records as one map, for the rebuild cache.
func (r *records) asMap() map[string]store.CachedOutput {
	m := make(map[string]store.CachedOutput, len(r.sized))
	for p, rec := range r.all() {
		m[p] = rec
	}
	return m
}

// since returns the paths whose record is not the one the previous
// build's record holds: the paths set to another record or new, and the
// previous record's paths that no record holds (looked for only when some
// are missing).
func (r *records) since() []string {
	if r.prev == nil {
		paths := make([]string, 0, r.paths.len())
		for i := range int32(r.paths.len()) {
			paths = append(paths, r.paths.at(i))
		}
		return paths
	}
	paths := make([]string, 0, len(r.changed))
	for _, i := range r.changed {
		paths = append(paths, r.paths.at(i))
	}
	if r.kept < len(r.prev) {
		for p := range r.prev {
			if _, ok := r.paths.find(p); !ok {
				paths = append(paths, p)
			}
		}
	}
	return paths
}
