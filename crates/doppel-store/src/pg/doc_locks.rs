//! Document locks: how doppel processes that follow one collection (review
//! screens and `watch`, on one machine or many) read each new or changed
//! file once. A process takes a session-level advisory lock on each
//! document before it reads the file, and releases it once the document is
//! committed; another process that meets the lock held waits for it, then
//! finds the document in the store and takes it from there instead of
//! reading the file (`index::shared_reading`).
//!
//! Advisory locks, not rows: the server releases a session's locks when its
//! connection ends, so a process killed while reading leaves nothing to
//! time out and the waiting process reads the file itself at once. Keys are
//! the two-integer form, the first naming the schema and collection (with
//! a marker that keeps them apart from the pairing lock's), the second a
//! hash of the path: two paths whose hashes meet only wait for each other.

use std::time::{Duration, Instant};

use super::PgStore;
use crate::Result;
use doppel_core::doc::DocPath;

/// How often a process waiting for another's document lock asks again.
const POLL: Duration = Duration::from_millis(25);

/// The first key of every document lock of this store's collection.
const FIRST_KEY: &str = "hashtext(current_schema() || ':doc:' || $1::text)";

/// The second key: the path's hash.
fn path_key(doc: &DocPath) -> i32 {
    // The low 32 bits of the hash, as PostgreSQL's signed integer.
    doppel_core::hash::hash64(doc.as_bytes(), 0x646f_635f_6c6f_636b) as u32 as i32
}

impl PgStore {
    /// Take the lock of each of `docs` that no other session holds,
    /// without waiting; whether each was taken, in order. A lock taken
    /// must be given back with [`PgStore::unlock_documents`].
    pub fn try_lock_documents(&self, docs: &[&DocPath]) -> Result<Vec<bool>> {
        self.each_lock("pg_try_advisory_lock", docs, "lock documents")
    }

    /// Wait at most `wait` for the lock of `doc`; whether it was taken.
    pub fn lock_document_within(&self, doc: &DocPath, wait: Duration) -> Result<bool> {
        let deadline = Instant::now() + wait;
        loop {
            if self.try_lock_documents(&[doc])?[0] {
                return Ok(true);
            }
            if Instant::now() >= deadline {
                return Ok(false);
            }
            std::thread::sleep(POLL);
        }
    }

    /// Give back the locks of `docs` (each once for each time it was
    /// taken). A lock the server no longer holds (the connection was lost
    /// since) is no error.
    pub fn unlock_documents(&self, docs: &[&DocPath]) -> Result<()> {
        self.each_lock("pg_advisory_unlock", docs, "unlock documents")
            .map(drop)
    }

    /// `function` (an advisory lock function of two keys) on the lock of
    /// each of `docs`, in order, in one statement; what it said of each.
    fn each_lock(&self, function: &str, docs: &[&DocPath], context: &str) -> Result<Vec<bool>> {
        if docs.is_empty() {
            return Ok(Vec::new());
        }
        let keys: Vec<i32> = docs.iter().map(|doc| path_key(doc)).collect();
        let rows = self
            .client()
            .query(
                &format!(
                    "SELECT {function}({FIRST_KEY}, k) \
                     FROM unnest($2::integer[]) WITH ORDINALITY AS t(k, i) ORDER BY i"
                ),
                &[&self.collection.to_string(), &keys],
            )
            .map_err(self.fail(context))?;
        Ok(rows.iter().map(|row| row.get(0)).collect())
    }
}
