package build

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/store"
)

// The search index is written under search/ (routes.search and
// routes.searchFile) in three kinds of file, so that a query fetches only
// what it needs, as Pagefind does:
//
//   - search/manifest.json: the number of documents, each document's
//     capability type (two bits a document, base64), and the list of index
//     shards with each one's token prefix, file and size;
//   - search/index/<hex of the prefix>.bin: the tokens that start with one
//     prefix, each with its postings (which documents hold it, and in which
//     field), in a compact binary form;
//   - search/docs/<n>.json: what a result card shows, for documents
//     n×searchDocsPerFile to (n+1)×searchDocsPerFile−1.
//
// Documents are the listed skills numbered in the listing's order (by name,
// then id), so results of equal rank come in the listing's order too. A
// token is a run of letters and digits, lower-cased, with accents removed
// (NFKD without combining marks), at most searchTokenRunes long; the page
// folds a query the same way (templates/assets/search.js). Shards are cut
// from a prefix trie: a prefix whose tokens exceed searchShardBudget is
// split by its next letter, its largest children getting shards of their
// own until what remains fits, so an edit changes the shards of the
// prefixes it touches and no others.
const (
	searchDocsPerFile = 32
	searchShardBudget = 48 << 10
	searchTokenRunes  = 32
)

// Field classes of a posting, the best field a token was found in: a match
// in the id or name ranks first.
const (
	fieldDescription = iota
	fieldSummary
	fieldMeta // a tag or the provider
	fieldTitle
)

// searchManifest is search/manifest.json.
type searchManifest struct {
	Version     int        `json:"version"`
	Build       string     `json:"build"` // a digest of every other search file, for cache busting
	Docs        int        `json:"docs"`
	DocsPerFile int        `json:"docs_per_file"`
	TokenRunes  int        `json:"token_runes"`
	Types       []string   `json:"types"`
	TypeMap     string     `json:"type_map"` // base64 of 2 bits a document, index into Types
	Shards      []shardRef `json:"shards"`   // sorted by prefix
}

// shardRef names one index shard in the manifest: [prefix, file, size].
type shardRef struct {
	Prefix string
	File   string
	Size   int
}

// MarshalJSON writes a shardRef as a three-element array, to keep the
// manifest small.
func (s shardRef) MarshalJSON() ([]byte, error) {
	return json.Marshal([]any{s.Prefix, s.File, s.Size})
}

// posting is one document holding a token: doc<<2 | field class.
type posting uint32

// writeSearchFiles encodes the sharded search index of the listed skills
// (in listing order) from the postings a postingsRun gathered, and hands
// each file to add. It reads neither the index nor the cache, so it may
// run beside the skill pages; nothing of a private skill is in docs.
func writeSearchFiles(r routes, docs []listItem, postings map[string][]posting, add func(path string, data []byte)) error {
	toks := make([]string, 0, len(postings))
	for t := range postings {
		toks = append(toks, t)
	}
	slices.Sort(toks)
	entries := make([]tokenEntry, len(toks))
	for i, t := range toks {
		ps := postings[t]
		slices.Sort(ps)
		entries[i] = tokenEntry{token: t, postings: ps}
		entries[i].size = entries[i].encodedSize()
	}
	postings = nil
	sum := sha256.New()
	put := func(path string, data []byte) {
		sum.Write([]byte(path + "\n"))
		sum.Write(data)
		add(path, data)
	}

	man := searchManifest{Version: 1, Docs: len(docs), DocsPerFile: searchDocsPerFile, TokenRunes: searchTokenRunes, TypeMap: typeMap(docs)}
	for _, t := range skillcat.CapabilityTypes {
		man.Types = append(man.Types, string(t))
	}
	for _, sh := range cutShards(entries, "") {
		data := encodeShard(sh.entries)
		file := "index/" + hex.EncodeToString([]byte(sh.prefix)) + ".bin"
		if sh.prefix == "" {
			file = "index/root.bin"
		}
		put(r.searchFile(file), data)
		man.Shards = append(man.Shards, shardRef{sh.prefix, file, len(data)})
	}
	for start := 0; start < len(docs); start += searchDocsPerFile {
		data, err := encodeDocs(docs[start:min(start+searchDocsPerFile, len(docs))])
		if err != nil {
			return fmt.Errorf("search documents: %w", err)
		}
		put(r.searchFile("docs/"+strconv.Itoa(start/searchDocsPerFile)+".json"), data)
	}
	man.Build = hex.EncodeToString(sum.Sum(nil)[:8])
	data, err := json.Marshal(man)
	if err != nil {
		return fmt.Errorf("search manifest: %w", err)
	}
	add(r.search(), append(data, '\n'))
	return nil
}

