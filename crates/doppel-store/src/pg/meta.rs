//! The `meta` table in PostgreSQL: one row per key of each collection
//! (the values are [`crate::Meta`]'s).

use std::path::PathBuf;

use super::{live, PgStore};
use crate::live::Change;
use crate::meta::{MetaTable, META_OVERRULED, META_SHARED_THRESHOLDS};
use crate::Result;

impl MetaTable for PgStore {
    fn meta(&self, key: &str) -> Result<Option<String>> {
        self.client()
            .query_opt(
                "SELECT value FROM meta WHERE collection = $1 AND key = $2",
                &[&self.collection, &key],
            )
            .map(|row| row.map(|r| r.get(0)))
            .map_err(self.fail(format_args!("read meta {key}")))
    }

    fn set_metas(&mut self, values: &[(&str, &str)]) -> Result<()> {
        let fail = |context: &str| self.fail(context.to_owned());
        let mut client = self.client();
        let mut tx = client.transaction().map_err(fail("begin writing meta"))?;
        for (key, value) in values {
            tx.execute(
                "INSERT INTO meta (collection, key, value) VALUES ($1, $2, $3) \
                 ON CONFLICT (collection, key) DO UPDATE SET value = excluded.value",
                &[&self.collection, key, value],
            )
            .map_err(fail(&format!("write meta {key}")))?;
        }
        // The overruled passages change what every process shows.
        if values.iter().any(|(key, _)| *key == META_OVERRULED) {
            live::notify(&mut tx, &self.channel, &self.sender, Change::Boilerplate)
                .map_err(fail("announce the overruled passages"))?;
        }
        // So do the thresholds saved for the team.
        if values.iter().any(|(key, _)| *key == META_SHARED_THRESHOLDS) {
            live::notify(&mut tx, &self.channel, &self.sender, Change::Thresholds)
                .map_err(fail("announce the team's thresholds"))?;
        }
        tx.commit().map_err(fail("commit meta"))
    }

    fn meta_place(&self) -> PathBuf {
        self.address.to_string().into()
    }
}
