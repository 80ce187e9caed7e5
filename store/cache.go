package store

import (
	"cmp"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
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
	// sealed is the token of the seal that vouched for the file when it
	// was opened ("" for none), committed the token of this build's
	// commit, which Close seals.
	sealed, committed string
}

// CachedSource is one source as the previous build saw it. Its Row is the
// persistent index's row of that source (Index), the rest the sources
// table's.
type CachedSource struct {
	Path     string
	Stat     string // the file's identity (device, inode, ctime, size); "" means unknown
	Hash     string // sha256 of the source's bytes, hex
	Row      Row    // the row it gave, kept as the index keeps it (rowColumns, tags in order)
	Warnings []byte // its warnings, as the build encodes them
	IDLine   int
	IDColumn int
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
const cacheSchemaVersion = 10

// cacheSchema is the cache's tables. The index itself is kept here: the
// tables skills and skill_tags are the index's own (migrations/, with an
// index on the source path, and one holding every column of a listed row
// but its descriptor, so that ListedEntries reads no descriptor's pages),
// updated by each rebuild in its transaction
// (Index), and a source's row in sources holds what the cache adds to its
// index row: its identity, hash, warnings and id position, and the
// checksum of all of it (CachedSource.sum). The parts' names are indexed
// apart from their data (parts_names), so that saveParts lists them from
// the index's ~200 pages rather than the table's (9,000 search-token parts
// inline at 10,000 skills: ~2,300 leaf pages).
var cacheSchema = `
DROP TABLE IF EXISTS meta; DROP TABLE IF EXISTS sources; DROP TABLE IF EXISTS source_tags; DROP TABLE IF EXISTS outputs; DROP TABLE IF EXISTS parts;
DROP TABLE IF EXISTS skill_tags; DROP TABLE IF EXISTS skills;
CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE sources (
	path TEXT PRIMARY KEY, stat TEXT NOT NULL, hash TEXT NOT NULL,
	warnings BLOB NOT NULL, id_line INTEGER NOT NULL, id_column INTEGER NOT NULL, sum TEXT NOT NULL
) WITHOUT ROWID;
` + indexSchema() + `
CREATE INDEX skills_source ON skills (source);
CREATE INDEX skills_entries ON skills (id, name, version, capability_type, access, summary, provider_name, source, digest) WHERE access <> 'private';
CREATE TABLE parts (
	kind TEXT NOT NULL, key TEXT NOT NULL, data TEXT NOT NULL, sum TEXT NOT NULL, PRIMARY KEY (kind, key)
) WITHOUT ROWID;
CREATE INDEX parts_names ON parts (kind, key);
CREATE TABLE outputs (bucket INTEGER PRIMARY KEY, data BLOB NOT NULL);
`

// The statements on a source's row: sources beside its index row.
var (
	sourceRowSQL = `SELECT s.path, s.stat, s.hash, ` + prefixed("k.") + `, s.warnings, s.id_line, s.id_column, s.sum
	FROM sources AS s LEFT JOIN skills AS k ON k.source = s.path`
	putSourceSQL = `INSERT OR REPLACE INTO sources (path, stat, hash, warnings, id_line, id_column, sum) VALUES (?, ?, ?, ?, ?, ?, ?)`
)

// indexSchema is the index's schema, its migrations in order.
func indexSchema() string {
	ms, err := migrations()
	if err != nil {
		panic(err) // embedded files, checked by the tests
	}
	var b strings.Builder
	for _, m := range ms {
		b.WriteString(m.sql)
		b.WriteString("\n;\n")
	}
	return b.String()
}

// prefixed is the row's column list with each name prefixed, "k.id, k.name, …".
func prefixed(p string) string {
	names := make([]string, len(rowColumns))
	for i, c := range rowColumns {
		names[i] = p + c.name
	}
	return strings.Join(names, ", ")
}

// sqliteMagic begins every SQLite database file.
const sqliteMagic = "SQLite format 3\x00"

// OpenCache opens the cache at path for a build whose code is summed up by
// version, creating it when the path is missing or an empty file. Its
// error wraps ErrForeign when the file is not a skillcat cache (it is then
// not touched), and ErrCorrupt when it is one but cannot be read.
func OpenCache(ctx context.Context, path, version string) (*Cache, error) {
	sealed := sealedToken(path) // before SQLite opens the file (and its WAL)
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
	c.sealed = sealed
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
	// mmap_size: the rows a rebuild reads whole (the sources, the index's
	// listing, the output's record) come through a mapping of the file,
	// not a pread of each page into SQLite's page cache (15,000 fewer
	// system calls a rebuild at 10,000 skills); writes still go to the WAL.
	db, err := sql.Open("sqlite", cacheDSN(path, "_txlock=immediate", "_pragma=busy_timeout(60000)",
		"_pragma=journal_mode(WAL)", "_pragma=synchronous(NORMAL)", "_pragma=mmap_size("+strconv.Itoa(keptMapSize)+")"))
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
		if _, err := db.ExecContext(ctx, `BEGIN IMMEDIATE; DELETE FROM sources; DELETE FROM skill_tags; DELETE FROM skills; DELETE FROM outputs; DELETE FROM parts; DELETE FROM meta;
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
	for _, p := range []string{path + sealSuffix, path + sealSuffix + ".tmp", path + catalogSuffix, path + catalogSuffix + ".tmp",
		path, path + "-wal", path + "-shm", path + "-journal"} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// Close closes the cache file, and seals it (see sealSuffix) when this
// build committed, or when it was sealed and this build changed nothing.
// A seal that cannot be written costs the next build a verification only.
func (c *Cache) Close() error {
	err := c.db.Close()
	if token := cmp.Or(c.committed, c.sealed); err == nil && token != "" && sealedToken(c.path) != token {
		writeSeal(c.path, token)
	}
	return err
}

// Begin starts a cache update. Reads through the returned CacheTx see the
// previous build; its writes become the cache only on Commit, so a failed
// build leaves the cache as it was.
func (c *Cache) Begin(ctx context.Context) (*CacheTx, error) {
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("update cache: %w", err)
	}
	t := &CacheTx{tx: tx, cache: c}
	if c.sealed != "" {
		var token string
		err := tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE name = 'seal'`).Scan(&token)
		t.trusted = err == nil && token == c.sealed
	}
	if !t.trusted {
		c.sealed = "" // whatever this build does, the seal no longer holds
	}
	t.verified = t.trusted
	if t.put, err = tx.PrepareContext(ctx, putSourceSQL); err != nil {
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
	cache     *Cache
	trusted   bool // sealed: rows are used without verifying each (Verify)
	verified  bool // trusted, or Verify found every row sound: Commit may seal
	put       *sql.Stmt
	setStat   *sql.Stmt              // SetStat's, once prepared
	states    map[string]SourceState // the cached sources, once read (Sources)
	usedParts []string               // "kind key" of every part this build used or made
	newParts  []part                 // parts made by this build, written at Commit
	keepParts bool                   // keep every part (KeepSources)
	// outputPaths are the paths of the outputs record by bucket, as
	// Outputs read them (for UpdateOutputs).
	outputPaths map[int64][]string
	touchMu     sync.Mutex
	touched     map[string]bool // sources whose index rows this transaction changed
}

// part is one piece of derived data the cache keeps for the next build.
type part struct {
	Kind, Key, Data, Sum string
}

// corrupt wraps a read error with ErrCorrupt, unless the context ended.
func (t *CacheTx) corrupt(ctx context.Context, what string, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	t.cache.sealed = "" // never seal again what was found damaged
	return fmt.Errorf("read cache: %s: %w: %v", what, ErrCorrupt, err)
}

// Index returns the index kept in the cache, read and updated inside this
// transaction: a rebuild brings it up to date with the sources that
// changed (Loader.Remove and Add) instead of loading every row again.
// Close does not close the cache; nothing of an update is kept unless
// the transaction commits.
func (t *CacheTx) Index() *DB { return &DB{q: t.tx, kept: t} }

// touch records that the index row of source changed in this transaction.
func (t *CacheTx) touch(source string) {
	t.touchMu.Lock()
	if t.touched == nil {
		t.touched = map[string]bool{}
	}
	t.touched[source] = true
	t.touchMu.Unlock()
}

// changes returns the sources whose index rows this transaction changed,
// and the number of sources the cache held when it began.
func (t *CacheTx) changes() (touched []string, before int) {
	t.touchMu.Lock()
	for s := range t.touched {
		touched = append(touched, s)
	}
	t.touchMu.Unlock()
	t.mu.Lock()
	before = len(t.states)
	t.mu.Unlock()
	return touched, before
}

// Trusted reports whether the cache was sealed by the build that last
// committed it and has not been written since (see sealSuffix). Otherwise
// the caller must Verify it before using the rows it holds.
func (t *CacheTx) Trusted() bool { return t.trusted }

// Unmap ends the memory mapping the cache file is read through
// (mmap_size, openCache): it serves the reads a rebuild makes of whole
// tables at its start (the sources, the listing, the output's record),
// and every page it touched counts in the build's resident set until it
// is unmapped (85 MiB of a 10,000-skill cache, more than the rest of a
// one-change rebuild's peak). The reads after it are few and go through
// SQLite's page cache. SQLite keeps the mapping while a page of it is in
// use; the next read then maps nothing.
func (t *CacheTx) Unmap(ctx context.Context) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, err := t.tx.ExecContext(ctx, "PRAGMA mmap_size = 0"); err != nil {
		return fmt.Errorf("unmap the cache: %w", err)
	}
	return nil
}