// postingsRun gathers the search postings of the listed skills. A skill
// whose tokens the rebuild cache holds (by tokensKey) is merged at once and
// not read again; the others (wants) are tokenized from their descriptions
// by whoever reads them: the skill pages' workers, which read those
// descriptors anyway (tokenize; in a rebuild renderStale reads only the
// descriptors some file, export or token wants). One goroutine merges, so the map
// needs no lock, and a document's postings are sorted when written, so the
// order the tokens come in changes no byte.
//
// A document's tokens come to the merger as found, repeats and all
// (docTokenList), and each is looked up once in the merger's index of
// tokens (tokenAt): a map of each document's tokens, then a lookup and a
// store of each in the postings' map, were three times the hashing.
type postingsRun struct {
	ctx      context.Context
	cache    *store.CacheTx // the rebuild cache the tokens are kept in, or nil
	docs     []listItem
	keys     []string
	missing  map[string]int       // doc number by id, of the skills still to tokenize
	postings map[string][]posting // the cached skills' before start, everyone's after finish
	tokenAt  pathIndex            // while merging: each token, numbered by its place in lists
	lists    [][]posting
	results  chan docTokensOf
	merged   chan struct{}
	putErr   error
	spent    atomic.Int64 // nanoseconds spent tokenizing
}

// docTokensOf is one document's tokens on their way to the merger.
type docTokensOf struct {
	doc  int
	toks *[]foundToken
}

// foundToken is one token found in a document, with the class of the
// field it was found in.
type foundToken struct {
	token string
	class uint8
}

// newPostingsRun merges the cached tokens of docs (the listing, in order)
// and starts the merger of the others'; digests holds each listed
// skill's descriptor digest by id (read only with a rebuild cache), and
// workers is how many goroutines tokenize (ahead results each). Its
// finish must be called.
func newPostingsRun(ctx context.Context, cat *catalog, docs []listItem, digests map[string]string, o *output, rt routes, workers int) (*postingsRun, error) {
	r := &postingsRun{ctx: ctx, cache: cat.cache, docs: docs, postings: map[string][]posting{},
		results: make(chan docTokensOf, ahead*workers), merged: make(chan struct{})}
	r.missing = make(map[string]int, len(docs))
	var kept map[string]string // the tokens the cache keeps, by key
	// Only the rebuild cache reads the keys: a build without one keeps no
	// key (~11 MB at 100,000 skills).
	if cat.cache != nil {
		r.keys = make([]string, len(docs))
		for i := range docs {
			r.keys[i] = tokensKey(&docs[i], digests[docs[i].ID()])
		}
		// In a rebuild, the unchanged skills' postings are the previous
		// index's (searchreuse.go).
		if prev, kept, err := previousPostings(ctx, o, cat.cache, rt, r.keys); err == nil {
			r.postings = prev
			for i := range docs {
				if !kept[i] {
					r.missing[docs[i].ID()] = i
					continue
				}
				cat.cache.UsePart(searchPart, r.keys[i])
			}
			r.start()
			return r, nil
		} else if !errors.Is(err, errNoPrevious) {
			return nil, err
		}
		var err error
		if kept, err = cat.cache.Parts(ctx, searchPart); err != nil {
			return nil, fmt.Errorf("%w: %v", errCache, err)
		}
	}
	// The skills made at their parse (a build without a cache, or with a
	// new one) are tokenized already. The cache does not keep their
	// tokens: at 10,000 skills that was ~1.5 s more of a cold build, on
	// the one goroutine that merges them, for a fallback that the next
	// build's previous search index makes needless. A build that has no
	// usable previous index tokenizes them again, and keeps them then.
	var made []bool
	r.postings, made = cat.eager.postingsFor(docs)
	for i := range docs {
		if made[i] {
			continue
		}
		d := &docs[i]
		data, ok := "", false
		if r.keys != nil {
			data, ok = kept[r.keys[i]]
		}
		if !ok {
			r.missing[d.ID()] = i
			continue
		}
		if err := mergeTokens(r.postings, i, data); err != nil {
			return nil, fmt.Errorf("%w: search tokens of %q: %v", errCache, d.ID(), err)
		}
		cat.cache.UsePart(searchPart, r.keys[i])
	}
	r.start()
	return r, nil
}

