package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
)

// Digest is a SHA-256 sum: of a file's bytes, or of the key a file was
// made from.
type Digest [sha256.Size]byte

// String returns the digest in lowercase hex.
func (d Digest) String() string { return hex.EncodeToString(d[:]) }

// FileID is the identity of a file as the system reports it: device,
// inode, change time (ns) and size. The zero FileID means unknown.
type FileID struct {
	Dev, Ino uint64
	Ctime    int64
	Size     int64
}

// CachedOutput is one file of the previous build's output; its path is its
// key in the map Outputs returns. It is fixed-size (no string of its own),
// so that the record of 275,000 files costs little beside their paths.
type CachedOutput struct {
	Key  Digest // sha256 of what it was made from; zero for none
	Hash Digest // sha256 of its bytes
	Size int64
	Stat FileID // the identity of the file the build left; zero means unknown
}

// The outputs table holds the record of the output's files in
// outputBuckets rows, each the records of the paths that hash to its
// bucket (outputBucket), sorted by path and encoded one after the other:
// the path's length and bytes, the key and hash (32 bytes each), then the
// size, device, inode, change time and identity's size as varints; last,
// the SHA-256 of all of that. Reading 27,000 records is then a thousand
// rows, and a build that changed a few files rewrites the few buckets that
// hold them. The checksum is verified on every read: a record's hash is
// published as its file's digest (the Agent Skills index gives each
// SKILL.md's from it), so an edit of a bucket (the sqlite3 shell, a bad
// copy) must make the cache corrupt, not the site wrong.
const outputBuckets = 1024

// outputBucket is the bucket of the outputs table that holds path: its
// 32-bit FNV-1a hash, modulo outputBuckets.
func outputBucket(path string) int64 {
	h := uint32(2166136261)
	for i := 0; i < len(path); i++ {
		h ^= uint32(path[i])
		h *= 16777619
	}
	return int64(h % outputBuckets)
}

// errOutputRecord is the error of a bucket that does not decode.
var errOutputRecord = errors.New("malformed output record")

// Outputs returns the previous build's output files by path.
func (t *CacheTx) Outputs(ctx context.Context) (map[string]CachedOutput, error) {
	return t.OutputsAside(ctx)()
}

// OutputsAside is Outputs with the records decoded on a goroutine of
// their own: it reads the outputs table and returns at once a function
// that waits for the decoding and gives what Outputs would (the same
// map, each time it is called). The transaction is free for other
// statements meanwhile.
func (t *CacheTx) OutputsAside(ctx context.Context) func() (map[string]CachedOutput, error) {
	defer GuardFaults()() // a read of a cache file cut short (OnFault)
	type bucketOf struct {
		n    int64
		data []byte
	}
	var buckets []bucketOf
	size := 0
	err := func() error {
		t.mu.Lock()
		defer t.mu.Unlock()
		rows, err := t.tx.QueryContext(ctx, `SELECT bucket, data FROM outputs`)
		if err != nil {
			return t.corrupt(ctx, "outputs", err)
		}
		for rows.Next() {
			var b bucketOf
			if err := rows.Scan(&b.n, &b.data); err != nil {
				rows.Close()
				return t.corrupt(ctx, "outputs", err)
			}
			buckets = append(buckets, b)
			size += len(b.data)
		}
		if err := closeRows(rows); err != nil {
			return t.corrupt(ctx, "outputs", err)
		}
		return nil
	}()
	if err != nil {
		return func() (map[string]CachedOutput, error) { return nil, err }
	}
	var out map[string]CachedOutput
	paths := make(map[int64][]string, len(buckets))
	bad := int64(-1) // the bucket that does not decode
	done := make(chan struct{})
	go func() {
		defer close(done)
		out = make(map[string]CachedOutput, size/outputRecordSize)
		for _, b := range buckets {
			if decodeOutputs(b.data, b.n, out, paths) != nil {
				out, bad = nil, b.n
				return
			}
		}
	}()
	var once sync.Once
	return func() (map[string]CachedOutput, error) {
		<-done
		once.Do(func() {
			if bad >= 0 {
				err = t.corrupt(ctx, fmt.Sprintf("outputs bucket %d", bad), errOutputRecord)
				return
			}
			t.mu.Lock()
			t.outputPaths = paths
			t.mu.Unlock()
		})
		return out, err
	}
}

