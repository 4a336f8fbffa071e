//! The curators' decisions, keyed by path (not by row) so they survive a
//! file being forgotten and indexed again: each curator's current verdict
//! on a pair (one per pair and curator, so a second curator's verdict never
//! replaces the first's), the history of every set and clear, and the
//! documents marked as keepers (the one of a cluster to keep), each with
//! who and when. Each write is committed with `synchronous=FULL`, since no
//! folder can recompute it.

use rusqlite::{params, TransactionBehavior};

use super::error::Context;
use super::rows::collect_rows;
use super::{now_ns, PairVerdictRecord, Result, SqliteStore, StoreError};
use crate::{VerdictChange, Verdicts};
use doppel_core::doc::{CuratorVerdict, DocPath};

/// `x` and `y` in byte order, as the verdict tables key them.
fn ordered<'a>(x: &'a DocPath, y: &'a DocPath) -> (&'a DocPath, &'a DocPath) {
    if x <= y {
        (x, y)
    } else {
        (y, x)
    }
}

/// A verdict from before curators were recorded (curator `''`) was made
/// on this index, a curator's own: the next curator to judge the pair takes
/// it over rather than disputing it.
const TAKE_OVER_UNKNOWN: &str =
    "DELETE FROM pair_verdicts WHERE a = ?1 AND b = ?2 AND curator = ''";

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

    fn decode(&self, a: &DocPath, b: &DocPath, verdict: &str) -> Result<CuratorVerdict> {
        verdict
            .parse::<CuratorVerdict>()
            .map_err(|reason| StoreError::Decode {
                path: self.path.clone(),
                doc: format!("{a} / {b}"),
                reason: reason.to_string(),
            })
    }
}

impl Verdicts for SqliteStore {
    fn curator(&self) -> &str {
        &self.curator
    }

    fn set_curator(&mut self, curator: &str) {
        curator.clone_into(&mut self.curator);
    }

    fn set_pair_verdict(
        &mut self,
        x: &DocPath,
        y: &DocPath,
        verdict: CuratorVerdict,
    ) -> Result<i64> {
        if x == y {
            return Err(StoreError::Invalid {
                path: self.path.clone(),
                reason: format!("a verdict needs two different paths, got {x}"),
            });
        }
        let (a, b) = ordered(x, y);
        let at = now_ns();
        self.durably(|s| {
            let what = || format!("set verdict on {a} / {b}");
            let tx = s
                .conn
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .ctx(&s.path, what())?;
            tx.execute(TAKE_OVER_UNKNOWN, params![a.as_bytes(), b.as_bytes()])
                .ctx(&s.path, what())?;
            tx.execute(
                "INSERT INTO pair_verdicts (a, b, curator, verdict, set_at_ns) \
                 VALUES (?1, ?2, ?3, ?4, ?5) \
                 ON CONFLICT(a, b, curator) DO UPDATE SET verdict = excluded.verdict, \
                 set_at_ns = excluded.set_at_ns",
                params![a.as_bytes(), b.as_bytes(), s.curator, verdict.as_str(), at],
            )
            .ctx(&s.path, what())?;
            tx.execute(
                "INSERT INTO verdict_history (a, b, curator, verdict, at_ns) \
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                params![a.as_bytes(), b.as_bytes(), s.curator, verdict.as_str(), at],
            )
            .ctx(&s.path, what())?;
            tx.commit().ctx(&s.path, what())
        })?;
        Ok(at)
    }

    fn clear_pair_verdict(&mut self, x: &DocPath, y: &DocPath) -> Result<bool> {
        let (a, b) = ordered(x, y);
        self.durably(|s| {
            let what = || format!("clear verdict on {a} / {b}");
            let tx = s
                .conn
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .ctx(&s.path, what())?;
            let cleared = tx
                .execute(
                    "DELETE FROM pair_verdicts WHERE a = ?1 AND b = ?2 AND curator IN (?3, '')",
                    params![a.as_bytes(), b.as_bytes(), s.curator],
                )
                .ctx(&s.path, what())?
                > 0;
            if cleared {
                tx.execute(
                    "INSERT INTO verdict_history (a, b, curator, verdict, at_ns) \
                     VALUES (?1, ?2, ?3, NULL, ?4)",
                    params![a.as_bytes(), b.as_bytes(), s.curator, now_ns()],
                )
                .ctx(&s.path, what())?;
            }
            tx.commit().ctx(&s.path, what())?;
            Ok(cleared)
        })
    }

    fn pair_verdicts(&self) -> Result<Vec<PairVerdictRecord>> {
        let raws: Vec<super::rows::VerdictRow> = collect_rows(
            &self.conn,
            "SELECT a, b, curator, verdict, set_at_ns FROM pair_verdicts \
             ORDER BY a, b, set_at_ns, curator",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )
        .ctx(&self.path, "read pair verdicts")?;
        raws.into_iter()
            .map(|(a, b, curator, verdict, set_at_ns)| {
                let (a, b) = (DocPath::from_bytes(a), DocPath::from_bytes(b));
                let verdict = self.decode(&a, &b, &verdict)?;
                Ok(PairVerdictRecord {
                    a,
                    b,
                    curator,
                    verdict,
                    set_at_ns,
                })
            })
            .collect()
    }

    fn pair_verdict_history(&self, x: &DocPath, y: &DocPath) -> Result<Vec<VerdictChange>> {
        let (a, b) = ordered(x, y);
        let raws: Vec<(String, Option<String>, i64)> = collect_rows(
            &self.conn,
            "SELECT curator, verdict, at_ns FROM verdict_history \
             WHERE a = ?1 AND b = ?2 ORDER BY seq",
            params![a.as_bytes(), b.as_bytes()],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .ctx(
            &self.path,
            format_args!("read the verdict history of {a} / {b}"),
        )?;
        raws.into_iter()
            .map(|(curator, verdict, at_ns)| {
                let verdict = verdict.map(|v| self.decode(a, b, &v)).transpose()?;
                Ok(VerdictChange {
                    curator,
                    verdict,
                    at_ns,
                })
            })
            .collect()
    }

    fn set_keeper(&mut self, doc: &DocPath, keeper: bool) -> Result<()> {
        self.durably(|s| {
            let what = format!("mark {doc} as a keeper");
            if keeper {
                s.conn
                    .execute(
                        "INSERT INTO doc_verdicts (path, verdict, curator, set_at_ns) \
                         VALUES (?1, 'keep', ?2, ?3) \
                         ON CONFLICT(path) DO UPDATE SET verdict = 'keep', \
                         curator = excluded.curator, set_at_ns = excluded.set_at_ns",
                        params![doc.as_bytes(), s.curator, now_ns()],
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

    fn keepers(&self) -> Result<Vec<DocPath>> {
        collect_rows(
            &self.conn,
            "SELECT path FROM doc_verdicts WHERE verdict = 'keep' ORDER BY path",
            [],
            |r| Ok(DocPath::from_bytes(r.get::<_, Vec<u8>>(0)?)),
        )
        .ctx(&self.path, "read keepers")
    }
}