// start starts the merger of the tokens made in this build, which
// finish gives back as r.postings.
func (r *postingsRun) start() {
	// The tokens are numbered in an index with no pointer in it for the
	// collector (pathIndex): the merger's map of token strings was some
	// 400,000 of them to mark at every collection of a build of 100,000
	// skills, most of which run while it merges.
	r.tokenAt = newPathIndex(len(r.postings))
	r.lists = make([][]posting, 0, len(r.postings))
	for t, ps := range r.postings {
		r.tokenAt.add(t)
		r.lists = append(r.lists, ps)
	}
	r.postings = nil
	go func() {
		defer close(r.merged)
		for t := range r.results {
			r.merge(t.doc, *t.toks)
			if r.cache != nil && r.putErr == nil {
				r.putErr = r.cache.PutPart(r.ctx, searchPart, r.keys[t.doc], encodeTokens(tokenMap(*t.toks)))
			}
			*t.toks = (*t.toks)[:0]
			tokenLists.Put(t.toks)
		}
		postings := make(map[string][]posting, len(r.lists))
		for i, ps := range r.lists {
			postings[r.tokenAt.at(int32(i))] = ps
		}
		r.postings, r.tokenAt, r.lists = postings, pathIndex{}, nil
	}()
}

// merge adds document doc's tokens, as docTokenList found them, to the
// postings: one posting a token, of the best class it was found in.
func (r *postingsRun) merge(doc int, toks []foundToken) {
	for _, tc := range toks {
		i, ok := r.tokenAt.find(tc.token)
		if !ok {
			i = r.tokenAt.add(tc.token) // a copy, not the description it was cut from
			r.lists = append(r.lists, nil)
		}
		ps, p := r.lists[i], posting(doc)<<2|posting(tc.class)
		// A document's tokens come together, and no other message holds
		// this document: a posting of it is the list's last.
		if n := len(ps); n > 0 && ps[n-1]>>2 == posting(doc) {
			ps[n-1] = max(ps[n-1], p)
			continue
		}
		r.lists[i] = append(ps, p)
	}
}

// wants returns the document number of skill id when its tokens are
// still to be made (never, when r is nil). It may be called from any
// goroutine.
func (r *postingsRun) wants(id string) (int, bool) {
	if r == nil {
		return 0, false
	}
	n, ok := r.missing[id]
	return n, ok
}

// few reports whether so few skills' tokens are still to be made
// (fewFirst) that they are made first (tokenizeMissing).
func (r *postingsRun) few() bool { return fewFirst(len(r.missing), len(r.docs)) }

// tokenizeMissing makes the tokens of every skill still missing, from its
// descriptor in db, and leaves none wanted.
func (r *postingsRun) tokenizeMissing(ctx context.Context, db *store.DB) error {
	ids := slices.Sorted(maps.Keys(r.missing)) // the same order every time
	for _, id := range ids {
		d, err := db.Descriptor(ctx, id)
		if err != nil {
			return fmt.Errorf("search index: %w", err)
		}
		if err := r.tokenizeDescriptor(r.missing[id], d); err != nil {
			return err
		}
	}
	r.missing = nil
	return nil
}

