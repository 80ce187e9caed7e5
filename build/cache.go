package build

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/jose"
	"github.com/skillcat/skillcat/store"
	"github.com/skillcat/skillcat/templates"
)

// A rebuild with the cache (Config.Cache) does only the work its changes
// need, and trusts nothing another writer can fake:
//
//   - a source is unchanged when its identity (device, inode, change time,
//     size: see fileStat) is the one recorded, or else when its bytes hash
//     to the recorded hash; times alone (which touch, cp -p, rsync -a, tar
//     and SOURCE_DATE_EPOCH set at will) decide nothing;
//   - an output file is the previous build's when its identity is the one
//     that build recorded after putting it in place (a restored or
//     rewritten output has new inodes and change times);
//   - nothing changed (every source and output file unchanged, the same
//     settings and templates): the build stops there and writes nothing;
//   - otherwise the index the cache keeps is brought up to date with the
//     sources whose identity changed (updateIndex), each skill page whose
//     descriptor and site settings are unchanged is taken from the
//     previous output instead of being rendered, and each file whose bytes
//     are unchanged is taken instead of being written (see output). Which
//     skills are listed is decided by that index each build; its rows are
//     trusted while the cache is sealed (no other writer since the build
//     that committed it), and every row's checksum and descriptor digest
//     is verified first otherwise.
//
// Everything the cache holds is keyed by cacheVersion, a digest of the
// running program, so a new skillcat starts from a cold build.

// racyWindow is how close to the moment a source was looked at its change
// time may be for its identity to be trusted later: a file changed again
// within the file system's time granularity could keep its change time,
// so such a file is judged by its bytes next time.
var racyWindow = time.Second

// racyOutput reports whether id, the identity of an output file noted at
// now, could be kept by a later edit that keeps its size: where the file
// system keeps whole seconds (the change time has no fraction), an edit
// within the second of the write. Such a file is noted as unknown, and
// the next build judges it by its bytes. A file system with finer times
// gives a later edit a later time.
func racyOutput(id store.FileID, now int64) bool {
	return id.Ctime%1e9 == 0 && id.Ctime > now-2*racyWindow.Nanoseconds()
}

// sourceStat is the identity the cache judges a source by, or "" when it
// must be judged by its bytes (unknown here, or changed within racyWindow
// of now).
func sourceStat(info fs.FileInfo, now time.Time) string {
	stat, ctime := fileStat(info)
	if stat == "" || ctime > now.Add(-racyWindow).UnixNano() {
		return ""
	}
	return stat
}

// cacheVersion returns a digest of the running executable (and so of every
// rule and template built into it).
func cacheVersion() string { return exeVersion().digest }

// exeVersion is cacheVersion with the identity (fileStat) of the file it
// hashed, taken of the same open file; "" when unknown.
var exeVersion = sync.OnceValue(func() versionOf {
	h := sha256.New()
	io.WriteString(h, skillcat.CurrentVersion+"\x00")
	var v versionOf
	if exe, err := os.Executable(); err == nil {
		if f, err := os.Open(exe); err == nil {
			if info, err := f.Stat(); err == nil {
				v.stat = sourceStat(info, time.Now())
			}
			if _, err := io.Copy(h, f); err != nil {
				v.stat = ""
			}
			f.Close()
		}
	}
	v.digest = hex.EncodeToString(h.Sum(nil))
	return v
})

// versionOf is cacheVersion's digest of an executable and that file's
// identity when it was hashed.
type versionOf struct{ stat, digest string }

// versionMemo is the suffix of the file beside the cache that keeps
// cacheVersion with the identity of the executable it was taken of:
// hashing some 30 MB is the first thing a build would wait for.
const versionMemo = "-version"