// SourceState is what a rebuild first needs of each cached source: the
// identity of the file and the hash of its bytes.
type SourceState struct {
	Stat string // "" means unknown
	Hash string
}

// Sources returns the state of every cached source, by path: a few small
// columns, not the rows.
func (t *CacheTx) Sources(ctx context.Context) (map[string]SourceState, error) {
	defer GuardFaults()() // a read of a cache file cut short (OnFault)
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.readStates(ctx); err != nil {
		return nil, t.corrupt(ctx, "sources", err)
	}
	return t.states, nil
}

func (t *CacheTx) readStates(ctx context.Context) error {
	if t.states != nil {
		return nil
	}
	q, err := t.tx.QueryContext(ctx, `SELECT path, stat, hash FROM sources`)
	if err != nil {
		return err
	}
	states := map[string]SourceState{}
	for q.Next() {
		var p string
		var s SourceState
		if err := q.Scan(&p, &s.Stat, &s.Hash); err != nil {
			q.Close()
			return err
		}
		states[p] = s
	}
	if err := closeRows(q); err != nil {
		return err
	}
	t.states = states
	return nil
}

// Source returns what the previous build saw of the source at path: its
// row of sources and its index row. A row whose checksum does not match
// its contents, or whose descriptor does not match its digest, is an error
// wrapping ErrCorrupt.
func (t *CacheTx) Source(ctx context.Context, path string) (CachedSource, bool, error) {
	defer GuardFaults()() // a read of a cache file cut short (OnFault)
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.readStates(ctx); err != nil {
		return CachedSource{}, false, t.corrupt(ctx, "sources", err)
	}
	if _, ok := t.states[path]; !ok {
		return CachedSource{}, false, nil
	}
	q, err := t.tx.QueryContext(ctx, sourceRowSQL+` WHERE s.path = ?`, path)
	if err != nil {
		return CachedSource{}, false, t.corrupt(ctx, "source "+path, err)
	}
	rows, err := scanSources(q)
	if err == nil && len(rows) != 1 {
		err = errors.New("no such row")
	}
	if err == nil {
		err = t.tags(ctx, rows)
	}
	if err == nil {
		err = rows[0].check()
	}
	if err != nil {
		return CachedSource{}, false, t.corrupt(ctx, "source "+path, err)
	}
	return rows[0].CachedSource, true, nil
}

