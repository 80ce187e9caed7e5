package skillcat

import (
	"fmt"
	"strings"
)

// MaxNumberLength is the longest number literal a document may hold, in
// bytes. No schema keyword needs more digits; a longer one is refused
// rather than handed to exact (big.Rat) arithmetic.
const MaxNumberLength = 1000

// MaxNumberExponent bounds the decimal exponent of a number literal, as
// written: 1e1000 is accepted, 1e1001 and 1e-1001 are refused. It is far
// beyond float64 (about ±308), so no real schema or example is affected,
// and it keeps exact comparisons cheap.
const MaxNumberExponent = 1000

// CheckNumber reports a JSON number literal that is beyond the bounds
// (MaxNumberLength, MaxNumberExponent). The literal itself is kept exactly
// as written when it is within them. text must be a JSON number.
func CheckNumber(text string) error {
	if len(text) > MaxNumberLength {
		return fmt.Errorf("number %s is %d characters long; numbers may have at most %d", abbrevNumber(text), len(text), MaxNumberLength)
	}
	i := strings.IndexAny(text, "eE")
	if i < 0 {
		return nil
	}
	exp := strings.TrimLeft(text[i+1:], "+-")
	exp = strings.TrimLeft(exp, "0")
	if len(exp) > 4 || len(exp) == 4 && exp > "1000" {
		return fmt.Errorf("number %s has an exponent beyond ±%d; no schema keyword needs one that large", abbrevNumber(text), MaxNumberExponent)
	}
	return nil
}

// abbrevNumber shortens a long literal for a message: its first and last
// characters around an ellipsis.
func abbrevNumber(text string) string {
	if len(text) <= 24 {
		return text
	}
	return text[:12] + "…" + text[len(text)-8:]
}