// outputRecordSize is about what one record takes in a bucket, to size
// the map the records are decoded into.
const outputRecordSize = 100

// SetOutputs stores outs as the record of the output's files. since, when
// not nil, is the record Outputs returned in this transaction: only the
// buckets holding a path whose record differs from it are written, so a
// build that changed a few files writes a few rows.
func (t *CacheTx) SetOutputs(ctx context.Context, outs, since map[string]CachedOutput) error {
	defer GuardFaults()() // a read of a cache file cut short (OnFault)
	t.mu.Lock()
	defer t.mu.Unlock()
	dirty := map[int64]bool{}
	if since == nil {
		if _, err := t.tx.ExecContext(ctx, `DELETE FROM outputs`); err != nil {
			return fmt.Errorf("update cache: %w", err)
		}
		for p := range outs {
			dirty[outputBucket(p)] = true
		}
	} else {
		kept := 0 // paths of outs that since holds
		for p, r := range outs {
			old, ok := since[p]
			if ok {
				kept++
			}
			if !ok || old != r {
				dirty[outputBucket(p)] = true
			}
		}
		// since's paths that outs lacks, when there are any (a rebuild
		// that removed no file looks none up).
		if kept < len(since) {
			for p := range since {
				if _, ok := outs[p]; !ok {
					dirty[outputBucket(p)] = true
				}
			}
		}
	}
	paths := map[int64][]string{}
	for p := range outs {
		if b := outputBucket(p); dirty[b] {
			paths[b] = append(paths[b], p)
		}
	}
	get := func(p string) (CachedOutput, bool) {
		r, ok := outs[p]
		return r, ok
	}
	return t.putBuckets(ctx, slices.Collect(maps.Keys(dirty)), func(b int64) []string { return paths[b] }, get)
}

// UpdateOutputs stores the record of the output's files as SetOutputs
// does, from what changed since the record Outputs (or OutputsAside)
// returned in this transaction: get gives a path's new record (false
// for a path the output no longer holds), and changed names every path
// whose record differs from the one Outputs gave, new paths included,
// and every path of that record the new one lacks. Only the buckets
// holding those paths are read and written: a build that changed a few
// files does not look at the others' records at all.
func (t *CacheTx) UpdateOutputs(ctx context.Context, get func(path string) (CachedOutput, bool), changed []string) error {
	defer GuardFaults()() // a read of a cache file cut short (OnFault)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.outputPaths == nil {
		return fmt.Errorf("update cache: the outputs were not read in this transaction")
	}
	dirty := map[int64][]string{}
	for _, p := range changed {
		b := outputBucket(p)
		dirty[b] = append(dirty[b], p)
	}
	return t.putBuckets(ctx, slices.Collect(maps.Keys(dirty)), func(b int64) []string {
		return append(dirty[b], t.outputPaths[b]...)
	}, get)
}

// putBuckets writes the buckets dirty, each holding the paths that paths
// gives it (listed in any order, some more than once) for which get finds
// a record; a bucket left empty is deleted.
func (t *CacheTx) putBuckets(ctx context.Context, dirty []int64, paths func(b int64) []string, get func(string) (CachedOutput, bool)) error {
	if len(dirty) == 0 {
		return nil
	}
	put, err := t.tx.PrepareContext(ctx, `INSERT OR REPLACE INTO outputs (bucket, data) VALUES (?, ?)`)
	if err != nil {
		return fmt.Errorf("update cache: %w", err)
	}
	defer put.Close()
	del, err := t.tx.PrepareContext(ctx, `DELETE FROM outputs WHERE bucket = ?`)
	if err != nil {
		return fmt.Errorf("update cache: %w", err)
	}
	defer del.Close()
	slices.Sort(dirty)
	var buf []byte
	for _, b := range dirty {
		ps := slices.Compact(slices.Sorted(slices.Values(paths(b))))
		buf = buf[:0]
		for _, p := range ps {
			if r, ok := get(p); ok {
				buf = appendOutput(buf, p, r)
			}
		}
		if len(buf) == 0 {
			if _, err := del.ExecContext(ctx, b); err != nil {
				return fmt.Errorf("update cache: outputs bucket %d: %w", b, err)
			}
			continue
		}
		sum := sha256.Sum256(buf)
		buf = append(buf, sum[:]...)
		if _, err := put.ExecContext(ctx, b, buf); err != nil {
			return fmt.Errorf("update cache: outputs bucket %d: %w", b, err)
		}
	}
	return nil
}