// cachedRow is a source row as read, with the checksum it was stored with.
type cachedRow struct {
	CachedSource
	sumWas string
	id     sql.NullString // the index row's id; NULL when it has none
}

// scanSources reads the rows of a sourceRowSQL query and closes it.
func scanSources(q *sql.Rows) ([]cachedRow, error) {
	var out []cachedRow
	for q.Next() {
		r, err := scanSource(q)
		if err != nil {
			q.Close()
			return nil, err
		}
		out = append(out, r)
	}
	return out, closeRows(q)
}

// scanSource reads the current row of a sourceRowSQL query.
func scanSource(q *sql.Rows) (cachedRow, error) {
	var r cachedRow
	// The index row's columns, NULL when the source has none.
	cols := make([]any, len(rowColumns))
	for i, c := range rowColumns {
		if _, ok := c.field(&r.Row).(*[]byte); ok {
			cols[i] = new([]byte)
		} else {
			cols[i] = new(sql.NullString)
		}
	}
	dest := append([]any{&r.Path, &r.Stat, &r.Hash}, cols...)
	if err := q.Scan(append(dest, &r.Warnings, &r.IDLine, &r.IDColumn, &r.sumWas)...); err != nil {
		return cachedRow{}, err
	}
	for i, c := range rowColumns {
		switch p := c.field(&r.Row).(type) {
		case *[]byte:
			*p = *cols[i].(*[]byte)
		case *string:
			v := cols[i].(*sql.NullString)
			*p = v.String
			if c.name == "id" {
				r.id = *v
			}
		}
	}
	return r, nil
}

