package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// exportVersion is the user_version of an exported file: the version of the
// schema below, for those who query it.
const exportVersion = 1

// exportSchema is the schema of the published catalog database. It has no
// source column: where a skill's source lives is the provider's business.
const exportSchema = `
CREATE TABLE skills (
	id              TEXT NOT NULL PRIMARY KEY,
	name            TEXT NOT NULL,
	version         TEXT NOT NULL,
	capability_type TEXT NOT NULL CHECK (capability_type IN ('plugin', 'api', 'knowledge', 'task')),
	access          TEXT NOT NULL CHECK (access IN ('public', 'restricted')),
	summary         TEXT NOT NULL,
	provider_name   TEXT NOT NULL,
	descriptor      TEXT NOT NULL,
	digest          TEXT NOT NULL
);
CREATE INDEX skills_capability_type ON skills (capability_type, id);
CREATE TABLE skill_tags (
	skill_id TEXT NOT NULL REFERENCES skills (id),
	tag      TEXT NOT NULL,
	position INTEGER NOT NULL,
	PRIMARY KEY (skill_id, tag)
) WITHOUT ROWID;
CREATE INDEX skill_tags_tag ON skill_tags (tag, skill_id);
`

// Export writes a fresh SQLite database file at path holding only the listed
// (non-private) skills and their tags: the /catalog.sqlite published for
// anyone who wants to query the catalog with SQL. It replaces any file at
// path, and the directory must exist.
//
// Nothing of a private skill is in the file, not a row, a freed page or a
// count: the file is new and receives, by VACUUM INTO, only the live rows
// of a catalog database that never held a private row (a new one, or the
// one a rebuild cache keeps, whose rows are only ever listed ones), and
// rowids are numbered 1, 2, 3, … in id order. The same listed skills give
// a byte-identical file, whatever the private skills, the order they were
// loaded in and the rebuilds before.
//
// The file holds skills(id, name, version, capability_type, access, summary,
// provider_name, descriptor, digest), with descriptor the published JSON as
// TEXT, and skill_tags(skill_id, tag, position), position counting a skill's
// tags from 0 in source order. Its user_version is 1.
func (db *DB) Export(ctx context.Context, path string) error {
	if err := db.export(ctx, path); err != nil {
		return fmt.Errorf("export catalog to %s: %w", path, err)
	}
	return nil
}

func (db *DB) export(ctx context.Context, path string) (err error) {
	// The catalog is filled (or, in a rebuild, updated: catalogFile) in a
	// database of its own, whose listed rows alone SQLite then copies into
	// a new file next to path with VACUUM INTO, renamed into place when
	// complete. VACUUM INTO writes each table and index whole, in key
	// order, from records it copies without decoding them (a third of the
	// CPU of filling a file), so its output depends only on the rows, the
	// schema and the rowids, never on the history of the database it
	// reads: rowids are 1, 2, 3, … in id order in every catalog database.
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	if err := f.Close(); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.Remove(tmp)
		}
	}()
	if db.kept != nil {
		err = db.kept.exportKept(ctx, db, tmp)
	} else {
		err = exportFresh(ctx, db, dir, "."+filepath.Base(path)+".*.fill", tmp)
	}
	if err != nil {
		return err
	}
	// A published file: readable by all, whatever CreateTemp chose.
	if err := os.Chmod(tmp, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// exportFresh fills a new catalog database (a temporary file in dir,
// named by pattern, removed once read) with db's listed rows and copies
// it into the empty file at to.
func exportFresh(ctx context.Context, db *DB, dir, pattern, to string) error {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return err
	}
	fill := f.Name()
	defer os.Remove(fill)
	if err := f.Close(); err != nil {
		return err
	}
	conn, err := db.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return fillAttached(ctx, conn, cacheDSN(fill), to, db.descriptorSQL())
}