// tokenize makes document doc's tokens from its description and hands
// them to the merger. It may be called from any goroutine, once a
// document, before finish.
func (r *postingsRun) tokenize(doc int, description string) {
	r.tokenizeItem(doc, &r.docs[doc], description)
}

// tokenizeItem is tokenize for a document d that need not be one of r's
// docs (a merger's, newTokenMerger).
func (r *postingsRun) tokenizeItem(doc int, d *listItem, description string) {
	start := time.Now()
	toks := tokenLists.Get().(*[]foundToken)
	*toks = docTokenList(*toks, d, description)
	r.spent.Add(int64(time.Since(start)))
	r.results <- docTokensOf{doc, toks}
}

// newTokenMerger starts a merger of tokens alone (tokenizeItem), for
// documents numbered by the caller on up to workers goroutines; its finish
// gives their postings. It keeps nothing in a cache.
func newTokenMerger(ctx context.Context, workers int) *postingsRun {
	r := &postingsRun{ctx: ctx, postings: map[string][]posting{},
		results: make(chan docTokensOf, ahead*workers), merged: make(chan struct{})}
	r.start()
	return r
}

// tokenizeDescriptor is tokenize for a published descriptor that is not
// decoded otherwise: only its description is read.
func (r *postingsRun) tokenizeDescriptor(doc int, descriptor []byte) error {
	var d struct {
		Description string `json:"description"`
	}
	if err := json.Unmarshal(descriptor, &d); err != nil {
		return fmt.Errorf("search index: decode %q: %w", r.docs[doc].ID(), err)
	}
	r.tokenize(doc, d.Description)
	return nil
}

// finish waits for the merger and returns the postings of every document
// whose tokens were merged, and how long tokenizing took in all.
func (r *postingsRun) finish() (map[string][]posting, time.Duration, error) {
	close(r.results)
	<-r.merged
	if r.putErr != nil {
		return nil, 0, r.putErr
	}
	return r.postings, time.Duration(r.spent.Load()), nil
}

// searchPart is the kind of the rebuild cache's parts that hold a skill's
// search tokens.
const searchPart = "search-tokens"

// tokensKey is what a skill's tokens are made from: its descriptor (by
// digest) and the fields of its listing entry.
func tokensKey(d *listItem, digest string) string {
	k := newKeyHash()
	for _, f := range [...]string{digest, d.ID(), d.Name(), d.Summary(), d.Provider()} {
		k.field(f)
	}
	for _, t := range d.Tags() {
		k.field(t)
	}
	return k.sum()
}

// encodeTokens writes a skill's tokens for the rebuild cache, sorted, one
// a line, each after its field class digit.
func encodeTokens(toks map[string]uint8) string {
	list := make([]string, 0, len(toks))
	for t, class := range toks {
		list = append(list, strconv.Itoa(int(class))+t)
	}
	slices.Sort(list)
	return strings.Join(list, "\n")
}

// mergeTokens adds the tokens of document doc, as encodeTokens wrote
// them, to postings: the document is read straight into the index, with
// no map of its own.
func mergeTokens(postings map[string][]posting, doc int, data string) error {
	for data != "" {
		var line string
		line, data, _ = strings.Cut(data, "\n")
		if line == "" {
			continue
		}
		class := line[0] - '0'
		if class > fieldTitle || len(line) == 1 {
			return fmt.Errorf("bad token line %q", line)
		}
		t := line[1:]
		ps, ok := postings[t]
		if !ok {
			t = strings.Clone(t) // not the part it was cut from
		}
		postings[t] = append(ps, posting(doc)<<2|posting(class))
	}
	return nil
}

