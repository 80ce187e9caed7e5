package build

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/skillcat/skillcat/store"
	"golang.org/x/text/unicode/norm"
	"pgregory.net/rapid"
)

func TestSearchTokens(t *testing.T) {
	var got []string
	searchTokens("Café ECMWF: geocode.address, x_2 "+strings.Repeat("a", 40)+" Straße", func(s string) { got = append(got, s) })
	want := []string{"cafe", "ecmwf", "geocode", "address", "x", "2", strings.Repeat("a", searchTokenRunes), "straße"}
	if !slices.Equal(got, want) {
		t.Errorf("tokens: got %q, want %q", got, want)
	}
}

// TestFoldSearchIsWhole holds foldSearch, which folds the runs of
// non-ASCII characters one at a time, to its definition over the whole
// string: lower case, NFKD, without U+0300–U+036F, lower case again, ς as σ.
func TestFoldSearchIsWhole(t *testing.T) {
	whole := func(s string) string {
		return strings.ReplaceAll(strings.ToLower(strings.Map(func(r rune) rune {
			if r >= 0x300 && r <= 0x36f {
				return -1
			}
			return r
		}, norm.NFKD.String(strings.ToLower(s)))), "ς", "σ")
	}
	alphabet := []rune("aZz09 .-_Éeé\u0301\u0327\u0308\u0323ßİıK\u212a\u01c5ǆﬁ①²Ω\u1e9e한글\u1100\u1161ｱＡ𝐀ᴬℍ㎖\u00a0…ΣσςДж\u0345\u0485")
	rapid.Check(t, func(rt *rapid.T) {
		s := rapid.StringOf(rapid.SampledFrom(alphabet)).Draw(rt, "s")
		if got, want := foldSearch(s), whole(s); got != want {
			rt.Fatalf("foldSearch(%+q): got %+q, want %+q", s, got, want)
		}
	})
	for _, s := range []string{"", "ABC", "Café ECMWF", "e\u0301\u0327x", string([]rune{0x1e0a, 0x323}) + "A"} {
		if got, want := foldSearch(s), whole(s); got != want || !utf8.ValidString(got) {
			t.Errorf("foldSearch(%+q): got %+q, want %+q", s, got, want)
		}
	}
}

// TestCutShards checks the shard rule on many tokens: every token is in
// exactly one shard, the one whose prefix is the longest that begins it;
// a shard fits the budget unless it holds only its prefix itself; and the
// bytes decode back to the tokens and postings.
func TestCutShards(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	letters := "abcdeéz09"
	seen := map[string]bool{}
	var entries []tokenEntry
	for len(entries) < 20000 {
		var b strings.Builder
		for n := 1 + r.IntN(8); n > 0; n-- {
			b.WriteString(string([]rune(letters)[r.IntN(len([]rune(letters)))]))
		}
		tok := b.String()
		if seen[tok] {
			continue
		}
		seen[tok] = true
		e := tokenEntry{token: tok}
		doc := 0
		for n := 1 + r.IntN(30); n > 0; n-- {
			doc += 1 + r.IntN(50)
			e.postings = append(e.postings, posting(doc)<<2|posting(r.IntN(4)))
		}
		e.size = e.encodedSize()
		entries = append(entries, e)
	}
	slices.SortFunc(entries, func(a, b tokenEntry) int { return strings.Compare(a.token, b.token) })
	shards := cutShards(entries, "")
	if len(shards) < 10 {
		t.Fatalf("%d shards for %d tokens", len(shards), len(entries))
	}
	prefixes := map[string]bool{}
	for _, sh := range shards {
		if prefixes[sh.prefix] {
			t.Fatalf("two shards for prefix %q", sh.prefix)
		}
		prefixes[sh.prefix] = true
	}
	found := map[string]bool{}
	for _, sh := range shards {
		data := encodeShard(sh.entries)
		size := len(data)
		decoded := decodeShard(t, data)
		if len(decoded) != len(sh.entries) {
			t.Fatalf("shard %q: decoded %d tokens, want %d", sh.prefix, len(decoded), len(sh.entries))
		}
		onlyPrefix := true
		for i, e := range sh.entries {
			if decoded[i].token != e.token || !slices.Equal(decoded[i].postings, e.postings) {
				t.Fatalf("shard %q: token %d decodes as %q %v, want %q %v", sh.prefix, i, decoded[i].token, decoded[i].postings, e.token, e.postings)
			}
			if found[e.token] {
				t.Fatalf("token %q in two shards", e.token)
			}
			found[e.token] = true
			// The shard's prefix is the longest shard prefix of the token.
			for p := range prefixes {
				if strings.HasPrefix(e.token, p) && len(p) > len(sh.prefix) {
					t.Fatalf("token %q is in shard %q, but shard %q is longer", e.token, sh.prefix, p)
				}
			}
			if !strings.HasPrefix(e.token, sh.prefix) {
				t.Fatalf("token %q in shard %q", e.token, sh.prefix)
			}
			onlyPrefix = onlyPrefix && e.token == sh.prefix
		}
		if size > searchShardBudget && !onlyPrefix {
			t.Errorf("shard %q is %d bytes, over the %d budget", sh.prefix, size, searchShardBudget)
		}
	}
	if len(found) != len(entries) {
		t.Errorf("%d of %d tokens in shards", len(found), len(entries))
	}
}

