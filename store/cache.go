package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Cache is what a rebuild needs from the build before it, kept in an SQLite
// file that CI can restore between scheduled runs: for each source, the
// result of parsing it (so an unchanged source is not parsed again), and
// for each output file, the key it was made from, the hash of its bytes and
// the identity of the file the build left (so an unchanged file is neither
// rendered nor written again).
//
// The cache only ever saves work:
//
//   - The file runs in WAL mode with synchronous=NORMAL: a build killed at
//     any moment leaves the last committed state, and a build's update is
//     one transaction committed only when the build succeeded.
//   - It is marked as skillcat's by its SQLite application_id (cacheAppID).
//     OpenCache refuses any other file at its path (ErrForeign) and never
//     writes to it: a typo such as --cache app.db costs no data.
//   - A cache that is ours but damaged (a torn page, flipped bytes, a row
//     whose checksum does not match) gives errors wrapping ErrCorrupt; the
//     build then removes it with RemoveCache and builds cold.
//   - A cache made by another version of the build (version) or schema
//     starts empty.
type Cache struct {
	db   *sql.DB
	path string
}

// CachedSource is one source as the previous build saw it.
type CachedSource struct {
	Path     string
	Stat     string // the file's identity (device, inode, ctime, size); "" means unknown
	Hash     string // sha256 of the source's bytes, hex
	Row      Row    // the row it gave, kept as the index keeps it (rowColumns, tags in order)
	Warnings []byte // its warnings, as the build encodes them
	IDLine   int
	IDColumn int
}

// CachedOutput is one file of the previous build's output.
type CachedOutput struct {
	Path string
	Key  string // what it was made from
	Hash string // sha256 of its bytes, hex
	Size int64
	Stat string // the identity of the file the build left; "" means unknown
}

// ErrForeign is wrapped by OpenCache's error when the file at the cache's
// path is not a skillcat cache (another program's SQLite database, a text
// file, a folder, a header damaged beyond recognition). The file is left
// as it was.
var ErrForeign = errors.New("not a skillcat rebuild cache")

// ErrCorrupt is wrapped by errors reading a cache that is skillcat's but
// damaged.
var ErrCorrupt = errors.New("rebuild cache is damaged")

// cacheAppID is the SQLite application_id of a cache file ("SKC1").
const cacheAppID = 0x534b4331

// cacheSchemaVersion is the user_version of the schema below; a cache of
// another schema starts afresh.
const cacheSchemaVersion = 4

// cacheSchema is the cache's tables. A source's row is the index's row
// (rowColumns) beside what the cache adds of its own; its tags are rows of
// source_tags, as the index's are rows of skill_tags.
var cacheSchema = `
DROP TABLE IF EXISTS meta; DROP TABLE IF EXISTS sources; DROP TABLE IF EXISTS source_tags; DROP TABLE IF EXISTS outputs; DROP TABLE IF EXISTS parts;
CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE sources (
	path TEXT PRIMARY KEY, stat TEXT NOT NULL, hash TEXT NOT NULL, ` + rowDecls() + `,
	warnings BLOB NOT NULL, id_line INTEGER NOT NULL, id_column INTEGER NOT NULL, sum TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE source_tags (
	path TEXT NOT NULL, position INTEGER NOT NULL, tag TEXT NOT NULL, PRIMARY KEY (path, position)
) WITHOUT ROWID;
CREATE TABLE parts (
	kind TEXT NOT NULL, key TEXT NOT NULL, data TEXT NOT NULL, sum TEXT NOT NULL, PRIMARY KEY (kind, key)
) WITHOUT ROWID;
CREATE TABLE outputs (
	path TEXT PRIMARY KEY, key TEXT NOT NULL, hash TEXT NOT NULL, size INTEGER NOT NULL, stat TEXT NOT NULL
) WITHOUT ROWID;
`

// The statements on a source's row.
var (
	allSourcesSQL = `SELECT path, stat, hash, ` + rowNames() + `, warnings, id_line, id_column, sum FROM sources`
	putSourceSQL  = `INSERT OR REPLACE INTO sources (path, stat, hash, ` + rowNames() + `, warnings, id_line, id_column, sum)
	VALUES (` + placeholders(len(rowColumns)+7) + `)`
)