// fillAttached fills the empty database file of the data source name dsn,
// attached to conn (the index's own connection) as catalog, with the
// listed rows and copies them into the empty file at to. Each table is
// copied by one INSERT … SELECT: the rows go from the index to the
// catalog inside SQLite, none of their values made in Go (copyRows made
// and bound nine per row, 7.3 million allocations at 100,000 skills).
// The rows, their order and so the file are those fillCatalog gives.
// descriptor is the SQL that reads a row's descriptor (DB.descriptorSQL).
func fillAttached(ctx context.Context, conn *sql.Conn, dsn, to, descriptor string) (err error) {
	bg := context.WithoutCancel(ctx)
	if _, err := conn.ExecContext(ctx, `ATTACH DATABASE ? AS catalog`, dsn); err != nil {
		return fmt.Errorf("attach the catalog: %w", err)
	}
	defer func() {
		if _, derr := conn.ExecContext(bg, "DETACH DATABASE catalog"); err == nil && derr != nil {
			err = fmt.Errorf("detach the catalog: %w", derr)
		}
	}()
	// The catalog's own connection checked no foreign key: its rows are
	// the index's, whose constraints hold.
	if _, err := conn.ExecContext(ctx, "PRAGMA foreign_keys = OFF"); err != nil {
		return err
	}
	defer conn.ExecContext(bg, "PRAGMA foreign_keys = ON")
	for _, pragma := range catalogPragmas {
		pragma = strings.Replace(pragma, "PRAGMA ", "PRAGMA catalog.", 1)
		if _, err := conn.ExecContext(ctx, pragma); err != nil {
			return fmt.Errorf("%s: %w", pragma, err)
		}
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	// SQLite keeps the CREATE statements without the schema's name: the
	// catalog's are those of a catalog created on its own.
	if _, err := tx.ExecContext(ctx, attachedSchema.Replace(exportSchema)); err != nil {
		return fmt.Errorf("create schema: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO catalog.skills (id, name, version, capability_type, access, summary, provider_name, descriptor, digest)
	SELECT id, name, version, capability_type, access, summary, provider_name, `+descriptor+`, digest
	FROM main.skills WHERE access <> 'private' ORDER BY id`); err != nil {
		return fmt.Errorf("copy skills: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO catalog.skill_tags (skill_id, tag, position)
	SELECT t.skill_id, t.tag, t.position FROM main.skill_tags AS t JOIN main.skills AS s ON s.id = t.skill_id
	WHERE s.access <> 'private' ORDER BY t.skill_id, t.position`); err != nil {
		return fmt.Errorf("copy tags: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	if _, err := conn.ExecContext(ctx, strings.Replace(vacuumCache, "PRAGMA ", "PRAGMA catalog.", 1)); err != nil {
		return fmt.Errorf("%s: %w", vacuumCache, err)
	}
	if _, err := conn.ExecContext(ctx, `VACUUM catalog INTO ?`, to); err != nil {
		return fmt.Errorf("copy the catalog: %w", err)
	}
	return nil
}

// attachedSchema puts exportSchema's tables and indexes in the attached
// catalog.
var attachedSchema = strings.NewReplacer("CREATE TABLE ", "CREATE TABLE catalog.", "CREATE INDEX ", "CREATE INDEX catalog.")

// fillInto fills the empty database file of the data source name dsn (a
// "file:" URI, so that no character of its path is read as a parameter:
// cacheDSN) with db's listed rows (fill) and copies them into the empty
// file at to (vacuumInto).
func fillInto(ctx context.Context, db *DB, dsn, to string) error {
	out, err := sql.Open("sqlite", dsn)
	if err != nil {
		return err
	}
	defer out.Close()
	out.SetMaxOpenConns(1)
	if err := db.fill(ctx, out); err != nil {
		return err
	}
	if err := vacuumInto(ctx, out, to); err != nil {
		return err
	}
	return out.Close()
}

// vacuumInto copies the catalog database on from (one connection) into
// the empty file at to: the published catalog.sqlite.
func vacuumInto(ctx context.Context, from interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}, to string) error {
	if _, err := from.ExecContext(ctx, vacuumCache); err != nil {
		return fmt.Errorf("%s: %w", vacuumCache, err)
	}
	if _, err := from.ExecContext(ctx, `VACUUM INTO ?`, to); err != nil {
		return fmt.Errorf("copy the catalog: %w", err)
	}
	return nil
}

// vacuumCache sizes the page cache of a copy by VACUUM INTO (the new
// file's takes the size of the one it copies): 20 pages, the block
// SQLite's page cache allocates at once when it starts and reuses
// (SQLITE_DEFAULT_PCACHE_INITSZ). Each page past it is a malloc of its
// own, which modernc's allocator serves, for a 64 KiB page, from a new
// mapping it unmaps when the page is freed: with the default cache (2
// MiB, 31 pages) a rebuild's copy of 46 MB made ~540 mappings, ~8,600 of
// its ~48,000 page faults and a TLB shootdown at each unmapping. The copy
// writes the same bytes whatever the cache.
const vacuumCache = "PRAGMA cache_size = 20"

// fill fills the new catalog database out: from the rows as the cache
// committed them with the few this build changed merged in (fillChanged),
// when the index is the one a rebuild cache keeps and few of its rows
// changed, and otherwise by copying every listed row (fillCatalog). Both
// insert the same rows in the same order.
func (db *DB) fill(ctx context.Context, out *sql.DB) error {
	if touched, ok := db.merges(); ok {
		return fillChanged(ctx, db.kept, out, touched)
	}
	return fillCatalog(ctx, db.q, out)
}

// merges reports whether Export merges the changed rows (touched, the
// sources whose rows this build changed) into the index as the cache
// committed it: the index is the one a rebuild cache keeps, and few of
// its rows changed.
func (db *DB) merges() (touched []string, ok bool) {
	if db.kept == nil {
		return nil, false
	}
	touched, before := db.kept.changes()
	return touched, before > 0 && len(touched) <= before/4
}

// ExportsAside reports whether Export reads the index on a connection of
// its own (the rows as the rebuild cache committed them, and the few this
// build changed), and so may run beside the build's other reads of the
// index without taking turns with them. It holds once every row this
// build changes is in the index.
func (db *DB) ExportsAside() bool {
	_, ok := db.merges()
	return ok
}

// keptCopied is called by fillChanged between its two reads of the
// cache, in one transaction: a test cuts the cache short there.
var keptCopied = func() {}

// keptMapSize is how much of the cache fillChanged reads through a
// memory mapping (SQLite's mmap_size); pages past it are read as usual.
const keptMapSize = 256 << 20

// exportBatch is how many rows one INSERT into the catalog carries.
const exportBatch = 64

// fillCatalog creates the export schema in out and copies the listed
// skills and their tags from the index into it, in one transaction.
func fillCatalog(ctx context.Context, from querier, out *sql.DB) error {
	for _, pragma := range catalogPragmas {
		if _, err := out.ExecContext(ctx, pragma); err != nil {
			return fmt.Errorf("%s: %w", pragma, err)
		}
	}
	return inCatalog(ctx, out, func(tx *sql.Tx) error { return copyListed(ctx, from, tx) })
}

// catalogPragmas are set on a new catalog before it is filled. Its pages
// are of 64 KiB, SQLite's largest: a descriptor (4 KiB on average) then
// fits in its row's cell instead of a chain of overflow pages, so the
// fill makes and writes a sixteenth of the pages (a seventh less of its
// CPU at 10,000 skills), and the file is no larger.
var catalogPragmas = []string{"PRAGMA page_size = 65536", "PRAGMA journal_mode = OFF", "PRAGMA synchronous = OFF",
	"PRAGMA user_version = " + strconv.Itoa(exportVersion)}

// inCatalog creates the export schema in out and calls fill in the same
// transaction.
func inCatalog(ctx context.Context, out execer, fill func(tx *sql.Tx) error) error {
	tx, err := out.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, exportSchema); err != nil {
		return fmt.Errorf("create schema: %w", err)
	}
	if err := fill(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// execer begins transactions: an *sql.DB or an *sql.Conn.
type execer interface {
	BeginTx(ctx context.Context, opts *sql.TxOptions) (*sql.Tx, error)
}

// copyListed copies every listed skill and its tags from the index.
func copyListed(ctx context.Context, from querier, tx *sql.Tx) error {
	if err := copyRows(ctx, from, tx, `SELECT id, name, version, capability_type, access, summary, provider_name, CAST(descriptor AS TEXT), digest
	FROM skills WHERE access <> 'private' ORDER BY id`,
		`INSERT INTO skills (id, name, version, capability_type, access, summary, provider_name, descriptor, digest) VALUES `, 9); err != nil {
		return fmt.Errorf("copy skills: %w", err)
	}
	if err := copyRows(ctx, from, tx, `SELECT t.skill_id, t.tag, t.position FROM skill_tags AS t JOIN skills AS s ON s.id = t.skill_id
	WHERE s.access <> 'private' ORDER BY t.skill_id, t.position`,
		`INSERT INTO skill_tags (skill_id, tag, position) VALUES `, 3); err != nil {
		return fmt.Errorf("copy tags: %w", err)
	}
	return nil
}

// fillChanged fills out from the index a rebuild cache kept as it was
// committed, which a connection of its own reads (attached read-only:
// the build's changes are not in it), with the rows of the sources this
// build changed (touched) taken from the build's transaction instead:
// SQLite merges the two in id order. Only listed rows are read from
// either.
func fillChanged(ctx context.Context, t *CacheTx, out *sql.DB, touched []string) error {
	conn, err := out.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	for _, pragma := range append([]string{"PRAGMA temp_store = MEMORY"}, catalogPragmas...) {
		if _, err := conn.ExecContext(ctx, pragma); err != nil {
			return fmt.Errorf("%s: %w", pragma, err)
		}
	}
	detach, err := t.stageChanged(ctx, conn, touched, keptMapSize)
	if err != nil {
		return err
	}
	defer detach()
	const cols = `id, name, version, capability_type, access, summary, provider_name, descriptor, digest`
	return inCatalog(ctx, conn, func(tx *sql.Tx) error {
		// The cache is read through its mapping: a fault is OnFault's,
		// guarded here so that it is handed on before the rollback, the
		// detach and the close deferred above, which would wait on the
		// connection the fault left locked.
		defer GuardFaults()()
		if _, err := tx.ExecContext(ctx, `INSERT INTO main.skills (`+cols+`)
		SELECT id, name, version, capability_type, access, summary, provider_name, CAST(descriptor AS TEXT), digest
			FROM kept.skills WHERE access <> 'private' AND source NOT IN (SELECT source FROM temp.gone)
		UNION ALL SELECT `+cols+` FROM temp.changed
		ORDER BY 1`); err != nil {
			return fmt.Errorf("copy skills: %w", err)
		}
		keptCopied()
		// The listed skills in id order (the covering skills_entries),
		// each skill's tags by its key: only each skill's own tags are
		// sorted by position, and no skill row is read.
		if _, err := tx.ExecContext(ctx, `INSERT INTO main.skill_tags (skill_id, tag, position)
		SELECT s.id, t.tag, t.position FROM kept.skills AS s CROSS JOIN kept.skill_tags AS t ON t.skill_id = s.id
			WHERE s.access <> 'private' AND s.source NOT IN (SELECT source FROM temp.gone)
		UNION ALL SELECT skill_id, tag, position FROM temp.changed_tags
		ORDER BY 1, 3`); err != nil {
			return fmt.Errorf("copy tags: %w", err)
		}
		return nil
	})
}

// stageChanged attaches the index as the cache committed it to conn
// (read-only, as kept; through a mapping of mapSize bytes of it, 0 for
// none) and stages there the sources this build changed (temp.gone) and
// their listed rows and tags as this build made them (temp.changed,
// temp.changed_tags), taken from the build's transaction. detach
// detaches the cache again.
func (t *CacheTx) stageChanged(ctx context.Context, conn *sql.Conn, touched []string, mapSize int) (detach func(), err error) {
	defer GuardFaults()() // a read of a cache file cut short (OnFault)
	if _, err := conn.ExecContext(ctx, `ATTACH DATABASE ? AS kept`, cacheDSN(t.cache.path, "mode=ro")); err != nil {
		return nil, fmt.Errorf("attach the cache: %w", err)
	}
	detach = func() { conn.ExecContext(context.WithoutCancel(ctx), "DETACH DATABASE kept") }
	fail := func(err error) (func(), error) {
		detach()
		return nil, err
	}
	// The committed index is read through a mapping of the file (SQLite's
	// memory-mapped I/O, which keeps to the WAL's rules), not by a pread
	// of each page into SQLite's cache: a fifth less of the export's CPU
	// at 10,000 skills.
	if _, err := conn.ExecContext(ctx, "PRAGMA kept.mmap_size = "+strconv.Itoa(mapSize)); err != nil {
		return fail(fmt.Errorf("map the cache: %w", err))
	}
	if _, err := conn.ExecContext(ctx, `CREATE TEMP TABLE gone (source TEXT PRIMARY KEY) WITHOUT ROWID;
	CREATE TEMP TABLE changed (id TEXT NOT NULL, name TEXT NOT NULL, version TEXT NOT NULL, capability_type TEXT NOT NULL,
		access TEXT NOT NULL, summary TEXT NOT NULL, provider_name TEXT NOT NULL, descriptor TEXT NOT NULL, digest TEXT NOT NULL);
	CREATE TEMP TABLE changed_tags (skill_id TEXT NOT NULL, tag TEXT NOT NULL, position INTEGER NOT NULL)`); err != nil {
		return fail(fmt.Errorf("changed rows: %w", err))
	}
	list, err := json.Marshal(append([]string{}, touched...)) // [] for none, not null
	if err != nil {
		return fail(err)
	}
	if _, err := conn.ExecContext(ctx, `INSERT INTO temp.gone (source) SELECT value FROM json_each(?)`, string(list)); err != nil {
		return fail(fmt.Errorf("changed rows: %w", err))
	}
	// The changed rows as this build made them, from its transaction.
	if err := t.copyChanged(ctx, conn, string(list)); err != nil {
		return fail(fmt.Errorf("changed rows: %w", err))
	}
	return detach, nil
}

// copyRows inserts the rows of query (n columns; its arguments qargs)
// into to, in their order, exportBatch rows to a statement.
func copyRows(ctx context.Context, from querier, to *sql.Tx, query, insert string, n int, qargs ...any) error {
	row := "(" + placeholders(n) + ")"
	full := insert + strings.TrimSuffix(strings.Repeat(row+", ", exportBatch), ", ")
	stmt, err := to.PrepareContext(ctx, full)
	if err != nil {
		return err
	}
	defer stmt.Close()
	rows, err := from.QueryContext(ctx, query, qargs...)
	if err != nil {
		return err
	}
	args := make([]any, 0, n*exportBatch)
	vals := make([]any, n)
	flush := func() error {
		if len(args) == 0 {
			return nil
		}
		var err error
		if len(args) == n*exportBatch {
			_, err = stmt.ExecContext(ctx, args...)
		} else {
			k := len(args) / n
			_, err = to.ExecContext(ctx, insert+strings.TrimSuffix(strings.Repeat(row+", ", k), ", "), args...)
		}
		args = args[:0]
		return err
	}
	for rows.Next() {
		ptrs := make([]any, n)
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			rows.Close()
			return err
		}
		args = append(args, vals...)
		if len(args) == n*exportBatch {
			if err := flush(); err != nil {
				rows.Close()
				return err
			}
		}
	}
	if err := closeRows(rows); err != nil {
		return err
	}
	return flush()
}

// copyChanged copies the listed rows and tags of the sources in list (a
// JSON array) from the build's transaction into the temporary tables of
// the catalog's connection.
func (t *CacheTx) copyChanged(ctx context.Context, conn *sql.Conn, list string) error {
	copyInto := func(query, insert string, n int, list string) error {
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		if err := copyRows(ctx, t.tx, tx, query, insert, n, list); err != nil {
			return err
		}
		return tx.Commit()
	}
	t.mu.Lock() // the statements below run on the build's transaction
	defer t.mu.Unlock()
	if err := copyInto(`SELECT id, name, version, capability_type, access, summary, provider_name, CAST(descriptor AS TEXT), digest
	FROM skills WHERE access <> 'private' AND source IN (SELECT value FROM json_each(?1))`,
		`INSERT INTO temp.changed VALUES `, 9, list); err != nil {
		return err
	}
	return copyInto(`SELECT t.skill_id, t.tag, t.position FROM skill_tags AS t JOIN skills AS s ON s.id = t.skill_id
	WHERE s.access <> 'private' AND s.source IN (SELECT value FROM json_each(?1))`,
		`INSERT INTO temp.changed_tags VALUES `, 3, list)
}
