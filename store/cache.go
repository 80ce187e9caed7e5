package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Cache is what a rebuild needs from the build before it, kept in an SQLite
// file that CI can restore between scheduled runs: for each source, the
// result of parsing it (so an unchanged source is not parsed again), and
// for each output file, the key it was made from and the hash of its bytes
// (so an unchanged file is neither rendered nor written again).
//
// A cache made by another version of the build, or a file that is not a
// cache at all, is simply started afresh: a missing or corrupt cache means
// a cold build, never an error.
type Cache struct {
	db   *sql.DB
	path string
}

// CachedSource is one source as the previous build saw it.
type CachedSource struct {
	Path     string
	Size     int64
	ModTime  int64  // nanoseconds since 1970
	Hash     string // sha256 of the source's bytes, hex
	Skill    Skill  // the row it gave
	Warnings []byte // its warnings, as the build encodes them
	IDLine   int
	IDColumn int
}

// CachedOutput is one file of the previous build's output.
type CachedOutput struct {
	Path    string
	Key     string // what it was made from
	Hash    string // sha256 of its bytes, hex
	Size    int64
	ModTime int64
}

const cacheSchema = `
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS sources (
	path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime INTEGER NOT NULL, hash TEXT NOT NULL,
	id TEXT NOT NULL, name TEXT NOT NULL, version TEXT NOT NULL, capability_type TEXT NOT NULL,
	access TEXT NOT NULL, summary TEXT NOT NULL, provider_name TEXT NOT NULL, tags TEXT NOT NULL,
	descriptor BLOB NOT NULL, digest TEXT NOT NULL, warnings BLOB NOT NULL,
	id_line INTEGER NOT NULL, id_column INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS outputs (
	path TEXT PRIMARY KEY, key TEXT NOT NULL, hash TEXT NOT NULL, size INTEGER NOT NULL, mtime INTEGER NOT NULL
) WITHOUT ROWID;
`

// OpenCache opens the cache at path for a build whose code and settings are
// summed up by version. When the file is missing, unreadable, not a cache,
// or from another version, the cache starts empty.
func OpenCache(ctx context.Context, path, version string) (*Cache, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("open cache: %w", err)
	}
	c, err := openCache(ctx, path, version)
	if err == nil {
		return c, nil
	}
	// Corrupt or foreign: start over.
	os.Remove(path)
	c, err = openCache(ctx, path, version)
	if err != nil {
		return nil, fmt.Errorf("open cache %s: %w", path, err)
	}
	return c, nil
}

func openCache(ctx context.Context, path, version string) (*Cache, error) {
	db, err := sql.Open("sqlite", fileDSN(path))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	fail := func(err error) (*Cache, error) {
		db.Close()
		return nil, err
	}
	// Two builds sharing a cache take turns instead of failing.
	for _, p := range []string{"PRAGMA busy_timeout = 60000", "PRAGMA journal_mode = MEMORY", "PRAGMA synchronous = OFF"} {
		if _, err := db.ExecContext(ctx, p); err != nil {
			return fail(err)
		}
	}
	if _, err := db.ExecContext(ctx, cacheSchema); err != nil {
		return fail(err)
	}
	var have string
	err = db.QueryRowContext(ctx, `SELECT value FROM meta WHERE name = 'version'`).Scan(&have)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && have != version) {
		if _, err := db.ExecContext(ctx, `DELETE FROM sources; DELETE FROM outputs; DELETE FROM meta;`); err != nil {
			return fail(err)
		}
		if _, err := db.ExecContext(ctx, `INSERT INTO meta (name, value) VALUES ('version', ?)`, version); err != nil {
			return fail(err)
		}
	} else if err != nil {
		return fail(err)
	}
	return &Cache{db: db, path: path}, nil
}