// docTokenList appends to list the tokens of one skill, each with the
// class of the field it was found in, as found: a token found again comes
// again.
func docTokenList(list []foundToken, d *listItem, description string) []foundToken {
	var class uint8
	add := func(t string) { list = append(list, foundToken{t, class}) }
	class = fieldDescription
	searchTokens(description, add)
	class = fieldSummary
	searchTokens(d.Summary(), add)
	class = fieldMeta
	searchTokens(d.Provider(), add)
	for _, tag := range d.Tags() {
		searchTokens(tag, add)
	}
	class = fieldTitle
	searchTokens(d.Name(), add)
	searchTokens(d.ID(), add)
	return list
}

// tokenMap is the tokens of list, each with the best class it was found
// in.
func tokenMap(list []foundToken) map[string]uint8 {
	toks := make(map[string]uint8, len(list))
	for _, tc := range list {
		if c, ok := toks[tc.token]; !ok || c < tc.class {
			toks[tc.token] = tc.class
		}
	}
	return toks
}

// tokenLists holds empty lists for docTokenList, which the merger of a
// postingsRun gives back once it has merged them.
var tokenLists = sync.Pool{New: func() any { l := make([]foundToken, 0, 256); return &l }}

// searchTokens calls fn with each token of s: a run of letters and digits,
// folded by foldSearch, cut to searchTokenRunes.
func searchTokens(s string, fn func(string)) {
	s = foldSearch(s)
	start := -1
	emit := func(end int) {
		t := s[start:end]
		if len(t) > searchTokenRunes {
			n := 0
			for i := range t {
				if n == searchTokenRunes {
					t = t[:i]
					break
				}
				n++
			}
		}
		fn(t)
		start = -1
	}
	for i, r := range s {
		word := r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= '0' && r <= '9') ||
			r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsNumber(r))
		switch {
		case word && start < 0:
			start = i
		case !word && start >= 0:
			emit(i)
		}
	}
	if start >= 0 {
		emit(len(s))
	}
}

// foldSearch lower-cases s and removes accents: NFKD, then without the
// combining diacritical marks U+0300–U+036F, lower-cased again (NFKD makes
// capitals of ℍ, ᴬ, 𝐀, ㎖) and with the final sigma ς read as σ, as the
// page's JavaScript does with toLowerCase().normalize("NFKD") (whose
// toLowerCase writes a word-final Σ as ς). Lower-casing goes rune by rune,
// and NFKD never looks across an ASCII character (a starter that
// decomposes to itself), so the runs of other characters are folded one at
// a time and the ASCII between them is only lower-cased: one pass and one
// buffer.
func foldSearch(s string) string {
	i := 0
	for i < len(s) && s[i] < utf8.RuneSelf {
		i++
	}
	if i == len(s) {
		return strings.ToLower(s)
	}
	b := make([]byte, 0, len(s)+len(s)/4)
	var run []byte // a run of non-ASCII characters, decomposed
	for i = 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b = append(b, c)
			i++
			continue
		}
		j := i + 1
		for j < len(s) && s[j] >= utf8.RuneSelf {
			j++
		}
		run = norm.NFKD.AppendString(run[:0], strings.ToLower(s[i:j]))
		for k := 0; k < len(run); {
			r, n := utf8.DecodeRune(run[k:])
			k += n
			switch {
			case r >= 0x300 && r <= 0x36f:
			case r == 'ς':
				b = utf8.AppendRune(b, 'σ')
			default:
				b = utf8.AppendRune(b, unicode.ToLower(r))
			}
		}
		i = j
	}
	return string(b)
}

// tokenEntry is one token with its postings, sorted by document.
type tokenEntry struct {
	token    string
	postings []posting
	size     int // encoded bytes
}

func (e *tokenEntry) encodedSize() int {
	n := uvarintLen(uint64(len(e.token))) + len(e.token) + uvarintLen(uint64(len(e.postings)))
	prev := posting(0)
	for _, p := range e.postings {
		n += uvarintLen(uint64((p>>2-prev>>2)<<2 | p&3))
		prev = p
	}
	return n
}

func uvarintLen(x uint64) int {
	n := 1
	for x >= 0x80 {
		x >>= 7
		n++
	}
	return n
}

