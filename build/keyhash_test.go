package build

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"

	"pgregory.net/rapid"
)

// TestKeyHashIsFmt holds keyHash to the fmt forms it stands for, so that
// a key means what its comment says: "%d:%s" per field, "%s\x00" per
// text, "%d\x00" per number.
func TestKeyHashIsFmt(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		k, h := newKeyHash(), sha256.New()
		for _, op := range rapid.SliceOf(rapid.IntRange(0, 2)).Draw(t, "ops") {
			switch op {
			case 0:
				s := rapid.String().Draw(t, "field")
				k.field(s)
				fmt.Fprintf(h, "%d:%s", len(s), s)
			case 1:
				s := rapid.String().Draw(t, "text")
				k.text(s)
				fmt.Fprintf(h, "%s\x00", s)
			default:
				n := rapid.Int().Draw(t, "number")
				k.number(n)
				fmt.Fprintf(h, "%d\x00", n)
			}
		}
		if got, want := k.sum(), hex.EncodeToString(h.Sum(nil)); got != want {
			t.Fatalf("got %s, want %s", got, want)
		}
	})
}
