//! The curator's decisions, keyed by path (not by row) so they survive a
//! file being forgotten and indexed again: verdicts on pairs, and the
//! documents marked as keepers (the one of a cluster to keep). Each write
//! is committed with `synchronous=FULL`, since no folder can recompute it.

use rusqlite::params;

use super::error::Context;
use super::rows::collect_rows;
use super::{now_ns, PairVerdictRecord, Result, SqliteStore, StoreError};
use crate::doc::{CuratorVerdict, DocPath};

impl SqliteStore {
    /// Run a verdict write with `synchronous=FULL`: curator decisions cannot
    /// be recomputed from the folder, so their commit is made durable.
    fn durably<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        tracing::debug!("curator decision, committed with synchronous=FULL");
        self.conn
            .pragma_update(None, "synchronous", "FULL")
            .ctx(&self.path, "set synchronous=FULL")?;
        let out = f(self);
        let restored = self
            .conn
            .pragma_update(None, "synchronous", "NORMAL")
            .ctx(&self.path, "set synchronous=NORMAL");
        let out = out?;
        restored?;
        Ok(out)
    }

    /// Record the curator's verdict on two documents (in either order).
    pub fn set_pair_verdict(
        &mut self,
        x: &DocPath,
        y: &DocPath,
        verdict: CuratorVerdict,
    ) -> Result<()> {
        if x == y {
            return Err(StoreError::Invalid {
                path: self.path.clone(),
                reason: format!("a verdict needs two different paths, got {x}"),
            });
        }
        let (a, b) = if x <= y { (x, y) } else { (y, x) };
        self.durably(|s| {
            s.conn
                .execute(
                    "INSERT INTO pair_verdicts (a, b, verdict, set_at_ns) VALUES (?1, ?2, ?3, ?4) \
                     ON CONFLICT(a, b) DO UPDATE SET verdict = excluded.verdict, \
                     set_at_ns = excluded.set_at_ns",
                    params![a.as_bytes(), b.as_bytes(), verdict.as_str(), now_ns()],
                )
                .ctx(&s.path, format_args!("set verdict on {a} / {b}"))
                .map(drop)
        })
    }

    /// Forget the verdict on two documents; `false` if there was none.
    pub fn clear_pair_verdict(&mut self, x: &DocPath, y: &DocPath) -> Result<bool> {
        let (a, b) = if x <= y { (x, y) } else { (y, x) };
        self.durably(|s| {
            s.conn
                .execute(
                    "DELETE FROM pair_verdicts WHERE a = ?1 AND b = ?2",
                    params![a.as_bytes(), b.as_bytes()],
                )
                .ctx(&s.path, format_args!("clear verdict on {a} / {b}"))
                .map(|n| n > 0)
        })
    }

    /// Every pair verdict, ordered by path.
    pub fn pair_verdicts(&self) -> Result<Vec<PairVerdictRecord>> {
        let raws: Vec<(Vec<u8>, Vec<u8>, String, i64)> = collect_rows(
            &self.conn,
            "SELECT a, b, verdict, set_at_ns FROM pair_verdicts ORDER BY a, b",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .ctx(&self.path, "read pair verdicts")?;
        raws.into_iter()
            .map(|(a, b, verdict, set_at_ns)| {
                let (a, b) = (DocPath::from_bytes(a), DocPath::from_bytes(b));
                let verdict =
                    verdict
                        .parse::<CuratorVerdict>()
                        .map_err(|reason| StoreError::Decode {
                            path: self.path.clone(),
                            doc: format!("{a} / {b}"),
                            reason,
                        })?;
                Ok(PairVerdictRecord {
                    a,
                    b,
                    verdict,
                    set_at_ns,
                })
            })
            .collect()
    }

    /// Mark (or unmark) a document as its cluster's keeper.
    pub fn set_keeper(&mut self, doc: &DocPath, keeper: bool) -> Result<()> {
        self.durably(|s| {
            let what = format!("mark {doc} as a keeper");
            if keeper {
                s.conn
                    .execute(
                        "INSERT INTO doc_verdicts (path, verdict, set_at_ns) VALUES (?1, 'keep', ?2) \
                         ON CONFLICT(path) DO UPDATE SET verdict = 'keep', set_at_ns = excluded.set_at_ns",
                        params![doc.as_bytes(), now_ns()],
                    )
                    .ctx(&s.path, what)?;
            } else {
                s.conn
                    .execute("DELETE FROM doc_verdicts WHERE path = ?1", [doc.as_bytes()])
                    .ctx(&s.path, what)?;
            }
            Ok(())
        })
    }

    /// Every document marked as a keeper, in byte order.
    pub fn keepers(&self) -> Result<Vec<DocPath>> {
        collect_rows(
            &self.conn,
            "SELECT path FROM doc_verdicts WHERE verdict = 'keep' ORDER BY path",
            [],
            |r| Ok(DocPath::from_bytes(r.get::<_, Vec<u8>>(0)?)),
        )
        .ctx(&self.path, "read keepers")
    }
}