// fileDSN turns a path into a "file:" URI so that characters such as ? and
// # stay part of the name.
func fileDSN(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	r := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")
	return "file:" + r.Replace(filepath.ToSlash(abs))
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
	t := &CacheTx{ctx: ctx, tx: tx}
	if t.seen, err = tx.PrepareContext(ctx, `INSERT OR IGNORE INTO seen (path) VALUES (?)`); err == nil {
		t.get, err = tx.PrepareContext(ctx, `SELECT path, size, mtime, hash, id, name, version, capability_type, access,
	summary, provider_name, tags, descriptor, digest, warnings, id_line, id_column FROM sources WHERE path = ?`)
	}
	if err == nil {
		t.put, err = tx.PrepareContext(ctx, `INSERT OR REPLACE INTO sources VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	}
	if err != nil {
		tx.Rollback()
		return nil, fmt.Errorf("update cache: %w", err)
	}
	return t, nil
}

// CacheTx reads and updates the cache in one transaction. Its methods are
// safe for concurrent use (they take turns on one connection).
type CacheTx struct {
	mu             sync.Mutex // one statement at a time: a prepared statement is not reentrant
	ctx            context.Context
	tx             *sql.Tx
	seen, get, put *sql.Stmt
}

// Source returns what the previous build saw of the source at path, and
// marks the path as still present.
func (t *CacheTx) Source(path string) (CachedSource, bool, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, err := t.seen.ExecContext(t.ctx, path); err != nil {
		return CachedSource{}, false, fmt.Errorf("read cache: %w", err)
	}
	var s CachedSource
	var tags string
	err := t.get.QueryRowContext(t.ctx, path).Scan(
		&s.Path, &s.Size, &s.ModTime, &s.Hash, &s.Skill.ID, &s.Skill.Name, &s.Skill.Version, &s.Skill.CapabilityType,
		&s.Skill.Access, &s.Skill.Summary, &s.Skill.ProviderName, &tags, &s.Skill.Descriptor, &s.Skill.Digest,
		&s.Warnings, &s.IDLine, &s.IDColumn)
	if errors.Is(err, sql.ErrNoRows) {
		return CachedSource{}, false, nil
	}
	if err != nil {
		return CachedSource{}, false, fmt.Errorf("read cache: %w", err)
	}
	if tags != "" {
		s.Skill.Tags = strings.Split(tags, "\n")
	}
	s.Skill.Source = s.Path
	return s, true, nil
}

// PutSource records what parsing a valid source gave.
func (t *CacheTx) PutSource(s *CachedSource) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	k := &s.Skill
	if _, err := t.put.ExecContext(t.ctx,
		s.Path, s.Size, s.ModTime, s.Hash, k.ID, k.Name, k.Version, k.CapabilityType,
		k.Access, k.Summary, k.ProviderName, strings.Join(k.Tags, "\n"), k.Descriptor, k.Digest, s.Warnings,
		s.IDLine, s.IDColumn); err != nil {
		return fmt.Errorf("update cache: source %s: %w", s.Path, err)
	}
	_, err := t.seen.ExecContext(t.ctx, s.Path)
	return err
}

// Outputs returns the previous build's output files by path.
func (t *CacheTx) Outputs() (map[string]CachedOutput, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	rows, err := t.tx.QueryContext(t.ctx, `SELECT path, key, hash, size, mtime FROM outputs`)
	if err != nil {
		return nil, fmt.Errorf("read cache: %w", err)
	}
	out := map[string]CachedOutput{}
	for rows.Next() {
		var o CachedOutput
		if err := rows.Scan(&o.Path, &o.Key, &o.Hash, &o.Size, &o.ModTime); err != nil {
			rows.Close()
			return nil, fmt.Errorf("read cache: %w", err)
		}
		out[o.Path] = o
	}
	return out, closeRows(rows)
}

// SetOutputs replaces the record of the output files.
func (t *CacheTx) SetOutputs(outputs []CachedOutput) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, err := t.tx.ExecContext(t.ctx, `DELETE FROM outputs`); err != nil {
		return fmt.Errorf("update cache: %w", err)
	}
	ins, err := t.tx.PrepareContext(t.ctx, `INSERT INTO outputs VALUES (?, ?, ?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("update cache: %w", err)
	}
	defer ins.Close()
	for _, o := range outputs {
		if _, err := ins.ExecContext(t.ctx, o.Path, o.Key, o.Hash, o.Size, o.ModTime); err != nil {
			return fmt.Errorf("update cache: output %s: %w", o.Path, err)
		}
	}
	return nil
}

// Meta returns a value stored with SetMeta, or "".
func (t *CacheTx) Meta(name string) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var v string
	err := t.tx.QueryRowContext(t.ctx, `SELECT value FROM meta WHERE name = ?`, name).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return v, err
}

// SetMeta stores a value for the next build.
func (t *CacheTx) SetMeta(name, value string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, err := t.tx.ExecContext(t.ctx, `INSERT OR REPLACE INTO meta (name, value) VALUES (?, ?)`, name, value)
	return err
}

// KeepSources marks every cached source as still present, for a build that
// found nothing changed and looked at none.
func (t *CacheTx) KeepSources() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, err := t.tx.ExecContext(t.ctx, `INSERT OR IGNORE INTO seen (path) SELECT path FROM sources`)
	return err
}

// Commit drops the sources this build did not see and makes the update
// the cache.
func (t *CacheTx) Commit() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, err := t.tx.ExecContext(t.ctx, `DELETE FROM sources WHERE path NOT IN (SELECT path FROM seen)`); err != nil {
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
