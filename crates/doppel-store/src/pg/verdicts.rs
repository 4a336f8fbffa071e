//! The curators' decisions in PostgreSQL, keyed by the collection and by
//! path (not by row, as in SQLite, so they survive a file being indexed
//! again): each curator's current verdict on a pair (one per pair and
//! curator, so a second curator's verdict never replaces the first's), the
//! history of every set and clear, and the documents marked as keepers,
//! each with who and when. A write is one transaction, committed before it
//! returns, that announces itself to the other processes (`live`: the
//! notification is delivered at the commit).

use super::live::notify;
use super::PgStore;
use crate::live::Change;
use crate::{now_ns, PairVerdictRecord, Result, StoreError, VerdictChange, Verdicts};
use doppel_core::doc::{CuratorVerdict, DocPath};

/// `x` and `y` in byte order, as the verdict tables key them.
fn ordered<'a>(x: &'a DocPath, y: &'a DocPath) -> (&'a DocPath, &'a DocPath) {
    if x <= y {
        (x, y)
    } else {
        (y, x)
    }
}

impl PgStore {
    fn decode(&self, a: &DocPath, b: &DocPath, verdict: &str) -> Result<CuratorVerdict> {
        verdict
            .parse::<CuratorVerdict>()
            .map_err(|reason| self.undecodable(format!("{a} / {b}"), reason.to_string()))
    }
}

impl Verdicts for PgStore {
    fn set_pair_verdict(
        &mut self,
        x: &DocPath,
        y: &DocPath,
        verdict: CuratorVerdict,
    ) -> Result<i64> {
        if x == y {
            return Err(StoreError::Invalid {
                path: self.address.to_string().into(),
                reason: format!("a verdict needs two different paths, got {x}"),
            });
        }
        let (a, b) = ordered(x, y);
        let at = now_ns();
        let what = format!("set verdict on {a} / {b}");
        let mut client = self.client();
        let mut tx = client.transaction().map_err(self.fail(&what))?;
        let row: [&(dyn postgres::types::ToSql + Sync); 6] = [
            &self.collection,
            &a.as_bytes(),
            &b.as_bytes(),
            &self.curator,
            &verdict.as_str(),
            &at,
        ];
        tx.execute(
            "INSERT INTO pair_verdicts (collection, a, b, curator, verdict, set_at_ns) \
             VALUES ($1, $2, $3, $4, $5, $6) \
             ON CONFLICT (collection, a, b, curator) DO UPDATE SET verdict = excluded.verdict, \
             set_at_ns = excluded.set_at_ns",
            &row,
        )
        .map_err(self.fail(&what))?;
        tx.execute(
            "INSERT INTO verdict_history (collection, a, b, curator, verdict, at_ns) \
             VALUES ($1, $2, $3, $4, $5, $6)",
            &row,
        )
        .map_err(self.fail(&what))?;
        notify(&mut tx, &self.channel, &self.sender, Change::Decisions)
            .map_err(self.fail(&what))?;
        tx.commit().map_err(self.fail(&what))?;
        Ok(at)
    }

    fn clear_pair_verdict(&mut self, x: &DocPath, y: &DocPath) -> Result<bool> {
        let (a, b) = ordered(x, y);
        let what = format!("clear verdict on {a} / {b}");
        let mut client = self.client();
        let mut tx = client.transaction().map_err(self.fail(&what))?;
        let cleared = tx
            .execute(
                "DELETE FROM pair_verdicts \
                 WHERE collection = $1 AND a = $2 AND b = $3 AND curator = $4",
                &[
                    &self.collection,
                    &a.as_bytes(),
                    &b.as_bytes(),
                    &self.curator,
                ],
            )
            .map_err(self.fail(&what))?
            > 0;
        if cleared {
            tx.execute(
                "INSERT INTO verdict_history (collection, a, b, curator, verdict, at_ns) \
                 VALUES ($1, $2, $3, $4, NULL, $5)",
                &[
                    &self.collection,
                    &a.as_bytes(),
                    &b.as_bytes(),
                    &self.curator,
                    &now_ns(),
                ],
            )
            .map_err(self.fail(&what))?;
            notify(&mut tx, &self.channel, &self.sender, Change::Decisions)
                .map_err(self.fail(&what))?;
        }
        tx.commit().map_err(self.fail(&what))?;
        Ok(cleared)
    }

    fn pair_verdicts(&self) -> Result<Vec<PairVerdictRecord>> {
        let rows = self
            .client()
            .query(
                "SELECT a, b, curator, verdict, set_at_ns FROM pair_verdicts \
                 WHERE collection = $1 ORDER BY a, b, set_at_ns, curator",
                &[&self.collection],
            )
            .map_err(self.fail("read pair verdicts"))?;
        rows.into_iter()
            .map(|row| {
                let a = DocPath::from_bytes(row.get::<_, Vec<u8>>(0));
                let b = DocPath::from_bytes(row.get::<_, Vec<u8>>(1));
                let verdict = self.decode(&a, &b, row.get(3))?;
                Ok(PairVerdictRecord {
                    a,
                    b,
                    curator: row.get(2),
                    verdict,
                    set_at_ns: row.get(4),
                })
            })
            .collect()
    }

    fn pair_verdict_history(&self, x: &DocPath, y: &DocPath) -> Result<Vec<VerdictChange>> {
        let (a, b) = ordered(x, y);
        let rows = self
            .client()
            .query(
                "SELECT curator, verdict, at_ns FROM verdict_history \
                 WHERE collection = $1 AND a = $2 AND b = $3 ORDER BY seq",
                &[&self.collection, &a.as_bytes(), &b.as_bytes()],
            )
            .map_err(self.fail(format_args!("read the verdict history of {a} / {b}")))?;
        rows.into_iter()
            .map(|row| {
                let verdict = row
                    .get::<_, Option<&str>>(1)
                    .map(|v| self.decode(a, b, v))
                    .transpose()?;
                Ok(VerdictChange {
                    curator: row.get(0),
                    verdict,
                    at_ns: row.get(2),
                })
            })
            .collect()
    }

    fn set_keeper(&mut self, doc: &DocPath, keeper: bool) -> Result<()> {
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

    fn keepers(&self) -> Result<Vec<DocPath>> {
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

    fn curator(&self) -> &str {
        &self.curator
    }

    fn set_curator(&mut self, curator: &str) {
        curator.clone_into(&mut self.curator);
    }
}
