package skillcat

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

// CurrentVersion is the version of the Skill Sharing Protocol this package
// implements and writes into the documents it produces.
const CurrentVersion = "1.0.0"

// SupportedMajor is the protocol major this package reads.
const SupportedMajor = 1

// ErrIncompatibleVersion means a document's protocol major is above the one
// the consumer supports; such a document is not processed further.
var ErrIncompatibleVersion = errors.New("incompatible protocol version")

// ErrInvalidVersion means a string is not a protocol version of the form
// MAJOR.MINOR.PATCH.
var ErrInvalidVersion = errors.New("invalid protocol version")

// Version is a parsed protocol version MAJOR.MINOR.PATCH. A number too
// large for uint64 is held as math.MaxUint64, which compares above every
// real version; String still returns the version as written.
type Version struct {
	Major, Minor, Patch uint64

	text string // as parsed, when a number saturated
}

// ParseVersion parses exactly the strings matching
// ^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$: three non-negative
// integers without leading zeros and nothing else. A number too large for a
// uint64 reads as math.MaxUint64, so such a major is above every supported
// one. An error wraps ErrInvalidVersion.
func ParseVersion(s string) (Version, error) {
	var parts [3]uint64
	saturated := false
	rest := s
	for i := range parts {
		j := 0
		for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
			j++
		}
		if j == 0 || (j > 1 && rest[0] == '0') {
			return Version{}, fmt.Errorf("%w %q: want MAJOR.MINOR.PATCH, three numbers without leading zeros", ErrInvalidVersion, s)
		}
		n, err := strconv.ParseUint(rest[:j], 10, 64)
		if err != nil {
			n, saturated = math.MaxUint64, true // out of range: still above every version in use
		}
		parts[i] = n
		rest = rest[j:]
		if i < 2 {
			if rest == "" || rest[0] != '.' {
				return Version{}, fmt.Errorf("%w %q: want MAJOR.MINOR.PATCH, three numbers without leading zeros", ErrInvalidVersion, s)
			}
			rest = rest[1:]
		}
	}
	if rest != "" {
		return Version{}, fmt.Errorf("%w %q: want MAJOR.MINOR.PATCH, nothing after the patch number", ErrInvalidVersion, s)
	}
	v := Version{Major: parts[0], Minor: parts[1], Patch: parts[2]}
	if saturated {
		v.text = s
	}
	return v, nil
}

// String formats the version as MAJOR.MINOR.PATCH.
func (v Version) String() string {
	if v.text != "" {
		return v.text
	}
	return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
}

// Compare returns -1, 0 or +1 as v is older than, equal to or newer than w.
func (v Version) Compare(w Version) int {
	for _, d := range [...][2]uint64{{v.Major, w.Major}, {v.Minor, w.Minor}, {v.Patch, w.Patch}} {
		if d[0] != d[1] {
			if d[0] < d[1] {
				return -1
			}
			return 1
		}
	}
	return 0
}

// CheckCompatible applies the protocol's version rule for a consumer that
// supports major supported: a higher major is an error wrapping
// ErrIncompatibleVersion that names both versions; an equal or lower major is
// fine, whatever the minor and patch.
func CheckCompatible(v Version, supported uint64) error {
	if v.Major > supported {
		return &IncompatibleVersionError{Version: v, Supported: supported}
	}
	return nil
}

// IncompatibleVersionError reports a document whose protocol major is above
// the supported one.
type IncompatibleVersionError struct {
	Version   Version
	Supported uint64
}

// Error reads like "incompatible protocol version 2.0.0 (supported: 1.x)".
func (e *IncompatibleVersionError) Error() string {
	return fmt.Sprintf("incompatible protocol version %s (supported: %d.x)", e.Version, e.Supported)
}

// Unwrap returns ErrIncompatibleVersion.
func (e *IncompatibleVersionError) Unwrap() error { return ErrIncompatibleVersion }
