//go:build !linux

package build

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"syscall"
	"time"

	"github.com/skillcat/skillcat/store"
)

var errNoExchange = errors.New("atomic exchange not supported")

// exchange is not available here; the output is then updated in place.
func exchange(a, b string) error { return errNoExchange }

// cannotExchange reports whether err says that no exchange is possible.
func cannotExchange(err error) bool { return errors.Is(err, errNoExchange) }

// isMountPoint is not known here.
func isMountPoint(dir string) bool { return false }

// fileStat is unknown here: the cache then judges files by their bytes.
func fileStat(info fs.FileInfo) (string, int64) { return "", 0 }

// fileIdentity is unknown here: the cache then judges files by their bytes.
func fileIdentity(info fs.FileInfo) store.FileID { return store.FileID{} }

// lockDir opens dir; there is no lock here.
func lockDir(dir string) (*os.File, error) { return os.Open(dir) }

// abandoned reports whether dir is over an hour old: without locks, that
// is how a directory of a killed build is told from one in use.
func abandoned(dir string) bool {
	info, err := os.Stat(dir)
	return err == nil && time.Since(info.ModTime()) > time.Hour
}

// errCrossDevice is the error of a rename between file systems.
var errCrossDevice error = syscall.EXDEV

// openLive is not needed here: paths are looked up whole (-1).
func openLive(out string) int { return -1 }

// closeLive is never called here.
func closeLive(fd int) {}

// lstatAt is never called here (openLive opens nothing).
func lstatAt(dir int, name string) (store.FileID, bool) { return store.FileID{}, false }

// lstatID is unknown here (zero), but ok for a regular file.
func lstatID(name string) (id store.FileID, ok bool) {
	info, err := os.Lstat(name)
	return store.FileID{}, err == nil && info.Mode().IsRegular()
}

// readTree is not needed here: without an exchange no spare is kept.
func readTree(root string, _ int) (*spareTree, error) { return nil, errNoExchange }

// intact is false here: with no identity of a file known, none is
// judged the one a build left.
func intact(out string, prev map[string]store.CachedOutput, rec *folderRecord, filesKnown bool) (bool, *folderRecord) {
	return false, nil
}

// liveFilesAside makes no look ahead here: no identity of a file is known.
func liveFilesAside(ctx context.Context, out string, prevOf func() (map[string]store.CachedOutput, error)) func() bool {
	return nil
}

// renameOver is not needed here: without an exchange no spare is kept.
func renameOver(from, to string) error { return errNoExchange }

// writeNew writes data to the file name, which must not exist yet (a file
// of the new tree is never one the old tree shares by a link), with the
// modification time t unless t is zero.
func writeNew(name string, data []byte, t time.Time) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && !t.IsZero() {
		err = os.Chtimes(name, t, t)
	}
	return err
}

// modeKey is the umask's part of stampKey: not read here.
func modeKey() string { return "" }

// sameBytesFile is false here: with no identity of a file known, none is
// taken by its bytes either.
func sameBytesFile(name string, rec store.CachedOutput, mode uint32, t time.Time) (store.FileID, bool) {
	return store.FileID{}, false
}

// folderMode is not read here (the umask is the system's business).
func folderMode() uint32 { return 0o755 }

// hasRoom is true here: no spare is kept without an exchange.
func hasRoom(dir string) bool { return true }

// tmpFile opens a file of the system's temporary folder no name leads to
// (unnamedTemp): there is no O_TMPFILE here, and where an open file keeps
// its name (Windows) it is better kept out of the new tree.
func tmpFile(dir string) (*os.File, error) { return unnamedTemp("") }
