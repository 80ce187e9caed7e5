package jose

import (
	"errors"
	"math/big"
	"slices"
)

// ErrWeakKey is wrapped by the error for an Ed25519 public key of small
// order (the identity, or a point of order 2, 4 or 8): for such a key one
// signature verifies over every payload (the identity with R the identity
// and S zero), so pinning it would let anyone sign a catalog.
var ErrWeakKey = errors.New("a weak Ed25519 key (a point of small order), for which anyone can forge a signature")

// smallOrderY holds the y coordinates, reduced mod p = 2^255-19, of the
// eight points of Ed25519's torsion subgroup: 1 (the identity), p-1
// (order 2), 0 (order 4) and ±y8 (order 8, from d·y⁴ + 2y² - 1 = 0, the
// points whose double has y = 0).
var smallOrderY = torsionY()

func torsionY() []*big.Int {
	p := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 255), big.NewInt(19))
	// d = -121665/121666 mod p.
	d := new(big.Int).ModInverse(big.NewInt(121666), p)
	d.Mul(d, big.NewInt(-121665)).Mod(d, p)
	ys := []*big.Int{big.NewInt(0), big.NewInt(1), new(big.Int).Sub(p, big.NewInt(1))}
	// y² = (-1 ± √(1+d)) / d
	root := new(big.Int).ModSqrt(new(big.Int).Add(d, big.NewInt(1)), p)
	dInv := new(big.Int).ModInverse(d, p)
	for _, r := range []*big.Int{root, new(big.Int).Sub(p, root)} {
		y2 := new(big.Int).Sub(r, big.NewInt(1))
		y2.Mul(y2, dInv).Mod(y2, p)
		if y := new(big.Int).ModSqrt(y2, p); y != nil {
			ys = append(ys, y, new(big.Int).Sub(p, y))
		}
	}
	return ys
}

// smallOrder reports whether the 32-byte encoding x is of a point of small
// order, canonical or not (y ≥ p, or the sign bit set on x = 0: verifiers
// such as crypto/ed25519 accept those encodings too).
func smallOrder(x []byte) bool {
	le := slices.Clone(x)
	le[31] &= 0x7f
	slices.Reverse(le)
	y := new(big.Int).SetBytes(le)
	y.Mod(y, new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 255), big.NewInt(19)))
	for _, t := range smallOrderY {
		if y.Cmp(t) == 0 {
			return true
		}
	}
	return false
}