// decodeShard reads a shard as search.js does.
func decodeShard(t *testing.T, b []byte) []tokenEntry {
	t.Helper()
	var out []tokenEntry
	read := func() uint64 {
		x, n := binary.Uvarint(b)
		if n <= 0 {
			t.Fatal("bad uvarint")
		}
		b = b[n:]
		return x
	}
	for len(b) > 0 {
		n := read()
		e := tokenEntry{token: string(b[:n])}
		b = b[n:]
		doc := uint64(0)
		for count := read(); count > 0; count-- {
			v := read()
			doc += v >> 2
			e.postings = append(e.postings, posting(doc<<2|v&3))
		}
		out = append(out, e)
	}
	return out
}

// TestPostingsMergeIsTheMap holds the merger of a postingsRun, which takes
// each document's tokens as found (docTokenList) into its index of tokens,
// to the merge it replaced: a map of each document's tokens with the best
// class of each (referenceDocTokens), each token then added to the
// postings' map. Documents come in any order, some of them already merged
// (as the rebuild cache's are), with repeated, accented and cased tokens
// in every field.
func TestPostingsMergeIsTheMap(t *testing.T) {
	words := []string{"alpha", "Alpha", "ALPHA", "beta", "café", "cafe", "Straße", "x", "2", "00021", "ς", "Σ", strings.Repeat("long", 10)}
	text := rapid.Custom(func(rt *rapid.T) string {
		n := rapid.IntRange(0, 12).Draw(rt, "n")
		var b strings.Builder
		for range n {
			b.WriteString(rapid.SampledFrom(words).Draw(rt, "word"))
			b.WriteString(rapid.SampledFrom([]string{" ", ", ", ".", "-", "\n", "é"}).Draw(rt, "sep"))
		}
		return b.String()
	})
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 12).Draw(rt, "docs")
		docs := make([]listItem, n)
		descs := make([]string, n)
		for i := range docs {
			docs[i] = listItem{&store.Row{ID: text.Draw(rt, "id"), Name: text.Draw(rt, "name"), Summary: text.Draw(rt, "summary"),
				ProviderName: text.Draw(rt, "provider"), Tags: rapid.SliceOfN(text, 0, 3).Draw(rt, "tags")}}
			descs[i] = text.Draw(rt, "description")
		}
		perm := rapid.Permutation(seq(n)).Draw(rt, "order")
		cached := rapid.IntRange(0, n).Draw(rt, "cached") // the first cached of perm were merged before start

		want := map[string][]posting{}
		mergeRef := func(doc int) {
			for tok, class := range referenceDocTokens(&docs[doc], descs[doc]) {
				want[tok] = append(want[tok], posting(doc)<<2|posting(class))
			}
		}
		seeded := map[string][]posting{}
		for _, doc := range perm[:cached] {
			mergeRef(doc)
		}
		for tok, ps := range want {
			seeded[tok] = slices.Clone(ps)
		}
		for _, doc := range perm[cached:] {
			mergeRef(doc)
		}

		r := &postingsRun{docs: docs, postings: seeded, results: make(chan docTokensOf, 4), merged: make(chan struct{})}
		r.start()
		for _, doc := range perm[cached:] {
			r.tokenize(doc, descs[doc])
		}
		got, _, err := r.finish()
		if err != nil {
			rt.Fatal(err)
		}
		if len(got) != len(want) {
			rt.Fatalf("%d tokens, want %d", len(got), len(want))
		}
		for tok, ps := range want {
			if !slices.Equal(got[tok], ps) {
				rt.Fatalf("token %q: postings %v, want %v", tok, got[tok], ps)
			}
		}
	})
}

// seq is 0, 1, …, n-1.
func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// referenceDocTokens is the tokens of one skill with the best field class
// each was found in, as a build gathered them before docTokenList.
func referenceDocTokens(d *listItem, description string) map[string]uint8 {
	toks := map[string]uint8{}
	add := func(class uint8) func(string) {
		return func(t string) {
			if c, ok := toks[t]; !ok || c < class {
				toks[t] = class
			}
		}
	}
	searchTokens(description, add(fieldDescription))
	searchTokens(d.Summary(), add(fieldSummary))
	searchTokens(d.Provider(), add(fieldMeta))
	for _, tag := range d.Tags() {
		searchTokens(tag, add(fieldMeta))
	}
	searchTokens(d.Name(), add(fieldTitle))
	searchTokens(d.ID(), add(fieldTitle))
	return toks
}
