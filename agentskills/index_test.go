package agentskills_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/skillcat/skillcat/agentskills"
	"pgregory.net/rapid"
)

// TestEncodeIndexIsJSON holds EncodeIndex, written without reflection, to
// what encoding/json writes of the index with a two-space indent and no
// HTML escaping, for any entries: strings with control characters, quotes,
// HTML, U+2028, invalid UTF-8, and versions left out.
func TestEncodeIndexIsJSON(t *testing.T) {
	str := rapid.OneOf(
		rapid.String(),
		rapid.StringOf(rapid.SampledFrom([]rune{'a', '"', '\\', '\n', '\r', '\t', '\b', '\f', 0, 0x1f, 0x7f, '<', '>', '&', '\u2028', '\u2029', 'é', '😀', '\ufffd'})),
		rapid.Map(rapid.SliceOf(rapid.Byte()), func(b []byte) string { return string(b) }),
	)
	rapid.Check(t, func(t *rapid.T) {
		entries := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) agentskills.Entry {
			return agentskills.Entry{Name: str.Draw(t, "name"), Type: str.Draw(t, "type"), Description: str.Draw(t, "description"),
				URL: str.Draw(t, "url"), Digest: str.Draw(t, "digest"), Version: rapid.OneOf(rapid.Just(""), str).Draw(t, "version")}
		}), 0, 4).Draw(t, "entries")
		got, err := agentskills.EncodeIndex(entries)
		if err != nil {
			t.Fatal(err)
		}
		if entries == nil {
			entries = []agentskills.Entry{}
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(agentskills.Index{Schema: agentskills.Schema, Skills: entries}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("got\n%s\nwant\n%s", got, want.Bytes())
		}
	})
}

// TestIndexWriterIsEncodeIndex holds IndexWriter to EncodeIndex: the same
// bytes for any entries, whatever the chunks it writes them in.
func TestIndexWriterIsEncodeIndex(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		big := rapid.StringN(0, 20000, -1)
		entries := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) agentskills.Entry {
			return agentskills.Entry{Name: rapid.String().Draw(t, "name"), Type: agentskills.TypeSkillMD, Description: big.Draw(t, "description"),
				URL: rapid.String().Draw(t, "url"), Digest: rapid.String().Draw(t, "digest"), Version: rapid.OneOf(rapid.Just(""), rapid.String()).Draw(t, "version")}
		}), 0, 12).Draw(t, "entries")
		want, err := agentskills.EncodeIndex(entries)
		if err != nil {
			t.Fatal(err)
		}
		got, err := writtenIndex(entries)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("got\n%s\nwant\n%s", got, want)
		}
	})
}

// TestIndexWriterChunks is TestIndexWriterIsEncodeIndex for an index of
// many chunks.
func TestIndexWriterChunks(t *testing.T) {
	entries := make([]agentskills.Entry, 300)
	for i := range entries {
		entries[i] = agentskills.Entry{Name: "n" + strings.Repeat("x", i), Type: agentskills.TypeSkillMD,
			Description: strings.Repeat("é\"<\n", i), URL: "u", Digest: "sha256:0", Version: strings.Repeat("1", i%2)}
	}
	want, err := agentskills.EncodeIndex(entries)
	if err != nil {
		t.Fatal(err)
	}
	got, err := writtenIndex(entries)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) < 4*32<<10 || !bytes.Equal(got, want) {
		t.Fatalf("%d bytes, want %d (at least 4 chunks), or not the same bytes", len(got), len(want))
	}
}

// writtenIndex is the index an IndexWriter writes of entries, given one at
// a time.
func writtenIndex(entries []agentskills.Entry) ([]byte, error) {
	var b bytes.Buffer
	w := agentskills.NewIndexWriter(&b)
	for i := range entries {
		if err := w.Add(&entries[i]); err != nil {
			return nil, err
		}
	}
	err := w.Close()
	return b.Bytes(), err
}
