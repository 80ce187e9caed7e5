package store

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"strings"
	"time"
)

// A cache is sealed when the build that committed it last also recorded,
// beside it (sealSuffix), the identity of the file it left (device,
// inode, change time, size: fileIdentity) with a token that commit stored
// in the cache's meta table. A rebuild that finds both still true knows
// that nothing wrote the file since, and trusts its rows without reading
// them all again; any other writer (sqlite3, an editor, a cp or an
// artifact restored over it, a build killed before it sealed) changes the
// identity, and the next build then verifies every row's checksum
// (CacheTx.Verify) before it uses any. This is the trust the build already
// places in a source's identity: the change time moves on every write and
// no tool can set it back.
//
// A change time is only as fine as the file system's clock (a second on
// some, a scheduler tick on others): a write in the same tick as the
// commit would keep the identity. So a seal counts only when the seal
// file itself was written in a later tick than the cache's (and WAL's)
// last change (sealLater): every write after it then moves the cache's
// change time past the one recorded. writeSeal waits up to sealWait for
// the clock to move on; a seal it cannot make later costs the next build
// a verification only.
const sealSuffix = "-seal"

// sealWait is how long writeSeal waits for a seal later than the cache.
var sealWait = 50 * time.Millisecond

// newToken returns a fresh random token for a commit.
func newToken() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// cacheIdentity is the identity of the cache at path and of its WAL, or
// "" when it cannot be known.
func cacheIdentity(path string) string {
	main := fileIdentity(path)
	if main == "" {
		return ""
	}
	wal := "-"
	if _, err := os.Lstat(path + "-wal"); err == nil {
		if wal = fileIdentity(path + "-wal"); wal == "" {
			return ""
		}
	}
	return main + " " + wal
}

// sealedToken returns the token of the seal beside the cache at path when
// the seal still describes the file, and "" otherwise.
func sealedToken(path string) string {
	data, err := os.ReadFile(path + sealSuffix)
	if err != nil {
		return ""
	}
	token, identity, ok := strings.Cut(strings.TrimSuffix(string(data), "\n"), " ")
	if !ok || token == "" || identity == "" || identity != cacheIdentity(path) || !sealLater(path, path+sealSuffix) {
		return ""
	}
	return token
}

// sealLater reports whether the file seal was written in a later tick of
// the file system's clock than the cache at path and its WAL last changed.
func sealLater(path, seal string) bool {
	written, ok := fileTimes(seal)
	if !ok {
		return false
	}
	for _, p := range []string{path, path + "-wal"} {
		changed, ok := fileTimes(p)
		if !ok && p != path {
			continue // no WAL
		}
		if !ok || changed.ctime >= written.mtime {
			return false
		}
	}
	return true
}

// writeSeal records that the cache at path, as it is now, is the one
// committed with token. It writes a new file and renames it into place,
// so a seal is whole or absent.
func writeSeal(path, token string) error {
	identity := cacheIdentity(path)
	if identity == "" {
		return errors.New("the cache's identity is unknown here")
	}
	// One name (a kill leaves nothing new beside the cache); two builds
	// writing it at once at worst make a seal that holds for neither.
	tmp := path + sealSuffix + ".tmp"
	for start := time.Now(); ; time.Sleep(time.Millisecond) {
		err := os.WriteFile(tmp, []byte(token+" "+identity+"\n"), 0o600)
		if err == nil && !sealLater(path, tmp) && time.Since(start) < sealWait {
			continue // written in the cache's tick: try again in a later one
		}
		if err == nil {
			err = os.Rename(tmp, path+sealSuffix)
		}
		if err != nil {
			os.Remove(tmp)
		}
		return err
	}
}
