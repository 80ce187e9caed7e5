package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
)

// catalogSuffix names the catalog database a rebuild cache keeps beside
// it (<cache>-catalog): the listed rows of the index as the cache last
// committed it, in catalog.sqlite's schema, which Export copies into each
// new catalog.sqlite (VACUUM INTO). A rebuild that changed a few skills
// and neither added nor removed a listed one updates their rows in it in
// place instead of filling a new database with every row.
//
// It is used only while it is the file the cache vouches for: the build
// that last wrote it recorded its identity (device, inode, change time,
// size: fileIdentity) in the cache's meta table, in the transaction it
// committed, and the cache is sealed (CacheTx.Trusted). Any other writer
// — a build killed or failed after it wrote the file, so that the cache
// kept the identity before it; the sqlite3 shell; a copy — changes that
// identity, and the next build fills a new one. Every write comes after
// the seal of the build before (which is later than the cache's last
// change, and so than the recorded identity, by the file system's
// clock), so no write can keep the change time recorded.
const catalogSuffix = "-catalog"

// catalogMeta is the name in the cache's meta table of the identity of
// the catalog database beside it.
const catalogMeta = "catalog"

// exportKept brings the catalog database beside the cache up to date with
// the index this transaction holds (updateKept, or a new one filled) and
// copies it into the empty file at to, then records its identity for the
// next build.
func (t *CacheTx) exportKept(ctx context.Context, db *DB, to string) error {
	path := t.cache.path + catalogSuffix
	fill := path + ".tmp"
	os.Remove(fill) // a killed build's
	updated := false
	if touched, ok := db.merges(); ok && t.trusted {
		var err error
		if updated, err = t.updateKept(ctx, path, to, touched); err != nil {
			return err
		}
	}
	if !updated {
		// A new file beside the old one (one name: builds sharing a
		// cache take turns), renamed over it once filled: until then the
		// old one still is the committed cache's.
		if err := os.WriteFile(fill, nil, 0o600); err != nil {
			return err
		}
		if err := fillInto(ctx, db, cacheDSN(fill), to); err != nil {
			os.Remove(fill)
			return err
		}
		if err := os.Rename(fill, path); err != nil {
			os.Remove(fill)
			return err
		}
	}
	if err := t.SetMeta(ctx, catalogMeta, fileIdentity(path)); err != nil {
		return fmt.Errorf("update cache: %w", err)
	}
	return nil
}

// updateKept updates, in the catalog database at path, the rows of the
// skills of the sources touched (those whose rows this build changed, few
// of them, in a sealed cache), and copies it into the empty file at to.
// It does nothing and reports false unless the database is the one the
// cache vouches for and the listed ids are those of the catalog before
// (every changed listed skill was listed under the same id: a rowid then
// stays its skill's, 1, 2, 3, … in id order, and the copy is byte for
// byte a new database's).
func (t *CacheTx) updateKept(ctx context.Context, path, to string, touched []string) (bool, error) {
	want, err := t.Meta(ctx, catalogMeta)
	if err != nil {
		return false, err
	}
	if have := fileIdentity(path); want == "" || have != want {
		return false, nil
	}
	out, err := sql.Open("sqlite", cacheDSN(path))
	if err != nil {
		return false, err
	}
	defer out.Close()
	out.SetMaxOpenConns(1)
	conn, err := out.Conn(ctx)
	if err != nil {
		return false, err
	}
	defer conn.Close()
	for _, pragma := range []string{"PRAGMA temp_store = MEMORY", "PRAGMA journal_mode = OFF", "PRAGMA synchronous = OFF"} {
		if _, err := conn.ExecContext(ctx, pragma); err != nil {
			return false, fmt.Errorf("%s: %w", pragma, err)
		}
	}
	detach, err := t.stageChanged(ctx, conn, touched, 0)
	if err != nil {
		return false, err
	}
	var same bool
	err = conn.QueryRowContext(ctx, `WITH old AS (SELECT id FROM kept.skills WHERE access <> 'private' AND source IN (SELECT source FROM temp.gone))
	SELECT (SELECT count(*) FROM old) = (SELECT count(*) FROM temp.changed) AND NOT EXISTS (SELECT 1 FROM temp.changed WHERE id NOT IN old)`).Scan(&same)
	detach()
	if err != nil || !same {
		return false, err
	}
	if err := inTx(ctx, conn, `UPDATE main.skills SET name = c.name, version = c.version, capability_type = c.capability_type,
		access = c.access, summary = c.summary, provider_name = c.provider_name, descriptor = c.descriptor, digest = c.digest
		FROM temp.changed AS c WHERE skills.id = c.id;
	DELETE FROM main.skill_tags WHERE skill_id IN (SELECT id FROM temp.changed);
	INSERT INTO main.skill_tags (skill_id, tag, position) SELECT skill_id, tag, position FROM temp.changed_tags`); err != nil {
		return false, fmt.Errorf("update the catalog: %w", err)
	}
	if err := vacuumInto(ctx, conn, to); err != nil {
		return false, err
	}
	if err := conn.Close(); err != nil {
		return false, err
	}
	return true, out.Close()
}

// inTx runs the statements query in one transaction on conn.
func inTx(ctx context.Context, conn *sql.Conn, query string) error {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, query); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil && !errors.Is(err, sql.ErrTxDone) {
		return err
	}
	return nil
}
