package build

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/skillcat/skillcat/store"
)

// In a rebuild the search postings of unchanged skills are not merged
// again token by token from the cache: they are read back from the
// previous build's shards, which hold them already, and renumbered for
// this build's listing. The cache keeps, for each search index a build
// wrote, which skill each document number stood for (searchLayoutPart);
// a skill whose tokensKey is unchanged keeps its postings, the others'
// are dropped and their tokens made again (postingsRun.wants). The shards
// and the manifest are used only when each is still the file the previous
// build left, as a hard-linked file is, and its bytes hash to the recorded
// hash; anything else falls back to the tokens the cache keeps.

// searchLayoutPart is the kind of the rebuild cache's part that names the
// documents of a search index: keyed by the hash of its manifest, the
// tokensKey of each document in document order, one a line.
const searchLayoutPart = "search-layout"

// errNoPrevious says that the previous search index cannot be used.
var errNoPrevious = errors.New("no previous search index")

// previousPostings returns the postings of the previous build's search
// index for the documents of this build whose keys (tokensKey, by
// document number) it held, renumbered, and which documents those are.
// Its error is errNoPrevious when the previous index cannot be used, and
// wraps errCache when what the cache says of it does not hold.
func previousPostings(ctx context.Context, o *output, cache *store.CacheTx, r routes, keys []string) (map[string][]posting, []bool, error) {
	if o == nil || o.prev == nil || cache == nil {
		return nil, nil, errNoPrevious
	}
	manifest, rec, err := o.previousBytes(r.search())
	if err != nil {
		return nil, nil, errNoPrevious
	}
	parts, err := cache.Parts(ctx, searchLayoutPart)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", errCache, err)
	}
	layout, ok := parts[rec.Hash.String()]
	if !ok {
		return nil, nil, errNoPrevious
	}
	var man struct {
		Docs   int     `json:"docs"`
		Shards [][]any `json:"shards"` // [prefix, file, size] (shardRef)
	}
	if err := json.Unmarshal(manifest, &man); err != nil {
		return nil, nil, fmt.Errorf("%w: %s: %v", errCache, r.search(), err)
	}
	old := strings.Split(strings.TrimSuffix(layout, "\n"), "\n")
	if layout == "" {
		old = nil
	}
	if len(old) != man.Docs {
		return nil, nil, fmt.Errorf("%w: %s: %d documents, the index has %d", errCache, searchLayoutPart, len(old), man.Docs)
	}
	now := make(map[string]int, len(keys))
	for i, k := range keys {
		now[k] = i
	}
	renumber := make([]int32, len(old))
	kept := make([]bool, len(keys))
	for i, k := range old {
		n, ok := now[k]
		if !ok {
			renumber[i] = -1
			continue
		}
		renumber[i], kept[n] = int32(n), true
	}
	postings := map[string][]posting{}
	for _, sh := range man.Shards {
		file, ok := "", len(sh) == 3
		if ok {
			file, ok = sh[1].(string)
		}
		if !ok {
			return nil, nil, fmt.Errorf("%w: %s: bad shard %v", errCache, r.search(), sh)
		}
		data, _, err := o.previousBytes(r.searchFile(file))
		if err != nil {
			return nil, nil, errNoPrevious
		}
		if err := readShard(data, renumber, postings); err != nil {
			return nil, nil, fmt.Errorf("%w: %s: %v", errCache, file, err)
		}
	}
	previousSearchRead()
	return postings, kept, nil
}

// previousSearchRead is called when the previous search index's postings
// are read back (previousPostings); tests replace it.
var previousSearchRead = func() {}

// readShard adds the postings of one shard (encodeShard) to postings,
// each document renumbered (or dropped, at -1).
func readShard(data []byte, renumber []int32, postings map[string][]posting) error {
	bad := errors.New("bad shard")
	for len(data) > 0 {
		n, k := binary.Uvarint(data)
		if k <= 0 || n > uint64(len(data)-k) {
			return bad
		}
		token := string(data[k : k+int(n)])
		data = data[k+int(n):]
		count, k := binary.Uvarint(data)
		if k <= 0 || count > uint64(len(data)) {
			return bad
		}
		data = data[k:]
		ps := postings[token]
		if ps == nil && count > 0 {
			// A token is in one shard: its postings, made to their size
			// (~970,000 at 10,000 skills, ~4 MB), not grown to it.
			ps = make([]posting, 0, count) // count <= len(data): checked above
		}
		doc := uint64(0)
		for range count {
			v, k := binary.Uvarint(data)
			if k <= 0 {
				return bad
			}
			data = data[k:]
			doc += v >> 2
			if doc >= uint64(len(renumber)) {
				return bad
			}
			if n := renumber[doc]; n >= 0 {
				ps = append(ps, posting(n)<<2|posting(v&3))
			}
		}
		if len(ps) > 0 {
			postings[token] = ps
		}
	}
	return nil
}

// previousBytes reads the previous build's file at path, when it is still
// the file that build left and its bytes are those it recorded.
func (o *output) previousBytes(path string) ([]byte, store.CachedOutput, error) {
	rec, ok := o.prev[path]
	if !ok {
		return nil, rec, errNoPrevious
	}
	f, err := os.Open(filepath.Join(o.out, filepath.FromSlash(path)))
	if err != nil {
		return nil, rec, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !sameFile(info, rec) {
		return nil, rec, errNoPrevious
	}
	data := make([]byte, info.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, rec, err
	}
	if sha256.Sum256(data) != rec.Hash {
		return nil, rec, errNoPrevious
	}
	return data, rec, nil
}

// searchInput is what the search files are written from: the postings
// and each document's tokensKey, by document number.
type searchInput struct {
	postings map[string][]posting
	keys     []string
}

// keepSearchLayout keeps for the next build which skill each document of
// the search index just written stands for (searchLayoutPart).
func keepSearchLayout(ctx context.Context, cache *store.CacheTx, o *output, r routes, keys []string) error {
	rec, ok := o.recorded(r.search())
	if !ok {
		return fmt.Errorf("%s: not written", r.search())
	}
	var b strings.Builder
	b.Grow(len(keys) * 65)
	for _, k := range keys {
		b.WriteString(k)
		b.WriteByte('\n')
	}
	return cache.PutPart(ctx, searchLayoutPart, rec.Hash.String(), b.String())
}
