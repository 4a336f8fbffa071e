//! The boilerplate an index learned, read from its store alone (nothing
//! written, no file of the folder read): the learner its documents'
//! stored samples make, with the curator's overruled passages and the
//! user's boilerplate folder, built as the folder index builds its own
//! when a change first needs it. `doppel compare A B` puts the two files
//! into it, as a scan of their folder would take them in, and compares
//! them without the spans it gives them.

use std::collections::BTreeSet;

use super::user::UserBoilerplate;
use doppel_core::doc::DocPath;
use doppel_core::engine::Engine;
use doppel_pairing::boilerplate::Learner;
use doppel_pairing::library::LibraryConfig;
use doppel_store::{DocStatus, Store, StoreError};

/// What an index's store gives of its learned boilerplate.
#[derive(Debug)]
pub enum StoredLearner {
    /// Learning is switched off (`[boilerplate] enabled = false`).
    Off,
    /// The stored samples were made under other fingerprint settings: they
    /// are not this engine's shingles (a scan reads every file again
    /// first).
    OtherSettings,
    /// The learner of the indexed documents.
    Learned(Box<Learner<DocPath>>),
}

impl StoredLearner {
    /// The learner of `store`'s indexed documents under `engine` and
    /// `library` (the learner's parameters, the user's boilerplate folder
    /// `user` pinned, the overruled passages the store records).
    pub fn read(
        store: &dyn Store,
        engine: &Engine,
        library: &LibraryConfig,
        user: Option<&UserBoilerplate>,
    ) -> Result<Self, StoreError> {
        let Some(config) = super::config_of(engine, library) else {
            return Ok(Self::Off);
        };
        // The prints' key starts with the engine's (`index::open`'s
        // `prints_config_hash`); what follows it (the learner's parameters,
        // the user's folder) is applied here anew.
        let engine_key = doppel_store::engine_config_hash(engine.config());
        if store
            .config_hash()?
            .is_some_and(|key| !key.starts_with(&engine_key))
        {
            return Ok(Self::OtherSettings);
        }
        let indexed: BTreeSet<DocPath> = store
            .listing()?
            .into_iter()
            .filter(|d| d.status == DocStatus::Indexed)
            .map(|d| d.path)
            .collect();
        let overruled: BTreeSet<u32> = store
            .overruled_passages()?
            .iter()
            .flat_map(|p| p.hashes.iter().copied())
            .collect();
        let mut learner = Learner::new(config);
        if let Some(user) = user {
            user.pin(&mut learner);
        }
        learner.set_overruled(overruled);
        learner.add_in_batches(
            store
                .boilerplate()?
                .into_iter()
                .filter(|(doc, _)| indexed.contains(doc))
                .map(|(doc, b)| (doc, b.samples)),
        );
        Ok(Self::Learned(Box::new(learner)))
    }
}