// appendOutput appends the encoding of one record to buf.
func appendOutput(buf []byte, path string, r CachedOutput) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(path)))
	buf = append(buf, path...)
	buf = append(buf, r.Key[:]...)
	buf = append(buf, r.Hash[:]...)
	buf = binary.AppendVarint(buf, r.Size)
	return AppendFileID(buf, r.Stat)
}

// AppendFileID appends the encoding of id to buf: device, inode, change
// time and size as varints.
func AppendFileID(buf []byte, id FileID) []byte {
	buf = binary.AppendUvarint(buf, id.Dev)
	buf = binary.AppendUvarint(buf, id.Ino)
	buf = binary.AppendVarint(buf, id.Ctime)
	return binary.AppendVarint(buf, id.Size)
}

// ReadFileID reads the identity AppendFileID encoded at the start of b
// and returns what follows it; ok is false when b is cut short.
func ReadFileID(b []byte) (id FileID, rest []byte, ok bool) {
	if id.Dev, b, ok = uvarint(b); !ok {
		return FileID{}, b, false
	}
	if id.Ino, b, ok = uvarint(b); !ok {
		return FileID{}, b, false
	}
	if id.Ctime, b, ok = varint(b); !ok {
		return FileID{}, b, false
	}
	if id.Size, b, ok = varint(b); !ok {
		return FileID{}, b, false
	}
	return id, b, true
}

// decodeOutputs adds the records of one bucket's data to out, and their
// paths to the bucket's in paths. A checksum that does not match, a
// record cut short, a path out of order or in another bucket is an error.
func decodeOutputs(data []byte, bucket int64, out map[string]CachedOutput, paths map[int64][]string) error {
	if len(data) < sha256.Size {
		return errOutputRecord
	}
	data, sum := data[:len(data)-sha256.Size], data[len(data)-sha256.Size:]
	if got := sha256.Sum256(data); !bytes.Equal(got[:], sum) {
		return errOutputRecord
	}
	last := ""
	for len(data) > 0 {
		n, k := binary.Uvarint(data)
		if k <= 0 || n == 0 || n > uint64(len(data)-k) {
			return errOutputRecord
		}
		path := string(data[k : k+int(n)])
		data = data[k+int(n):]
		if path <= last || outputBucket(path) != bucket || len(data) < 2*sha256.Size {
			return errOutputRecord
		}
		last = path
		var r CachedOutput
		copy(r.Key[:], data)
		copy(r.Hash[:], data[sha256.Size:])
		data = data[2*sha256.Size:]
		var ok bool
		if r.Size, data, ok = varint(data); !ok {
			return errOutputRecord
		}
		if r.Stat, data, ok = ReadFileID(data); !ok {
			return errOutputRecord
		}
		out[path] = r
		paths[bucket] = append(paths[bucket], path)
	}
	return nil
}

func varint(b []byte) (int64, []byte, bool) {
	v, k := binary.Varint(b)
	if k <= 0 {
		return 0, b, false
	}
	return v, b[k:], true
}

func uvarint(b []byte) (uint64, []byte, bool) {
	v, k := binary.Uvarint(b)
	if k <= 0 {
		return 0, b, false
	}
	return v, b[k:], true
}
