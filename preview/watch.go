package preview

import (
	"hash/fnv"
	"io/fs"
	"path/filepath"
	"strconv"

	"github.com/skillcat/skillcat/build"
)

// fingerprint sums the path of every file and folder below dirs, and the
// size, mode and modification time of every file, so that any edit, new
// file, new folder, removal or rename changes it. Names the build ignores
// (build.Ignored: version control, editor swap files) are left out with
// their subtree. A directory that cannot be read counts as its error, so its
// appearing or disappearing is a change too. Symbolic links are hashed as
// links: a link the build follows leads inside the content directory,
// which is walked anyway.
func fingerprint(dirs []string) uint64 {
	h := fnv.New64a()
	var buf []byte
	for _, dir := range dirs {
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			buf = append(buf[:0], p...)
			buf = append(buf, 0)
			if err != nil {
				buf = append(buf, err.Error()...)
				buf = append(buf, '\n')
				h.Write(buf)
				return nil
			}
			if p != dir && build.Ignored(d.Name()) {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.IsDir() {
				// A folder's own time changes with any entry, hidden ones
				// too (an editor's swap file); its entries speak for it.
				buf = append(buf, "dir\n"...)
				h.Write(buf)
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return nil // removed since it was listed: the next poll sees it
			}
			buf = strconv.AppendInt(buf, info.Size(), 10)
			buf = append(buf, ' ')
			buf = strconv.AppendUint(buf, uint64(info.Mode()), 10)
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, info.ModTime().UnixNano(), 10)
			buf = append(buf, '\n')
			h.Write(buf)
			return nil
		})
	}
	return h.Sum64()
}