// sqliteMagic begins every SQLite database file.
const sqliteMagic = "SQLite format 3\x00"

// OpenCache opens the cache at path for a build whose code is summed up by
// version, creating it when the path is missing or an empty file. Its
// error wraps ErrForeign when the file is not a skillcat cache (it is then
// not touched), and ErrCorrupt when it is one but cannot be read.
func OpenCache(ctx context.Context, path, version string) (*Cache, error) {
	kind, err := cacheKind(path)
	switch {
	case err != nil:
		return nil, fmt.Errorf("open cache %s: %w", path, err)
	case kind == kindLegacy:
		// An earlier skillcat's cache: its rows are of another version.
		if err := RemoveCache(path); err != nil {
			return nil, fmt.Errorf("open cache %s: %w", path, err)
		}
		kind = kindNone
	}
	if kind == kindNone {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, fmt.Errorf("open cache: %w", err)
		}
		if err := createCache(ctx, path); err != nil {
			return nil, fmt.Errorf("create cache %s: %w", path, err)
		}
	}
	c, err := openCache(ctx, path, version)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("open cache %s: %w: %v", path, ErrCorrupt, err)
	}
	return c, nil
}

type fileKind int

const (
	kindNone   fileKind = iota // missing or empty
	kindCache                  // a skillcat cache
	kindLegacy                 // a cache of a skillcat before application_id
)

// cacheKind tells what the file at path is, reading only its header (and,
// for an SQLite file with no application_id, its table names, read-only).
func cacheKind(path string) (fileKind, error) {
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return kindNone, nil
	case err != nil:
		return 0, err
	case !info.Mode().IsRegular():
		return 0, fmt.Errorf("%w: it is not a regular file", ErrForeign)
	case info.Size() == 0:
		return kindNone, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var head [100]byte
	if _, err := io.ReadFull(f, head[:]); err != nil || string(head[:16]) != sqliteMagic {
		return 0, fmt.Errorf("%w: it is not an SQLite database", ErrForeign)
	}
	switch id := binary.BigEndian.Uint32(head[68:72]); id {
	case cacheAppID:
		return kindCache, nil
	case 0:
		if legacyCache(path) {
			return kindLegacy, nil
		}
	}
	return 0, fmt.Errorf("%w: it is another application's SQLite database", ErrForeign)
}

