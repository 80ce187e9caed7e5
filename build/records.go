package build

import (
	"iter"

	"github.com/skillcat/skillcat/store"
)

// records is the record of every file of a new tree, by path. A map of
// paths to the index of their record in one slice: the collector then
// scans a map of 24-byte slots (a path and a number) and a slice with no
// pointer in it, where a map of the records themselves is 120-byte slots
// to scan, twice as many as there are files (a large map's tables are
// half full), at every collection of a render: ~63 MB at 100,000 skills,
// for ~13 MB of map and ~29 MB of records here. The output's mutex
// guards it.
type records struct {
	at   map[string]int32
	recs []store.CachedOutput
}

func newRecords() records {
	return records{at: map[string]int32{}}
}

// get returns the record of path.
func (r *records) get(path string) (store.CachedOutput, bool) {
	i, ok := r.at[path]
	if !ok {
		return store.CachedOutput{}, false
	}
	return r.recs[i], true
}

// set records rec for path, replacing the record it had.
func (r *records) set(path string, rec store.CachedOutput) {
	if i, ok := r.at[path]; ok {
		r.recs[i] = rec
		return
	}
	r.at[path] = int32(len(r.recs))
	r.recs = append(r.recs, rec)
}

// len is the number of files recorded.
func (r *records) len() int { return len(r.recs) }

// all yields every path and its record, in no order.
func (r *records) all() iter.Seq2[string, store.CachedOutput] {
	return func(yield func(string, store.CachedOutput) bool) {
		for p, i := range r.at {
			if !yield(p, r.recs[i]) {
				return
			}
		}
	}
}

// asMap returns the records as one map, for the rebuild cache.
func (r *records) asMap() map[string]store.CachedOutput {
	m := make(map[string]store.CachedOutput, len(r.recs))
	for p, i := range r.at {
		m[p] = r.recs[i]
	}
	return m
}
