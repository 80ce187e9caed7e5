package build

import (
	"encoding/binary"
	"errors"
	"iter"
	"sort"
	"strings"

	"github.com/skillcat/skillcat/store"
)

// A nothing-changed build must find that the output holds exactly the
// files the last build left, and no other: reading every folder for that
// is most of its time (five system calls for each of 18,000 folders at
// 10,000 skills). A folder's change time moves whenever an entry is added
// to it, removed or renamed, so the check that read every folder notes
// each one's identity (folderRecord), and the next check reads only the
// folders whose identity is no longer that one, or had changed too close
// to when it was noted to tell a later change apart (racyWindow, as for
// the sources): the rest are one fstatat each.

// foldersPart is the kind and key of the rebuild cache's part that holds
// the output's folderRecord.
const (
	foldersPart = "folders"
	foldersKey  = "output"
)

// folderRecord is the identity of each folder of an output, by its path
// relative to the output ("" for the output itself), noted at asOf (Unix
// nanoseconds) by a check that found the output intact. A build that
// writes the output keeps none (the cache drops a part it does not use).
type folderRecord struct {
	asOf    int64
	folders map[string]store.FileID
}

// outputFolders returns the folders that the files at paths (relative,
// slash-separated) lie in, the output itself ("") included, each with the
// number of entries it holds: its files and its folders.
func outputFolders(paths iter.Seq[string]) map[string]int {
	dirs := map[string]int{"": 0}
	for p := range paths {
		for {
			i := strings.LastIndexByte(p, '/')
			parent := ""
			if i >= 0 {
				parent = p[:i]
			}
			n, seen := dirs[parent]
			dirs[parent] = n + 1
			if seen || i < 0 {
				break
			}
			p = parent // a new folder: counted in its own parent in turn
		}
	}
	return dirs
}

// settled reports whether the folder at path, still of the identity id,
// can be taken for unchanged since it was noted: it had last changed
// racyWindow before then, as a source must have to be judged by its
// identity, or twice that where times are kept in whole seconds (FAT
// keeps them to two), and it lies on the output's own file system (not
// on one mounted inside it, whose attributes may be a network's).
func (r *folderRecord) settled(path string, id store.FileID) bool {
	noted, ok := r.folders[path]
	window := racyWindow.Nanoseconds()
	if id.Ctime%1e9 == 0 {
		window *= 2
	}
	return ok && noted == id && id.Ctime < r.asOf-window && id.Dev == r.folders[""].Dev
}

// settlesMore reports whether r takes a folder for settled that old does
// not: whether keeping r instead of old spares the next check a read.
func (r *folderRecord) settlesMore(old *folderRecord) bool {
	for p, id := range r.folders {
		if r.settled(p, id) && !old.settled(p, id) {
			return true
		}
	}
	return false
}

// encode is the record as the cache's part holds it: asOf as a varint,
// then for each folder, by path, the path's length and bytes, then its
// identity (store.AppendFileID).
func (r *folderRecord) encode() string {
	paths := make([]string, 0, len(r.folders))
	for p := range r.folders {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	b := make([]byte, 0, 8+len(paths)*48)
	b = binary.AppendVarint(b, r.asOf)
	for _, p := range paths {
		b = binary.AppendUvarint(b, uint64(len(p)))
		b = append(b, p...)
		b = store.AppendFileID(b, r.folders[p])
	}
	return string(b)
}

// errFolderRecord is the error of a folder record that does not decode.
var errFolderRecord = errors.New("bad folder record")

// decodeFolders reads a record encode wrote.
func decodeFolders(s string) (*folderRecord, error) {
	b := []byte(s)
	r := &folderRecord{folders: map[string]store.FileID{}}
	asOf, k := binary.Varint(b)
	if k <= 0 {
		return nil, errFolderRecord
	}
	r.asOf, b = asOf, b[k:]
	for len(b) > 0 {
		n, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < n {
			return nil, errFolderRecord
		}
		p := string(b[k : k+int(n)])
		b = b[k+int(n):]
		id, rest, ok := store.ReadFileID(b)
		if !ok {
			return nil, errFolderRecord
		}
		b = rest
		r.folders[p] = id
	}
	return r, nil
}