// encodeShard writes tokens (sorted) as: for each token, uvarint byte
// length, the UTF-8 bytes, uvarint posting count, then each posting as a
// uvarint of (document − previous document) << 2 | field class.
func encodeShard(entries []tokenEntry) []byte {
	size := 0
	for _, e := range entries {
		size += e.size
	}
	b := make([]byte, 0, size)
	for _, e := range entries {
		b = binary.AppendUvarint(b, uint64(len(e.token)))
		b = append(b, e.token...)
		b = binary.AppendUvarint(b, uint64(len(e.postings)))
		prev := posting(0)
		for _, p := range e.postings {
			b = binary.AppendUvarint(b, uint64((p>>2-prev>>2)<<2|p&3))
			prev = p
		}
	}
	return b
}

// shard is the tokens that go into one index file.
type shard struct {
	prefix  string
	entries []tokenEntry
}

// cutShards cuts the sorted tokens that start with prefix into shards. The
// tokens all go into one shard when they fit the budget; otherwise they are
// grouped by the rune after the prefix, and the largest groups are cut into
// shards of their own (recursively) until the rest fits with the prefix.
// A token's shard is so the one with the longest prefix of it.
func cutShards(entries []tokenEntry, prefix string) []shard {
	total := 0
	for _, e := range entries {
		total += e.size
	}
	if total <= searchShardBudget {
		if len(entries) == 0 && prefix != "" {
			return nil
		}
		return []shard{{prefix, entries}}
	}
	type group struct {
		prefix     string
		start, end int
		size       int
	}
	var groups []group
	var keep []int // indexes of entries equal to the prefix
	for i, e := range entries {
		if len(e.token) == len(prefix) {
			keep = append(keep, i)
			continue
		}
		_, n := utf8.DecodeRuneInString(e.token[len(prefix):])
		p := e.token[:len(prefix)+n]
		if len(groups) == 0 || groups[len(groups)-1].prefix != p {
			groups = append(groups, group{prefix: p, start: i, end: i})
		}
		g := &groups[len(groups)-1]
		g.end = i + 1
		g.size += e.size
	}
	// Spill the largest groups until the rest fits.
	order := make([]int, len(groups))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return groups[order[a]].size > groups[order[b]].size })
	spill := make([]bool, len(groups))
	for _, gi := range order {
		if total <= searchShardBudget {
			break
		}
		spill[gi] = true
		total -= groups[gi].size
	}
	var own []tokenEntry
	var out []shard
	for _, i := range keep {
		own = append(own, entries[i])
	}
	for gi, g := range groups {
		if spill[gi] {
			out = append(out, cutShards(entries[g.start:g.end], g.prefix)...)
		} else {
			own = append(own, entries[g.start:g.end]...)
		}
	}
	if len(own) > 0 || prefix == "" {
		slices.SortFunc(own, func(a, b tokenEntry) int { return strings.Compare(a.token, b.token) })
		out = append(out, shard{prefix, own})
	}
	slices.SortFunc(out, func(a, b shard) int { return strings.Compare(a.prefix, b.prefix) })
	return out
}

// typeMap packs each document's capability type into two bits, base64.
func typeMap(docs []listItem) string {
	index := map[string]byte{}
	for i, t := range skillcat.CapabilityTypes {
		index[string(t)] = byte(i)
	}
	b := make([]byte, (len(docs)+3)/4)
	for i, d := range docs {
		b[i/4] |= index[d.Type()] << (2 * (i % 4))
	}
	return base64.StdEncoding.EncodeToString(b)
}

// encodeDocs writes the cards of a run of documents: for each, [id, name,
// summary, type, access, version, provider, tags].
func encodeDocs(docs []listItem) ([]byte, error) {
	rows := make([][]any, len(docs))
	for i, d := range docs {
		tags := d.Tags()
		if tags == nil {
			tags = []string{}
		}
		rows[i] = []any{d.ID(), d.Name(), d.Summary(), d.Type(), d.Access(), d.Version(), d.Provider(), tags}
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rows); err != nil {
		return nil, err
	}
	return []byte(b.String()), nil
}