// tags reads the tags of the index rows of rows, in order.
func (t *CacheTx) tags(ctx context.Context, rows []cachedRow) error {
	for i := range rows {
		if !rows[i].id.Valid {
			continue
		}
		q, err := t.tx.QueryContext(ctx, `SELECT tag FROM skill_tags WHERE skill_id = ? ORDER BY position`, rows[i].id.String)
		if err != nil {
			return err
		}
		for q.Next() {
			var tag string
			if err := q.Scan(&tag); err != nil {
				q.Close()
				return err
			}
			rows[i].Row.Tags = append(rows[i].Row.Tags, tag)
		}
		if err := closeRows(q); err != nil {
			return err
		}
	}
	return nil
}

// check verifies a row as read: it has an index row, of its own source,
// whose descriptor has its digest, and its checksum matches.
func (r *cachedRow) check() error {
	switch {
	case !r.id.Valid:
		return errors.New("no index row")
	case r.Row.Source != r.Path:
		return errors.New("row of another source")
	case r.sumWas != r.sum():
		return errors.New("row checksum mismatch")
	}
	if d := sha256.Sum256(r.Row.Descriptor); "sha256:"+hex.EncodeToString(d[:]) != r.Row.Digest {
		return errors.New("descriptor digest mismatch")
	}
	return nil
}

// Verify checks every row the cache holds of the sources and the index,
// as Source checks one: for a cache that is not Trusted. It reads them
// all, and its error wraps ErrCorrupt.
func (t *CacheTx) Verify(ctx context.Context) error {
	defer GuardFaults()() // a read of a cache file cut short (OnFault)
	t.mu.Lock()
	defer t.mu.Unlock()
	fail := func(what string, err error) error { return t.corrupt(ctx, what, err) }
	// The tags first (small), then each row checked as it is read: the
	// descriptors are never all held at once.
	q, err := t.tx.QueryContext(ctx, `SELECT skill_id, tag FROM skill_tags ORDER BY skill_id, position`)
	if err != nil {
		return fail("tags", err)
	}
	tags := map[string][]string{}
	for q.Next() {
		var id, tag string
		if err := q.Scan(&id, &tag); err != nil {
			q.Close()
			return fail("tags", err)
		}
		tags[id] = append(tags[id], tag)
	}
	if err := closeRows(q); err != nil {
		return fail("tags", err)
	}
	if q, err = t.tx.QueryContext(ctx, sourceRowSQL+` ORDER BY s.path`); err != nil {
		return fail("sources", err)
	}
	for q.Next() {
		r, err := scanSource(q)
		if err != nil {
			q.Close()
			return fail("sources", err)
		}
		if r.id.Valid {
			r.Row.Tags = tags[r.id.String]
			delete(tags, r.id.String)
		}
		if err := r.check(); err != nil {
			q.Close()
			return fail("source "+r.Path, err)
		}
	}
	if err := closeRows(q); err != nil {
		return fail("sources", err)
	}
	if len(tags) > 0 { // the first by id, the same each run
		id := slices.Min(slices.Collect(maps.Keys(tags)))
		return fail("tags", fmt.Errorf("tag %q of no skill %q", tags[id][0], id))
	}
	var strays int
	if err := t.tx.QueryRowContext(ctx, `SELECT count(*) FROM skills WHERE source NOT IN (SELECT path FROM sources)`).Scan(&strays); err != nil {
		return fail("index", err)
	}
	if strays != 0 {
		return fail("index", fmt.Errorf("%d index rows of no source", strays))
	}
	t.verified = true
	return nil
}