// versionFor returns cacheVersion for the cache at path: from the memo
// beside it when the running executable still has the identity the memo
// was made of (device, inode, change time and size, which no rewrite of
// the file keeps: as a source is judged, not by its times), otherwise by
// hashing it. keep writes the memo for the next build, once the cache
// has opened (nothing is written beside a file that is not a cache).
func versionFor(path string) (version string, keep func()) {
	exe, err := os.Executable()
	if err != nil {
		return cacheVersion(), func() {}
	}
	return versionAt(exe, path+versionMemo, time.Now(), exeVersion)
}

// versionAt is versionFor of the executable exe with the memo at memo;
// hashed gives the executable's version when the memo does not.
func versionAt(exe, memo string, now time.Time, hashed func() versionOf) (version string, keep func()) {
	if info, err := os.Stat(exe); err == nil {
		if stat := sourceStat(info, now); stat != "" {
			if data, err := os.ReadFile(memo); err == nil {
				kept, digest, ok := strings.Cut(strings.TrimSuffix(string(data), "\n"), " ")
				if ok && kept == stat && len(digest) == sha256.Size*2 {
					return digest, func() {}
				}
			}
		}
	}
	v := hashed()
	return v.digest, func() {
		if v.stat != "" {
			writeMemo(memo, v.stat+" "+v.digest+"\n")
		}
	}
}

// writeMemo writes data to the file memo whole (a new file renamed over
// it) or not at all; a memo that cannot be written only costs the next
// build a hash.
func writeMemo(memo, data string) {
	f, err := os.CreateTemp(filepath.Dir(memo), "."+filepath.Base(memo)+".*")
	if err != nil {
		return
	}
	_, err = f.WriteString(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), memo)
	}
	if err != nil {
		os.Remove(f.Name())
	}
}

// stampKey is what every file of the output carries besides its bytes:
// the build's date (SOURCE_DATE_EPOCH) and the modes the umask gives
// (modeKey). A build whose stampKey is not the last one's writes every
// file: one taken from the last output would keep its time and mode.
func stampKey(cfg Config) string { return strconv.FormatInt(cfg.Time.Unix(), 10) + modeKey() }

// buildKeys sum up what every page depends on besides its own skill.
type buildKeys struct {
	site   string // settings, site file and templates
	listed string // the listing (store.ListedKey), once it is read
}

// keyHash is the SHA-256 of the fields a key is made of, written as
// fmt's "%d:%s" (a field's length, a colon, its bytes) and "%d\x00" (a
// number, a NUL) would write them, without fmt's cost per call: the
// listing pages' and search tokens' keys hash every listed skill's fields
// in each build.
type keyHash struct {
	h   hash.Hash
	buf []byte
}

func newKeyHash() *keyHash { return &keyHash{h: sha256.New()} }

// field writes s as "%d:%s".
func (k *keyHash) field(s string) {
	k.buf = append(strconv.AppendInt(k.buf[:0], int64(len(s)), 10), ':')
	k.buf = append(k.buf, s...)
	k.h.Write(k.buf)
}

// text writes s and a NUL ("%s\x00").
func (k *keyHash) text(s string) {
	k.buf = append(append(k.buf[:0], s...), 0)
	k.h.Write(k.buf)
}

// number writes n as "%d\x00".
func (k *keyHash) number(n int) {
	k.buf = append(strconv.AppendInt(k.buf[:0], int64(n), 10), 0)
	k.h.Write(k.buf)
}

// sum is the key: the hex of the hash.
func (k *keyHash) sum() string { return hex.EncodeToString(k.h.Sum(nil)) }

// siteKeys hashes the settings that shape every page and the template and
// asset files in use.
func siteKeys(cfg Config) (buildKeys, error) {
	h := sha256.New()
	fmt.Fprintf(h, "base=%s\x00time=%d\x00dev=%t\x00strict=%t\x00", cfg.BaseURL, cfg.Time.Unix(), cfg.Dev, cfg.Strict)
	if data, err := fs.ReadFile(cfg.Content, SiteFile); err == nil {
		h.Write(data)
	}
	h.Write([]byte{0})
	fsys := templates.FS()
	if cfg.Templates != nil {
		fsys = templates.Overlay(cfg.Templates, fsys)
	}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", p, len(data))
		h.Write(data)
		return nil
	})
	if err != nil {
		return buildKeys{}, err
	}
	return buildKeys{site: hex.EncodeToString(h.Sum(nil))}, nil
}

