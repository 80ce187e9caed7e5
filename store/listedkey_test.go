package store

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestListedKeyBytes holds ListedKey to the bytes it has always hashed,
// now gathered in a buffer: each field and a NUL, the tags joined by NULs
// as the last field, and a 1 after each row.
func TestListedKeyBytes(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		field := rapid.StringN(0, 300, -1)
		var rows []Row
		for range rapid.IntRange(0, 120).Draw(t, "rows") {
			rows = append(rows, Row{ID: field.Draw(t, "id"), Name: field.Draw(t, "name"), Version: field.Draw(t, "version"),
				CapabilityType: field.Draw(t, "type"), Access: field.Draw(t, "access"), Summary: field.Draw(t, "summary"),
				ProviderName: field.Draw(t, "provider"), Digest: field.Draw(t, "digest"),
				Tags: rapid.SliceOfN(field, 0, 5).Draw(t, "tags")})
		}
		h := sha256.New()
		for _, s := range rows {
			for _, f := range []string{s.ID, s.Name, s.Version, s.CapabilityType, s.Access, s.Summary, s.ProviderName, s.Digest, strings.Join(s.Tags, "\x00")} {
				io.WriteString(h, f)
				h.Write([]byte{0})
			}
			h.Write([]byte{1})
		}
		if got, want := ListedKey(rows), hex.EncodeToString(h.Sum(nil)); got != want {
			t.Fatalf("got %s, want %s", got, want)
		}
	})
}

// BenchmarkListedKey is ListedKey over 10,000 rows of a synthetic
// catalog's sizes (a summary of ~120 bytes, three tags).
func BenchmarkListedKey(b *testing.B) {
	rows := make([]Row, 10000)
	for i := range rows {
		id := fmt.Sprintf("acme.skill-%05d", i)
		rows[i] = Row{ID: id, Name: "Skill " + id, Version: "1.2.3", CapabilityType: "api", Access: "public",
			Summary: strings.Repeat("Streams records to a sink. ", 4), ProviderName: "Acme Corporation",
			Digest: "sha256:" + strings.Repeat("0123456789abcdef", 4), Tags: []string{"data", "streaming", "etl"}}
	}
	b.ReportAllocs()
	for b.Loop() {
		ListedKey(rows)
	}
}
