//! The curator's decisions in PostgreSQL, keyed by the collection and by
//! path (not by row, as in SQLite, so they survive a file being indexed
//! again), each recorded with the curator who made it and when: verdicts
//! on pairs and the documents marked as keepers. A write is one statement,
//! committed before it returns, then announced to the other processes
//! (`live`).

use super::PgStore;
use crate::doc::{CuratorVerdict, DocPath};
use crate::runtime::store::live::Change;
use crate::runtime::store::{now_ns, PairVerdictRecord, Result, StoreError};

impl PgStore {
    /// Record the curator's verdict on two documents (in either order).
    pub fn set_pair_verdict(
        &self,
        x: &DocPath,
        y: &DocPath,
        verdict: CuratorVerdict,
    ) -> Result<()> {
        if x == y {
            return Err(StoreError::Invalid {
                path: self.address.to_string().into(),
                reason: format!("a verdict needs two different paths, got {x}"),
            });
        }
        let (a, b) = if x <= y { (x, y) } else { (y, x) };
        self.client()
            .execute(
                "INSERT INTO pair_verdicts (collection, a, b, verdict, curator, set_at_ns) \
                 VALUES ($1, $2, $3, $4, $5, $6) \
                 ON CONFLICT (collection, a, b) DO UPDATE SET verdict = excluded.verdict, \
                 curator = excluded.curator, set_at_ns = excluded.set_at_ns",
                &[
                    &self.collection,
                    &a.as_bytes(),
                    &b.as_bytes(),
                    &verdict.as_str(),
                    &self.curator,
                    &now_ns(),
                ],
            )
            .map_err(self.fail(format_args!("set verdict on {a} / {b}")))?;
        self.announce(Change::Decisions)
    }

    /// Forget the verdict on two documents; `false` if there was none.
    pub fn clear_pair_verdict(&self, x: &DocPath, y: &DocPath) -> Result<bool> {
        let (a, b) = if x <= y { (x, y) } else { (y, x) };
        let cleared = self
            .client()
            .execute(
                "DELETE FROM pair_verdicts WHERE collection = $1 AND a = $2 AND b = $3",
                &[&self.collection, &a.as_bytes(), &b.as_bytes()],
            )
            .map_err(self.fail(format_args!("clear verdict on {a} / {b}")))?;
        if cleared > 0 {
            self.announce(Change::Decisions)?;
        }
        Ok(cleared > 0)
    }

    /// Every pair verdict of the collection, ordered by path, with who set
    /// it.
    pub fn pair_verdicts(&self) -> Result<Vec<(PairVerdictRecord, String)>> {
        let rows = self
            .client()
            .query(
                "SELECT a, b, verdict, set_at_ns, curator FROM pair_verdicts \
                 WHERE collection = $1 ORDER BY a, b",
                &[&self.collection],
            )
            .map_err(self.fail("read pair verdicts"))?;
        rows.into_iter()
            .map(|row| {
                let a = DocPath::from_bytes(row.get::<_, Vec<u8>>(0));
                let b = DocPath::from_bytes(row.get::<_, Vec<u8>>(1));
                let verdict = row
                    .get::<_, &str>(2)
                    .parse::<CuratorVerdict>()
                    .map_err(|reason| self.undecodable(format!("{a} / {b}"), reason))?;
                let record = PairVerdictRecord {
                    a,
                    b,
                    verdict,
                    set_at_ns: row.get(3),
                };
                Ok((record, row.get(4)))
            })
            .collect()
    }

    /// Mark (or unmark) a document as its cluster's keeper.
    pub fn set_keeper(&self, doc: &DocPath, keeper: bool) -> Result<()> {
        let mut client = self.client();
        let written = if keeper {
            client.execute(
                "INSERT INTO doc_verdicts (collection, path, verdict, curator, set_at_ns) \
                 VALUES ($1, $2, 'keep', $3, $4) \
                 ON CONFLICT (collection, path) DO UPDATE SET verdict = 'keep', \
                 curator = excluded.curator, set_at_ns = excluded.set_at_ns",
                &[&self.collection, &doc.as_bytes(), &self.curator, &now_ns()],
            )
        } else {
            client.execute(
                "DELETE FROM doc_verdicts WHERE collection = $1 AND path = $2",
                &[&self.collection, &doc.as_bytes()],
            )
        };
        drop(client);
        written.map_err(self.fail(format_args!("mark {doc} as a keeper")))?;
        self.announce(Change::Decisions)
    }

    /// Every document of the collection marked as a keeper, in byte order.
    pub fn keepers(&self) -> Result<Vec<DocPath>> {
        let rows = self
            .client()
            .query(
                "SELECT path FROM doc_verdicts WHERE collection = $1 AND verdict = 'keep' \
                 ORDER BY path",
                &[&self.collection],
            )
            .map_err(self.fail("read keepers"))?;
        Ok(rows
            .into_iter()
            .map(|row| DocPath::from_bytes(row.get::<_, Vec<u8>>(0)))
            .collect())
    }
}