// legacyCache reports whether the SQLite file at path holds exactly the
// tables of a cache written before caches carried an application_id.
func legacyCache(path string) bool {
	db, err := sql.Open("sqlite", cacheDSN(path, "mode=ro"))
	if err != nil {
		return false
	}
	defer db.Close()
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`)
	if err != nil {
		return false
	}
	var names []string
	for rows.Next() {
		var n string
		if rows.Scan(&n) != nil {
			break
		}
		names = append(names, n)
	}
	rows.Close()
	return slices.Equal(names, []string{"meta", "outputs", "sources"})
}

// createCache writes a new, empty cache at path with a rollback journal,
// so that its header (the application_id) is in the file itself before
// any WAL exists.
func createCache(ctx context.Context, path string) error {
	db, err := sql.Open("sqlite", cacheDSN(path, "_pragma=journal_mode(DELETE)", "_pragma=synchronous(FULL)"))
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	_, err = db.ExecContext(ctx, "PRAGMA application_id = "+strconv.Itoa(cacheAppID)+"; "+cacheSchema+
		"PRAGMA user_version = "+strconv.Itoa(cacheSchemaVersion))
	return err
}

func openCache(ctx context.Context, path, version string) (*Cache, error) {
	// busy_timeout: two builds sharing a cache take turns; _txlock: a build
	// takes the write lock when it begins, so it never fails half-way.
	db, err := sql.Open("sqlite", cacheDSN(path, "_txlock=immediate", "_pragma=busy_timeout(60000)",
		"_pragma=journal_mode(WAL)", "_pragma=synchronous(NORMAL)"))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	fail := func(err error) (*Cache, error) {
		db.Close()
		return nil, err
	}
	var schema int
	if err := db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&schema); err != nil {
		return fail(err)
	}
	if schema != cacheSchemaVersion {
		if _, err := db.ExecContext(ctx, cacheSchema+"PRAGMA user_version = "+strconv.Itoa(cacheSchemaVersion)); err != nil {
			return fail(err)
		}
	}
	var have string
	err = db.QueryRowContext(ctx, `SELECT value FROM meta WHERE name = 'version'`).Scan(&have)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && have != version) {
		if _, err := db.ExecContext(ctx, `BEGIN IMMEDIATE; DELETE FROM sources; DELETE FROM source_tags; DELETE FROM outputs; DELETE FROM parts; DELETE FROM meta;
			INSERT INTO meta (name, value) VALUES ('version', ?); COMMIT;`, version); err != nil {
			db.ExecContext(ctx, "ROLLBACK")
			return fail(err)
		}
	} else if err != nil {
		return fail(err)
	}
	return &Cache{db: db, path: path}, nil
}

// cacheDSN turns a path into a "file:" URI (so that characters such as ?
// and # stay part of the name) with the given query parameters.
func cacheDSN(path string, params ...string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs), RawQuery: strings.Join(params, "&")}
	if !strings.HasPrefix(u.Path, "/") {
		u.Path = "/" + u.Path
	}
	return u.String()
}

// RemoveCache removes the cache at path with its WAL and shared-memory
// files, but only when the file is a skillcat cache (or missing): a
// foreign file is never removed, and the error then wraps ErrForeign.
func RemoveCache(path string) error {
	if _, err := cacheKind(path); err != nil {
		return err
	}
	for _, p := range []string{path, path + "-wal", path + "-shm", path + "-journal"} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// Close closes the cache file.
func (c *Cache) Close() error { return c.db.Close() }

// Begin starts a cache update. Reads through the returned CacheTx see the
// previous build; its writes become the cache only on Commit, so a failed
// build leaves the cache as it was.
func (c *Cache) Begin(ctx context.Context) (*CacheTx, error) {
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("update cache: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `CREATE TEMP TABLE IF NOT EXISTS seen (path TEXT PRIMARY KEY) WITHOUT ROWID; DELETE FROM seen;`); err != nil {
		tx.Rollback()
		return nil, fmt.Errorf("update cache: %w", err)
	}
	t := &CacheTx{tx: tx}
	if t.put, err = tx.PrepareContext(ctx, putSourceSQL); err == nil {
		t.dropTags, err = tx.PrepareContext(ctx, `DELETE FROM source_tags WHERE path = ?`)
	}
	if err == nil {
		t.putTag, err = tx.PrepareContext(ctx, `INSERT INTO source_tags (path, position, tag) VALUES (?, ?, ?)`)
	}
	if err == nil {
		t.putTags, err = tx.PrepareContext(ctx, `INSERT INTO source_tags (path, position, tag) SELECT ?, key, value FROM json_each(?)`)
	}
	if err != nil {
		tx.Rollback()
		return nil, fmt.Errorf("update cache: %w", err)
	}
	return t, nil
}

// CacheTx reads and updates the cache in one transaction. Its methods are
// safe for concurrent use (they take turns on one connection). Every read
// error wraps ErrCorrupt.
type CacheTx struct {
	mu        sync.Mutex // one statement at a time: a prepared statement is not reentrant
	tx        *sql.Tx
	put       *sql.Stmt
	dropTags  *sql.Stmt
	putTag    *sql.Stmt
	putTags   *sql.Stmt            // every tag of a source at once (tagList)
	rows      map[string]cachedRow // the cached sources not yet asked for (Source), once read
	seenPaths []string             // sources seen since the last markSeen
	usedParts []string             // "kind key" of every part this build used or made
	newParts  []part               // parts made by this build, written at Commit
	keepParts bool                 // keep every part (KeepSources)
}

// part is one piece of derived data the cache keeps for the next build.
type part struct {
	Kind string `json:"kind"`
	Key  string `json:"key"`
	Data string `json:"data"`
	Sum  string `json:"sum"`
}

// corrupt wraps a read error with ErrCorrupt, unless the context ended.
func (t *CacheTx) corrupt(ctx context.Context, what string, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	return fmt.Errorf("read cache: %s: %w: %v", what, ErrCorrupt, err)
}

// Source returns what the previous build saw of the source at path, and
// marks the path as still present. A row whose checksum does not match
// its contents is an error wrapping ErrCorrupt. The first call reads every
// cached row in two queries (loadSources); each later call takes its row
// from what was read, so a rebuild of n sources costs two queries, not 3n
// statements.
func (t *CacheTx) Source(ctx context.Context, path string) (CachedSource, bool, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.rows == nil {
		if err := t.loadSources(ctx); err != nil {
			return CachedSource{}, false, t.corrupt(ctx, "sources", err)
		}
	}
	t.seenPaths = append(t.seenPaths, path)
	s, ok := t.rows[path]
	if !ok {
		return CachedSource{}, false, nil
	}
	delete(t.rows, path) // each source is asked for once; its bytes are not held
	if s.Row.Source != s.Path {
		return CachedSource{}, false, t.corrupt(ctx, "source "+path, errors.New("row of another source"))
	}
	if s.sumWas != s.sum() {
		return CachedSource{}, false, t.corrupt(ctx, "source "+path, errors.New("row checksum mismatch"))
	}
	if d := sha256.Sum256(s.Row.Descriptor); "sha256:"+hex.EncodeToString(d[:]) != s.Row.Digest {
		return CachedSource{}, false, t.corrupt(ctx, "source "+path, errors.New("descriptor digest mismatch"))
	}
	return s.CachedSource, true, nil
}

// cachedRow is a source row as read, with the checksum it was stored with.
type cachedRow struct {
	CachedSource
	sumWas string
}

// loadSources reads every cached source row and its tags into t.rows.
func (t *CacheTx) loadSources(ctx context.Context) error {
	rows := map[string]*cachedRow{}
	q, err := t.tx.QueryContext(ctx, allSourcesSQL)
	if err != nil {
		return err
	}
	for q.Next() {
		r := &cachedRow{}
		dest := append([]any{&r.Path, &r.Stat, &r.Hash}, r.Row.dest()...)
		if err := q.Scan(append(dest, &r.Warnings, &r.IDLine, &r.IDColumn, &r.sumWas)...); err != nil {
			q.Close()
			return err
		}
		rows[r.Path] = r
	}
	if err := closeRows(q); err != nil {
		return err
	}
	if q, err = t.tx.QueryContext(ctx, `SELECT path, tag FROM source_tags ORDER BY path, position`); err != nil {
		return err
	}
	for q.Next() {
		var path, tag string
		if err := q.Scan(&path, &tag); err != nil {
			q.Close()
			return err
		}
		if r, ok := rows[path]; ok {
			r.Row.Tags = append(r.Row.Tags, tag)
		}
	}
	if err := closeRows(q); err != nil {
		return err
	}
	t.rows = make(map[string]cachedRow, len(rows))
	for p, r := range rows {
		t.rows[p] = *r
	}
	return nil
}

// markSeen records the paths asked for or put since the last call in the
// seen table, in one statement.
func (t *CacheTx) markSeen(ctx context.Context) error {
	if len(t.seenPaths) == 0 {
		return nil
	}
	list, err := json.Marshal(t.seenPaths)
	if err != nil {
		return err
	}
	if _, err := t.tx.ExecContext(ctx, `INSERT OR IGNORE INTO seen (path) SELECT value FROM json_each(?)`, string(list)); err != nil {
		return err
	}
	t.seenPaths = t.seenPaths[:0]
	return nil
}

// Parts returns the parts of one kind the previous build kept (PutPart),
// by key: text another stage derived from a key alone, such as a skill's
// search tokens from its descriptor. A part whose checksum does not match
// its contents is an error wrapping ErrCorrupt. A part this build neither
// uses (UsePart) nor makes is dropped at Commit.
func (t *CacheTx) Parts(ctx context.Context, kind string) (map[string]string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	q, err := t.tx.QueryContext(ctx, `SELECT key, data, sum FROM parts WHERE kind = ?`, kind)
	if err != nil {
		return nil, t.corrupt(ctx, "parts", err)
	}
	out := map[string]string{}
	for q.Next() {
		var key, data, sum string
		if err := q.Scan(&key, &data, &sum); err != nil {
			q.Close()
			return nil, t.corrupt(ctx, "parts", err)
		}
		if sum != partSum(kind, key, data) {
			q.Close()
			return nil, t.corrupt(ctx, "part "+kind+" "+key, errors.New("checksum mismatch"))
		}
		out[key] = data
	}
	if err := closeRows(q); err != nil {
		return nil, t.corrupt(ctx, "parts", err)
	}
	return out, nil
}

// UsePart keeps the part of kind at key for the next build.
func (t *CacheTx) UsePart(kind, key string) {
	t.mu.Lock()
	t.usedParts = append(t.usedParts, kind+" "+key)
	t.mu.Unlock()
}

// PutPart records a part for the next build. Parts are written in
// batches of partBatch, so that a large catalog's are not all held until
// Commit.
func (t *CacheTx) PutPart(ctx context.Context, kind, key, data string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.usedParts = append(t.usedParts, kind+" "+key)
	t.newParts = append(t.newParts, part{kind, key, data, partSum(kind, key, data)})
	if len(t.newParts) < partBatch {
		return nil
	}
	if err := t.writeParts(ctx); err != nil {
		return fmt.Errorf("update cache: %w", err)
	}
	return nil
}

// partBatch is how many parts PutPart holds before it writes them.
const partBatch = 512

// writeParts writes the parts made since the last call, in one statement.
func (t *CacheTx) writeParts(ctx context.Context) error {
	if len(t.newParts) == 0 {
		return nil
	}
	list, err := json.Marshal(t.newParts)
	if err != nil {
		return err
	}
	if _, err := t.tx.ExecContext(ctx, `INSERT OR REPLACE INTO parts (kind, key, data, sum)
		SELECT value ->> 'kind', value ->> 'key', value ->> 'data', value ->> 'sum' FROM json_each(?)`, string(list)); err != nil {
		return err
	}
	t.newParts = t.newParts[:0]
	return nil
}

// saveParts writes the parts made and drops those neither used nor made,
// each in one statement.
func (t *CacheTx) saveParts(ctx context.Context) error {
	if err := t.writeParts(ctx); err != nil {
		return err
	}
	if t.keepParts {
		return nil
	}
	used, err := json.Marshal(t.usedParts)
	if err != nil {
		return err
	}
	_, err = t.tx.ExecContext(ctx, `DELETE FROM parts WHERE kind || ' ' || key NOT IN (SELECT value FROM json_each(?))`, string(used))
	return err
}

// partSum is the checksum a part is stored with.
func partSum(kind, key, data string) string {
	h := sha256.New()
	for _, f := range []string{kind, key, data} {
		io.WriteString(h, strconv.Itoa(len(f))+":"+f)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// sum is the checksum of everything a source row holds, its tags included.
func (s *CachedSource) sum() string {
	h := sha256.New()
	fields := []string{s.Path, s.Stat, s.Hash}
	for _, v := range s.Row.args() {
		switch v := v.(type) {
		case string:
			fields = append(fields, v)
		case []byte:
			fields = append(fields, string(v))
		}
	}
	fields = append(fields, s.Row.Tags...)
	fields = append(fields, strconv.Itoa(len(s.Row.Tags)), string(s.Warnings), strconv.Itoa(s.IDLine), strconv.Itoa(s.IDColumn))
	for _, f := range fields {
		io.WriteString(h, strconv.Itoa(len(f))+":")
		io.WriteString(h, f)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// PutSource records what parsing a valid source gave.
func (t *CacheTx) PutSource(ctx context.Context, s *CachedSource) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	s.Row.Source = s.Path
	args := append([]any{s.Path, s.Stat, s.Hash}, s.Row.args()...)
	if _, err := t.put.ExecContext(ctx, append(args, s.Warnings, s.IDLine, s.IDColumn, s.sum())...); err != nil {
		return fmt.Errorf("update cache: source %s: %w", s.Path, err)
	}
	if _, err := t.dropTags.ExecContext(ctx, s.Path); err != nil {
		return fmt.Errorf("update cache: source %s: %w", s.Path, err)
	}
	if list, ok := tagList(s.Row.Tags); ok {
		if _, err := t.putTags.ExecContext(ctx, s.Path, list); err != nil {
			return fmt.Errorf("update cache: source %s: tags: %w", s.Path, err)
		}
		t.seenPaths = append(t.seenPaths, s.Path)
		return nil
	}
	for pos, tag := range s.Row.Tags {
		if _, err := t.putTag.ExecContext(ctx, s.Path, pos, tag); err != nil {
			return fmt.Errorf("update cache: source %s: tag %q: %w", s.Path, tag, err)
		}
	}
	t.seenPaths = append(t.seenPaths, s.Path)
	return nil
}

// Outputs returns the previous build's output files by path.
func (t *CacheTx) Outputs(ctx context.Context) (map[string]CachedOutput, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	rows, err := t.tx.QueryContext(ctx, `SELECT path, key, hash, size, stat FROM outputs`)
	if err != nil {
		return nil, t.corrupt(ctx, "outputs", err)
	}
	out := map[string]CachedOutput{}
	for rows.Next() {
		var o CachedOutput
		if err := rows.Scan(&o.Path, &o.Key, &o.Hash, &o.Size, &o.Stat); err != nil {
			rows.Close()
			return nil, t.corrupt(ctx, "outputs", err)
		}
		out[o.Path] = o
	}
	if err := closeRows(rows); err != nil {
		return nil, t.corrupt(ctx, "outputs", err)
	}
	return out, nil
}

// SetOutputs replaces the record of the output files.
func (t *CacheTx) SetOutputs(ctx context.Context, outputs []CachedOutput) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, err := t.tx.ExecContext(ctx, `DELETE FROM outputs`); err != nil {
		return fmt.Errorf("update cache: %w", err)
	}
	ins, err := t.tx.PrepareContext(ctx, `INSERT INTO outputs VALUES (?, ?, ?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("update cache: %w", err)
	}
	defer ins.Close()
	for _, o := range outputs {
		if _, err := ins.ExecContext(ctx, o.Path, o.Key, o.Hash, o.Size, o.Stat); err != nil {
			return fmt.Errorf("update cache: output %s: %w", o.Path, err)
		}
	}
	return nil
}