// Warnings returns the warnings recorded of every source that has any,
// by path, as PutSource was given them.
func (t *CacheTx) Warnings(ctx context.Context) (map[string][]byte, error) {
	defer GuardFaults()() // a read of a cache file cut short (OnFault)
	t.mu.Lock()
	defer t.mu.Unlock()
	q, err := t.tx.QueryContext(ctx, `SELECT path, warnings FROM sources WHERE warnings NOT IN (x'6e756c6c', x'5b5d', 'null', '[]')`)
	if err != nil {
		return nil, t.corrupt(ctx, "warnings", err)
	}
	out := map[string][]byte{}
	for q.Next() {
		var p string
		var w []byte
		if err := q.Scan(&p, &w); err != nil {
			q.Close()
			return nil, t.corrupt(ctx, "warnings", err)
		}
		out[p] = w
	}
	if err := closeRows(q); err != nil {
		return nil, t.corrupt(ctx, "warnings", err)
	}
	return out, nil
}

// IndexedSource is a source the index holds a row of, with its id's
// position.
type IndexedSource struct {
	Path, ID         string
	IDLine, IDColumn int
}

// PrivateSources returns every source whose skill the index holds as
// private, with its id's position, ordered by path: what a build withholds
// (the listed ones are its listing).
func (t *CacheTx) PrivateSources(ctx context.Context) ([]IndexedSource, error) {
	defer GuardFaults()() // a read of a cache file cut short (OnFault)
	t.mu.Lock()
	defer t.mu.Unlock()
	q, err := t.tx.QueryContext(ctx, `SELECT k.source, k.id, s.id_line, s.id_column
	FROM skills AS k JOIN sources AS s ON s.path = k.source WHERE k.access = 'private' ORDER BY k.source`)
	if err != nil {
		return nil, t.corrupt(ctx, "index", err)
	}
	var out []IndexedSource
	for q.Next() {
		var s IndexedSource
		if err := q.Scan(&s.Path, &s.ID, &s.IDLine, &s.IDColumn); err != nil {
			q.Close()
			return nil, t.corrupt(ctx, "index", err)
		}
		out = append(out, s)
	}
	if err := closeRows(q); err != nil {
		return nil, t.corrupt(ctx, "index", err)
	}
	return out, nil
}

// IDPosition returns where the id of the source at path lies in it, as the
// sources table holds it in this transaction (a source added by this
// build included).
func (t *CacheTx) IDPosition(ctx context.Context, path string) (line, column int, err error) {
	defer GuardFaults()() // a read of a cache file cut short (OnFault)
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.tx.QueryRowContext(ctx, `SELECT id_line, id_column FROM sources WHERE path = ?`, path).Scan(&line, &column); err != nil {
		return 0, 0, t.corrupt(ctx, "source "+path, err)
	}
	return line, column, nil
}

