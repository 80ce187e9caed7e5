package agentskills_test

import (
	"bytes"
	"encoding/json"
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