// Meta returns a value stored with SetMeta, or "".
func (t *CacheTx) Meta(ctx context.Context, name string) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var v string
	err := t.tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE name = ?`, name).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", t.corrupt(ctx, "meta "+name, err)
	}
	return v, nil
}

// SetMeta stores a value for the next build.
func (t *CacheTx) SetMeta(ctx context.Context, name, value string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, err := t.tx.ExecContext(ctx, `INSERT OR REPLACE INTO meta (name, value) VALUES (?, ?)`, name, value)
	return err
}

// KeepSources marks every cached source as still present, for a build that
// found nothing changed and looked at none.
func (t *CacheTx) KeepSources(ctx context.Context) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.keepParts = true
	_, err := t.tx.ExecContext(ctx, `INSERT OR IGNORE INTO seen (path) SELECT path FROM sources`)
	return err
}

// Commit drops the sources this build did not see and makes the update
// the cache.
func (t *CacheTx) Commit(ctx context.Context) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.markSeen(ctx); err != nil {
		return fmt.Errorf("update cache: %w", err)
	}
	if err := t.saveParts(ctx); err != nil {
		return fmt.Errorf("update cache: %w", err)
	}
	if _, err := t.tx.ExecContext(ctx, `DELETE FROM sources WHERE path NOT IN (SELECT path FROM seen);
	DELETE FROM source_tags WHERE path NOT IN (SELECT path FROM seen)`); err != nil {
		return fmt.Errorf("update cache: %w", err)
	}
	if err := t.tx.Commit(); err != nil {
		return fmt.Errorf("update cache: %w", err)
	}
	return nil
}

// Rollback abandons the update; after Commit it does nothing.
func (t *CacheTx) Rollback() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	err := t.tx.Rollback()
	if errors.Is(err, sql.ErrTxDone) {
		return nil
	}
	return err
}