// Parts returns the parts of one kind the previous build kept (PutPart),
// by key: text another stage derived from a key alone, such as a skill's
// search tokens from its descriptor. A part whose checksum does not match
// its contents is an error wrapping ErrCorrupt. A part this build neither
// uses (UsePart) nor makes is dropped at Commit.
func (t *CacheTx) Parts(ctx context.Context, kind string) (map[string]string, error) {
	defer GuardFaults()() // a read of a cache file cut short (OnFault)
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

// writeParts writes the parts made since the last call, partRows to a
// statement, each a row of parameters (a few large parts, such as a
// layout of the whole catalog, are not made JSON and read back).
func (t *CacheTx) writeParts(ctx context.Context) error {
	for len(t.newParts) > 0 {
		n := min(len(t.newParts), partRows)
		args := make([]any, 0, 4*n)
		for _, p := range t.newParts[:n] {
			args = append(args, p.Kind, p.Key, p.Data, p.Sum)
		}
		query := `INSERT OR REPLACE INTO parts (kind, key, data, sum) VALUES ` + strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?), ", n), ", ")
		if _, err := t.tx.ExecContext(ctx, query, args...); err != nil {
			return err
		}
		t.newParts = t.newParts[n:]
	}
	t.newParts = nil
	return nil
}

// partRows is how many parts one INSERT writes.
const partRows = 64

// saveParts writes the parts made and drops those neither used nor made:
// it reads the parts' names (not their data) and deletes the others by
// name, since most parts of a rebuild are used again.
func (t *CacheTx) saveParts(ctx context.Context) error {
	if err := t.writeParts(ctx); err != nil {
		return err
	}
	if t.keepParts {
		return nil
	}
	used := make(map[string]bool, len(t.usedParts))
	for _, u := range t.usedParts {
		used[u] = true
	}
	rows, err := t.tx.QueryContext(ctx, `SELECT kind, key FROM parts`)
	if err != nil {
		return err
	}
	var gone [][2]string
	for rows.Next() {
		var kind, key string
		if err := rows.Scan(&kind, &key); err != nil {
			rows.Close()
			return err
		}
		if !used[kind+" "+key] {
			gone = append(gone, [2]string{kind, key})
		}
	}
	if err := closeRows(rows); err != nil || len(gone) == 0 {
		return err
	}
	drop, err := t.tx.PrepareContext(ctx, `DELETE FROM parts WHERE kind = ? AND key = ?`)
	if err != nil {
		return err
	}
	defer drop.Close()
	for _, g := range gone {
		if _, err := drop.ExecContext(ctx, g[0], g[1]); err != nil {
			return err
		}
	}
	return nil
}

