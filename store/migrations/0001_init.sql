-- 0001_init: the skill index.
--
-- One row per valid source that claimed an id first. The unique index on
-- skills.id (skills_id) is what detects a duplicate id: Load relies on it
-- rather than on a check in Go. It is an index of its own, not a column
-- constraint, so that a load into an empty index can make it once, at its
-- end (store.Loader).

CREATE TABLE skills (
	id              TEXT NOT NULL,
	name            TEXT NOT NULL,
	version         TEXT NOT NULL,
	capability_type TEXT NOT NULL CHECK (capability_type IN ('plugin', 'api', 'knowledge', 'task')),
	access          TEXT NOT NULL CHECK (access IN ('public', 'restricted', 'private')),
	summary         TEXT NOT NULL,
	provider_name   TEXT NOT NULL,
	source          TEXT NOT NULL,
	descriptor      BLOB NOT NULL,
	digest          TEXT NOT NULL
);

CREATE UNIQUE INDEX skills_id ON skills (id);

-- The capability filter: listed (non-private) skills of one type, by id.
-- A partial index, so that "access <> 'private' AND capability_type = ?
-- ORDER BY id" is one index range read in order, with no sort, and so that
-- counting by type reads only listed rows.
CREATE INDEX skills_listed ON skills (capability_type, id) WHERE access <> 'private';

CREATE TABLE skill_tags (
	skill_id TEXT NOT NULL REFERENCES skills (id) ON DELETE CASCADE,
	tag      TEXT NOT NULL,
	position INTEGER NOT NULL,
	PRIMARY KEY (skill_id, tag)
) WITHOUT ROWID;
