package build

import "hash/maphash"

// pathList is a list of strings kept one after another in one byte
// slice: the collector marks its two slices and scans neither, where a
// []string of a large tree's paths (275,000 files and 180,000 folders at
// 100,000 skills) is a slice of pointers to scan and an object a path to
// mark, at every collection while the list is held.
type pathList struct {
	text []byte
	ends []int // where string i ends in text
}

// add appends s and returns its number.
func (l *pathList) add(s string) int32 {
	l.text = append(l.text, s...)
	l.ends = append(l.ends, len(l.text))
	return int32(len(l.ends) - 1)
}

// bytes is string i, in the list's own bytes (not to be changed).
func (l *pathList) bytes(i int32) []byte {
	start := 0
	if i > 0 {
		start = l.ends[i-1]
	}
	return l.text[start:l.ends[i]]
}

// at is string i.
func (l *pathList) at(i int32) string { return string(l.bytes(i)) }

// len is the number of strings in the list.
func (l *pathList) len() int { return len(l.ends) }

// pathIndex numbers distinct strings 0, 1, 2, … in the order they are
// added, with no pointer to scan in it (pathList): a string is found by
// its hash in a map of plain numbers, and the rare string whose hash an
// earlier one has is kept in a map of its own. Several goroutines may
// call find and at once nothing adds.
type pathIndex struct {
	pathList
	seed maphash.Seed
	hash map[uint64]int32 // the first string of each hash
	more map[string]int32 // every other string of a hash already held
}

// newPathIndex returns an empty index with room for n strings. The zero
// pathIndex is an empty index too.
func newPathIndex(n int) pathIndex {
	return pathIndex{seed: maphash.MakeSeed(), hash: make(map[uint64]int32, n), pathList: pathList{ends: make([]int, 0, n)}}
}

// find returns the number of s, if the index holds it.
func (x *pathIndex) find(s string) (int32, bool) {
	if x.hash == nil {
		return 0, false
	}
	i, ok := x.hash[maphash.String(x.seed, s)]
	if !ok {
		return 0, false
	}
	if string(x.bytes(i)) == s {
		return i, true
	}
	i, ok = x.more[s]
	return i, ok
}

// add adds s, which the index does not hold, and returns its number.
func (x *pathIndex) add(s string) int32 {
	if x.hash == nil {
		*x = newPathIndex(0)
	}
	h := maphash.String(x.seed, s)
	i := x.pathList.add(s)
	if _, taken := x.hash[h]; !taken {
		x.hash[h] = i
		return i
	}
	if x.more == nil {
		x.more = map[string]int32{}
	}
	x.more[s] = i
	return i
}