// partSum is the checksum a part is stored with.
func partSum(kind, key, data string) string {
	h := sha256.New()
	for _, f := range []string{kind, key, data} {
		io.WriteString(h, strconv.Itoa(len(f))+":"+f)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// sum is the checksum of everything a source row holds, its index row
// and tags included, but its identity (Stat): a damaged or stale identity
// matches no file, so it costs a hash of the source's bytes and decides
// nothing, and a source whose identity alone changed (a fresh checkout,
// a restore) takes its new one without its row being read (SetStat).
//
// Each field is hashed as its length, a colon and its bytes; the
// descriptor's are hashed where they are, not copied into a string first.
func (s *CachedSource) sum() string {
	h := sha256.New()
	var n [20]byte
	field := func(f []byte) {
		h.Write(append(strconv.AppendInt(n[:0], int64(len(f)), 10), ':'))
		h.Write(f)
	}
	str := func(f string) {
		h.Write(append(strconv.AppendInt(n[:0], int64(len(f)), 10), ':'))
		io.WriteString(h, f)
	}
	str(s.Path)
	str(s.Hash)
	for _, v := range s.Row.args() {
		switch v := v.(type) {
		case string:
			str(v)
		case []byte:
			field(v)
		}
	}
	for _, t := range s.Row.Tags {
		str(t)
	}
	str(strconv.Itoa(len(s.Row.Tags)))
	field(s.Warnings)
	str(strconv.Itoa(s.IDLine))
	str(strconv.Itoa(s.IDColumn))
	return hex.EncodeToString(h.Sum(nil))
}

// PutSource records what parsing a valid source gave, with the checksum
// of s.Row: the index row that the build puts in the Index (Loader.Add),
// in this transaction, or keeps there.
func (t *CacheTx) PutSource(ctx context.Context, s *CachedSource) error {
	defer GuardFaults()() // a read of a cache file cut short (OnFault)
	s.Row.Source = s.Path
	sum := s.sum() // outside the lock: the other workers' rows are hashed meanwhile
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, err := t.put.ExecContext(ctx, s.Path, s.Stat, s.Hash, s.Warnings, s.IDLine, s.IDColumn, sum); err != nil {
		return fmt.Errorf("update cache: source %s: %w", s.Path, err)
	}
	return nil
}

// SetStat records stat as the identity of the source at path, whose
// bytes hash to the recorded hash: its row, tags and checksum stay as
// they are (the checksum does not cover the identity).
func (t *CacheTx) SetStat(ctx context.Context, path, stat string) error {
	defer GuardFaults()() // a read of a cache file cut short (OnFault)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.setStat == nil {
		var err error
		if t.setStat, err = t.tx.PrepareContext(ctx, `UPDATE sources SET stat = ? WHERE path = ?`); err != nil {
			return fmt.Errorf("update cache: source %s: %w", path, err)
		}
	}
	if _, err := t.setStat.ExecContext(ctx, stat, path); err != nil {
		return fmt.Errorf("update cache: source %s: %w", path, err)
	}
	return nil // t.states keeps the identity read (Sources' callers read it unlocked)
}

// RemoveSource forgets the source at path: its row and its index row.
func (t *CacheTx) RemoveSource(ctx context.Context, path string) error {
	defer GuardFaults()() // a read of a cache file cut short (OnFault)
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, err := t.tx.ExecContext(ctx, `DELETE FROM sources WHERE path = ?`, path); err != nil {
		return fmt.Errorf("update cache: remove source %s: %w", path, err)
	}
	t.touch(path)
	if err := removeIndexed(ctx, t.tx, path); err != nil {
		return fmt.Errorf("update cache: remove source %s: %w", path, err)
	}
	return nil
}

// Meta returns a value stored with SetMeta, or "".
func (t *CacheTx) Meta(ctx context.Context, name string) (string, error) {
	defer GuardFaults()() // a read of a cache file cut short (OnFault)
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
	defer GuardFaults()() // a read of a cache file cut short (OnFault)
	t.mu.Lock()
	defer t.mu.Unlock()
	_, err := t.tx.ExecContext(ctx, `INSERT OR REPLACE INTO meta (name, value) VALUES (?, ?)`, name, value)
	return err
}

// KeepSources keeps every part, for a build that found nothing changed
// and looked at none. (Sources are kept unless RemoveSource forgets them.)
func (t *CacheTx) KeepSources(ctx context.Context) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.keepParts = true
	return nil
}

// fromEmpty notes that the cache held no source and no skill when this
// build's load began: every row it holds is then one this build wrote, as
// sound as a verified one (Verify), so Commit seals it.
func (t *CacheTx) fromEmpty() {
	t.mu.Lock()
	t.verified = true
	t.mu.Unlock()
}

// Commit makes the update the cache, with a seal token (see sealSuffix)
// that Cache.Close seals, when the rows were trusted (the token stays the
// one sealed) or verified (a new one): a cache that was neither (a build
// that found nothing changed reads no row) stays unsealed, and the next
// build verifies it. A trusted build that changed nothing writes nothing.
func (t *CacheTx) Commit(ctx context.Context) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.saveParts(ctx); err != nil {
		return fmt.Errorf("update cache: %w", err)
	}
	token := t.cache.sealed // "" unless trusted
	if token == "" && t.verified {
		token = newToken()
	}
	if token == "" || token != t.cache.sealed {
		if _, err := t.tx.ExecContext(ctx, `INSERT OR REPLACE INTO meta (name, value) VALUES ('seal', ?)`, token); err != nil {
			return fmt.Errorf("update cache: %w", err)
		}
	}
	if err := t.tx.Commit(); err != nil {
		return fmt.Errorf("update cache: %w", err)
	}
	t.cache.committed = token
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
