//! The SQL of an index file: the tables of a fresh index, the table of
//! curators' verdicts an index of schema 5 or older gains when it is
//! migrated, and the keeper facts' columns one of schema 7 or older gains
//! (`open`'s `migrate_from` runs the steps).

/// The tables of a fresh index ([`super::SCHEMA_VERSION`]).
pub(super) const SCHEMA: &str = "
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) STRICT, WITHOUT ROWID;

CREATE TABLE documents (
    id            INTEGER PRIMARY KEY,
    path          BLOB NOT NULL UNIQUE,
    size          INTEGER NOT NULL,
    mtime_ns      INTEGER NOT NULL,
    ctime_ns      INTEGER NOT NULL,
    inode         INTEGER NOT NULL,
    dev           INTEGER NOT NULL,
    content_hash  INTEGER NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ('indexed', 'skipped')),
    reason        TEXT,
    encoding      TEXT,
    first_seen_ns INTEGER NOT NULL,
    shingles      INTEGER NOT NULL DEFAULT 0,
    quality       REAL,
    words         INTEGER,
    text_form     TEXT,
    CHECK ((status = 'skipped') = (reason IS NOT NULL))
) STRICT;

CREATE TABLE document_prints (
    id           INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
    fingerprints BLOB,
    terms        BLOB,
    checksum     INTEGER,
    samples      BLOB
) STRICT;

CREATE TABLE document_entries (
    id    INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
    entry BLOB NOT NULL
) STRICT;

CREATE TABLE document_boilerplate (
    id          INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
    boilerplate BLOB NOT NULL
) STRICT;

CREATE TABLE document_texts (
    id       INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
    text     BLOB NOT NULL,
    checksum INTEGER NOT NULL
) STRICT;

CREATE TABLE pairs (
    a      INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    b      INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    scores BLOB NOT NULL,
    PRIMARY KEY (a, b),
    CHECK (a < b)
) STRICT, WITHOUT ROWID;
CREATE INDEX pairs_by_b ON pairs(b);

CREATE TABLE pair_verdicts (
    a         BLOB NOT NULL,
    b         BLOB NOT NULL,
    curator   TEXT NOT NULL,
    verdict   TEXT NOT NULL CHECK (verdict IN ('duplicate', 'not-duplicate')),
    set_at_ns INTEGER NOT NULL,
    PRIMARY KEY (a, b, curator),
    CHECK (a < b)
) STRICT, WITHOUT ROWID;

CREATE TABLE verdict_history (
    seq     INTEGER PRIMARY KEY,
    a       BLOB NOT NULL,
    b       BLOB NOT NULL,
    curator TEXT NOT NULL,
    verdict TEXT CHECK (verdict IN ('duplicate', 'not-duplicate')),
    at_ns   INTEGER NOT NULL
) STRICT;
CREATE INDEX verdict_history_by_pair ON verdict_history(a, b, seq);

CREATE TABLE doc_verdicts (
    path      BLOB PRIMARY KEY,
    verdict   TEXT NOT NULL CHECK (verdict IN ('keep')),
    curator   TEXT NOT NULL DEFAULT '',
    set_at_ns INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
";

/// Version 5 to 6: one verdict per pair and curator (a verdict from before
/// is the unknown curator `''`'s, at the time it was set), the history of
/// every set and clear (seeded with the verdicts there are), and the
/// curator of each keeper mark.
pub(super) const VERDICTS_PER_CURATOR: &str = "
CREATE TABLE pair_verdicts_by_curator (
    a         BLOB NOT NULL,
    b         BLOB NOT NULL,
    curator   TEXT NOT NULL,
    verdict   TEXT NOT NULL CHECK (verdict IN ('duplicate', 'not-duplicate')),
    set_at_ns INTEGER NOT NULL,
    PRIMARY KEY (a, b, curator),
    CHECK (a < b)
) STRICT, WITHOUT ROWID;
INSERT INTO pair_verdicts_by_curator (a, b, curator, verdict, set_at_ns)
    SELECT a, b, '', verdict, set_at_ns FROM pair_verdicts;
DROP TABLE pair_verdicts;
ALTER TABLE pair_verdicts_by_curator RENAME TO pair_verdicts;
CREATE TABLE verdict_history (
    seq     INTEGER PRIMARY KEY,
    a       BLOB NOT NULL,
    b       BLOB NOT NULL,
    curator TEXT NOT NULL,
    verdict TEXT CHECK (verdict IN ('duplicate', 'not-duplicate')),
    at_ns   INTEGER NOT NULL
) STRICT;
CREATE INDEX verdict_history_by_pair ON verdict_history(a, b, seq);
INSERT INTO verdict_history (a, b, curator, verdict, at_ns)
    SELECT a, b, curator, verdict, set_at_ns FROM pair_verdicts ORDER BY set_at_ns;
ALTER TABLE doc_verdicts ADD COLUMN curator TEXT NOT NULL DEFAULT '';
";

/// Version 7 to 8: each document's keeper facts (text quality, words,
/// text form; `doppel_pairing::keeper`), NULL in the rows from before,
/// whose files the index reads again.
pub(super) const KEEPER_FACTS: &str = "
ALTER TABLE documents ADD COLUMN quality REAL;
ALTER TABLE documents ADD COLUMN words INTEGER;
ALTER TABLE documents ADD COLUMN text_form TEXT;
";