// publishedKeys sums up the public keys a build publishes: the signing
// key's, which makes the signatures, and jwks.json as it lists them; ""
// for none. No private key goes in.
func publishedKeys(cfg Config) string {
	if cfg.Signer == nil && len(cfg.PublishKeys) == 0 {
		return ""
	}
	h := sha256.New()
	if cfg.Signer != nil {
		h.Write(jose.MarshalJWK(cfg.Signer.Public()))
	}
	h.Write([]byte{0})
	h.Write(keySet(cfg))
	return hex.EncodeToString(h.Sum(nil))
}

// sameHistory reports whether the change feed the build continues is the
// output's own: no Config.Previous, or one whose feed document is the
// output's byte for byte (its pages are named in it by digest).
func sameHistory(cfg Config) bool {
	if cfg.Previous == nil {
		return true
	}
	name := routes{}.changes()
	theirs, err := fs.ReadFile(cfg.Previous, name)
	if err != nil {
		return false
	}
	ours, err := os.ReadFile(filepath.Join(cfg.Out, filepath.FromSlash(name)))
	return err == nil && bytes.Equal(theirs, ours)
}

// fingerprint sums up the sources by path and identity; "" when the
// identity of one is unknown (the sources cannot then be called unchanged
// without reading them).
func fingerprint(files []SourceFile) string {
	h := sha256.New()
	for _, f := range files {
		if f.stat == "" {
			return ""
		}
		fmt.Fprintf(h, "%s\x00%s\x00", f.Path, f.stat)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// upToDate reports whether nothing changed since the cached build, and
// then returns that build's result (its warnings included); sources gives
// the sources as the build read them, and live, unless nil, whether each
// file of the output was found as recorded (liveFilesAside). Its error is
// a failure to read the cache.
func upToDate(ctx context.Context, cfg Config, cache *store.CacheTx, keys buildKeys, prevOf func() (map[string]store.CachedOutput, error), sources func() ([]SourceFile, skillcat.Violations), live func() bool) (res *Result, ok bool, err error) {
	site, err := cache.Meta(ctx, "site")
	if err != nil {
		return nil, false, err
	}
	fp, err := cache.Meta(ctx, "sources")
	if err != nil || site != keys.site || fp == "" {
		return nil, false, err
	}
	// The keys published and the change feed's history are no source and
	// no page's setting: a new key, a key dropped, a history to start over
	// or to continue from elsewhere change the output all the same.
	published, err := cache.Meta(ctx, "keys")
	if err != nil || published != publishedKeys(cfg) || cfg.ResetChanges || !sameHistory(cfg) {
		return nil, false, err
	}
	files, vs := sources()
	if len(vs) > 0 || fingerprint(files) != fp {
		return nil, false, nil
	}
	prev, err := prevOf()
	if err != nil || len(prev) == 0 {
		return nil, false, err
	}
	rec, err := folderRecordOf(ctx, cache)
	if err != nil {
		return nil, false, err
	}
	if live != nil && !live() {
		return nil, false, nil // a file of the output is not the recorded one
	}
	// The site is measured from the record beside the look at its folders.
	measured := make(chan OutputStats, 1)
	go func() { measured <- statOutput(maps.All(prev)) }()
	same, noted := intact(cfg.Out, prev, rec, live != nil)
	stats := <-measured
	if !same {
		return nil, false, nil
	}
	res = &Result{Sources: len(files), UpToDate: true, Output: stats}
	counts, err := cache.Meta(ctx, "counts")
	if err == nil {
		_, err = fmt.Sscanf(counts, "%d %d", &res.Published, &res.Private)
	}
	w, werr := cache.Meta(ctx, "warnings")
	if err == nil && werr == nil {
		err = json.Unmarshal([]byte(w), &res.Warnings)
	}
	if err == nil {
		err = werr
	}
	if err != nil {
		return nil, false, fmt.Errorf("%w: read cache: %v", errCache, err)
	}
	if err := cache.KeepSources(ctx); err != nil || ctx.Err() != nil {
		return nil, false, ctx.Err()
	}
	if noted != nil {
		// The record only spares the next check work: a failure to keep
		// it fails nothing.
		_ = cache.PutPart(ctx, foldersPart, foldersKey, noted.encode())
	}
	return res, true, nil
}

// folderRecordOf returns the record of the output's folders that the
// cache holds (folderRecord), or nil when it holds none it can read.
func folderRecordOf(ctx context.Context, cache *store.CacheTx) (*folderRecord, error) {
	parts, err := cache.Parts(ctx, foldersPart)
	if err != nil {
		return nil, err
	}
	data, ok := parts[foldersKey]
	if !ok {
		return nil, nil
	}
	rec, err := decodeFolders(data)
	if err != nil {
		// Checksummed, and written by this very binary (the cache is
		// keyed by it): not expected, and only the note is lost.
		return nil, nil
	}
	return rec, nil
}

// recordBuild stores what the next build needs to know of this one.
func recordBuild(ctx context.Context, cache *store.CacheTx, o *output, keys buildKeys, cat *catalog, res *Result) error {
	// With a previous record (the one this build read), only the buckets
	// of the paths whose record differs from it are read and written.
	if o.prev != nil {
		err := cache.UpdateOutputs(ctx, func(p string) (store.CachedOutput, bool) { return o.records.get(p) }, o.records.since())
		if err != nil {
			return err
		}
	} else if err := cache.SetOutputs(ctx, o.records.asMap(), nil); err != nil {
		return err
	}
	warnings, err := json.Marshal(res.Warnings)
	if err != nil {
		return err
	}
	for name, value := range map[string]string{
		"site":     keys.site,
		"keys":     publishedKeys(o.cfg),
		"sources":  fingerprint(cat.sources),
		"counts":   strconv.Itoa(res.Published) + " " + strconv.Itoa(res.Private),
		"warnings": string(warnings),
		"built":    time.Now().UTC().Format(time.RFC3339),
		"time":     stampKey(o.cfg),
	} {
		if err := cache.SetMeta(ctx, name, value); err != nil {
			return fmt.Errorf("update cache: %w", err)
		}
	}
	return nil
}

// sameBytes settles the sources of changed whose identity alone changed:
// those the cache holds whose bytes hash to the recorded hash take their
// new identity (store.CacheTx.SetStat) without their rows being read, and
// the rest are returned, to be parsed or taken from the cache as before.
// A fresh checkout or a restored cache (CI) gives every source a new
// identity and the same bytes. states is the cache's Sources.
func sameBytes(ctx context.Context, fsys fs.FS, changed []SourceFile, states map[string]store.SourceState, cache *store.CacheTx) ([]SourceFile, error) {
	same := make([]bool, len(changed))
	err := onWorkers(len(changed), func(i int) error {
		f := changed[i]
		st, ok := states[f.Path]
		if !ok || f.stat == "" || st.Hash == "" || ctx.Err() != nil {
			return ctx.Err()
		}
		if f.load(fsys) != nil {
			return nil // parse reports it
		}
		sum := sha256.Sum256(f.Data)
		if hex.EncodeToString(sum[:]) != st.Hash {
			return nil
		}
		same[i] = true
		return cache.SetStat(ctx, f.Path, f.stat)
	})
	if err != nil {
		return nil, err
	}
	rest := changed[:0:0]
	for i, f := range changed {
		if !same[i] {
			rest = append(rest, f)
		}
	}
	return rest, nil
}
