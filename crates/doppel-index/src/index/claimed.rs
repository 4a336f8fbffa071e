//! `doppel ingest`: one collection fingerprinted by several processes
//! (on one machine or many) through the team store's claims
//! (`doppel_store::pg`'s `claims`), then paired once.
//!
//! Each process opens the collection without loading or pairing its
//! documents ([`FolderIndex::open_to_share`]: a pairing written while
//! others add documents would pass for the whole collection's), lists the
//! folder, queues the files the store does not hold as they are, and claims
//! chunks of the queue until none is left: a claimed chunk is read and
//! fingerprinted as a reconcile's chunk is (`sync`'s `ingest_all` and
//! `commit_all`, documents filed unpaired), and written in the transaction
//! that releases its claims. When nothing is left to claim and no other
//! live process holds a claim, fingerprinting is over; the process that
//! then takes the pairing lock opens the collection afresh, which pairs
//! every document from the stored fingerprints at once (the same pass a
//! fresh index's reconcile ends with) and reconciles (files gone, special
//! files, boilerplate). The others wait for the lock: once they have it,
//! either a pass begun after their files were queued has completed, and
//! they exit, or the process pairing died (or was cut off) before it
//! completed, and they pair ([`pair_when_done`]). A process killed at any
//! point loses nothing: its claims' heartbeat stops and another process
//! takes them over after the timeout, and its pairing lock goes with its
//! session.
//!
//! A process that loses the database (a restart, the network) fails with
//! an error [`IndexError::unreachable_database`] names; it may open the
//! collection again once the server answers and go on where it was:
//! [`FolderIndex::fingerprint_share_into`] gives back the claims it held
//! and counts on, then the pairing step is taken again.

use std::collections::HashMap;
use std::time::Duration;

use super::{FolderIndex, IndexError, Result};
use crate::collection::{list_documents, FileEntry};
use doppel_core::doc::{DocPath, FileIdentity};
use doppel_store::{ClaimHeartbeat, PairingLock, PgStore};

/// How a process takes part in an ingest.
#[derive(Debug, Clone)]
pub struct IngestOptions {
    /// This process's name in the claims (unique among the processes).
    pub claimer: String,
    /// A claim whose heartbeat is older than this is taken over.
    pub claim_timeout: Duration,
    /// Files claimed (and committed) at a time.
    pub chunk_files: usize,
}

impl IngestOptions {
    /// The default claim timeout: a live process beats every third of it.
    pub const DEFAULT_CLAIM_TIMEOUT: Duration = Duration::from_secs(30);

    /// Options for a process named after this host and process id.
    pub fn for_this_process(claim_timeout: Duration) -> IngestOptions {
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .map(|h| h.trim().to_owned())
            .unwrap_or_else(|_| "host".to_owned());
        IngestOptions {
            claimer: format!("{host}:{}:{}", std::process::id(), doppel_store::now_ns()),
            claim_timeout,
            chunk_files: crate::reading::CHUNK_FILES,
        }
    }
}

/// What one process's share of an ingest was.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ShareReport {
    /// Files this process needed read when it looked.
    pub needed: usize,
    /// Of all files, those this process fingerprinted and wrote.
    pub fingerprinted: usize,
    /// Of those, files taken over from a process whose heartbeat stopped.
    pub taken_over: usize,
    /// The pairing passes begun when this process last queued its files:
    /// a pass begun after them pairs its share ([`pair_when_done`]).
    pub pairing_passes_seen: i64,
}

impl ShareReport {
    /// Files this process needed read that other processes fingerprinted.
    pub fn by_others(&self) -> usize {
        self.needed.saturating_sub(self.fingerprinted)
    }
}

impl FolderIndex {
    /// Fingerprint this process's share of the folder through the team
    /// store's claims, returning once no file is left to claim and no
    /// other live process holds one; `after_claim` hears of every chunk
    /// claimed (the number of files) before it is read. Needs a
    /// PostgreSQL store. Pairs nothing: see [`pair_when_done`].
    pub fn fingerprint_share(
        &mut self,
        options: &IngestOptions,
        after_claim: &mut dyn FnMut(usize),
    ) -> Result<ShareReport> {
        let mut report = ShareReport::default();
        self.fingerprint_share_into(options, &mut report, after_claim)?;
        Ok(report)
    }

    /// [`FolderIndex::fingerprint_share`], counting into `report`: a
    /// process that lost the database opens the collection again and
    /// goes on with the report it had (the files it wrote before stay
    /// counted; `needed` stays what it needed first). The files
    /// `options.claimer` still holds from before (claimed, never written)
    /// are given back first.
    pub fn fingerprint_share_into(
        &mut self,
        options: &IngestOptions,
        report: &mut ShareReport,
        after_claim: &mut dyn FnMut(usize),
    ) -> Result<()> {
        if !self.root.is_dir() {
            return Err(IndexError::Unavailable {
                root: self.root.clone(),
            });
        }
        let address = self.store.team().map(|t| t.address().clone());
        let Some(address) = address else {
            return Err(IndexError::NeedsTeamStore);
        };
        let (files, _problems) = list_documents(
            &self.root,
            &self.options.extra_ignores,
            self.options.page_folders,
        );
        let stale = self.state.is_stale();
        let to_read: Vec<FileEntry> = files
            .into_iter()
            .filter(|f| stale || !self.files.read_as(&f.doc, &f.identity))
            .collect();
        report.needed = report.needed.max(to_read.len());
        let queued: Vec<(DocPath, FileIdentity)> = to_read
            .iter()
            .map(|f| (f.doc.clone(), f.identity))
            .collect();
        // Under another configuration every stored document is out of
        // date, whatever its identity.
        let drop_done = !stale;
        let team = self.team();
        team.queue_work(&queued, doppel_store::now_ns(), drop_done)?;
        drop(queued);
        // Read after the files are queued, and before this process's own
        // claims from before are given back: until then they keep the
        // queue from looking done (see `pair_when_done`).
        report.pairing_passes_seen = team.pairing_passes_begun()?;
        let given_back = team.unclaim(&options.claimer)?;
        if given_back > 0 {
            tracing::info!(files = given_back, "gave back files claimed before");
        }
        let collection = team.collection_id();
        let mut listed: HashMap<DocPath, FileEntry> =
            to_read.into_iter().map(|f| (f.doc.clone(), f)).collect();
        let _heartbeat = ClaimHeartbeat::start(
            &address,
            collection,
            &options.claimer,
            options.claim_timeout / 3,
        )?;
        let mut invalidated = false;
        loop {
            let claimed = self.team().claim_work(
                &options.claimer,
                options.chunk_files,
                options.claim_timeout,
            )?;
            if claimed.is_empty() {
                let left = self
                    .team()
                    .work_left(&options.claimer, options.claim_timeout)?;
                if left.claimable == 0 && left.held_by_others == 0 {
                    break;
                }
                // Others are reading: their claims are released or go
                // stale (and are claimable) soon.
                std::thread::sleep(options.claim_timeout.min(Duration::from_secs(4)) / 4);
                continue;
            }
            after_claim(claimed.len());
            if !invalidated {
                // The stored pairs no longer cover every document: until
                // the pairing pass they read as out of date. When every
                // stored entry is this configuration's, the pairing pass
                // files the documents from them (a key it recognizes);
                // otherwise it makes every entry again.
                let pairs_hash = self.pairs_key();
                let unpaired = super::unpaired_hash(&pairs_hash);
                let stored = self.store.pairs_hash()?;
                // (A share's library holds no stored document: see
                // `open_to_share`. A collection without any is current.)
                let entries_current = !stale
                    && (self.files.none_stored()
                        || stored.as_deref() == Some(pairs_hash.as_str())
                        || stored.as_deref() == Some(unpaired.as_str()));
                let key = if entries_current {
                    unpaired.as_str()
                } else {
                    ""
                };
                self.store.replace_pairs(&mut std::iter::empty(), key)?;
                invalidated = true;
            }
            report.taken_over += claimed.iter().filter(|c| c.taken_over).count();
            let arrival = claimed.iter().map(|c| c.queued_ns).min();
            let docs: Vec<DocPath> = claimed.iter().map(|c| c.doc.clone()).collect();
            let entries: Vec<FileEntry> = claimed
                .into_iter()
                .filter_map(|c| listed.remove(&c.doc).or_else(|| self.entry_now(&c.doc)))
                .collect();
            self.team().release_with_next_commit(&options.claimer, docs);
            // Filed unpaired, arriving when they were queued: the pairing
            // pass pairs them all.
            self.begin_filing(arrival, false);
            let ingested = self.ingest_all(entries);
            let committed = self.commit_all(ingested);
            self.state.end_filing();
            committed?;
            report.fingerprinted += self.team().finish_release()?;
        }
        if self.state.is_stale() {
            // Every file has been read under the current configuration.
            self.store.set_config_hash(&self.config_hash)?;
            self.state.refreshed();
        }
        Ok(())
    }

    /// Queue to be fingerprinted again every document whose stored
    /// boilerplate spans are not what the learner over every document
    /// finds: each process learned from the documents it had seen, so a
    /// document may have been fingerprinted under spans others' documents
    /// have moved since. The next reconcile settles them (from their kept
    /// text, else their file). Returns how many were queued.
    pub fn queue_moved_boilerplate(&mut self) -> Result<usize> {
        let stored = self.store.boilerplate()?;
        let Some(learner) = self.learner()? else {
            return Ok(0);
        };
        let moved: Vec<DocPath> = stored
            .into_iter()
            .filter(|(doc, b)| learner.spans(doc) != b.found.spans.as_slice())
            .map(|(doc, _)| doc)
            .collect();
        let queued = moved.len();
        self.boilerplate.queue(moved);
        Ok(queued)
    }

    /// The team store (checked by [`FolderIndex::fingerprint_share`]).
    fn team(&mut self) -> &mut PgStore {
        self.store.team().expect("a team store")
    }

    /// A file another process queued but this one did not list: as it is
    /// now (`None` when it is no longer a file; the pairing process's
    /// reconcile sees to it).
    fn entry_now(&self, doc: &DocPath) -> Option<FileEntry> {
        let path = self.root.join(doc.to_relative_path());
        crate::collection::entry_now(&self.root, &path, self.options.page_folders)
    }

    /// The database address and collection of a team store.
    pub fn team_place(&mut self) -> Option<(doppel_store::PgAddress, i64)> {
        self.store
            .team()
            .map(|t| (t.address().clone(), t.collection_id()))
    }
}

/// What [`pair_when_done`] came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Paired<T> {
    /// This process paired: what the pairing returned, and whether it
    /// took the pairing over (it waited for a process that had begun a
    /// pass and stopped before completing it).
    Here {
        /// What the pairing returned.
        paired: T,
        /// The pass was another's first.
        taken_over: bool,
    },
    /// Another process paired the collection after this process's files
    /// were written.
    Elsewhere,
    /// Files were queued meanwhile (a process that started since): they
    /// are to be fingerprinted first, then the pairing step taken again.
    WorkLeft,
}

/// After [`FolderIndex::fingerprint_share`] (whose `share` this is): take
/// the collection's pairing lock, waiting for it (after telling
/// `waiting`) while another process holds it, and then, unless a pairing
/// pass that began after this process's files were queued has completed
/// meanwhile, run `pair` (which opens the collection afresh: see the
/// module's text) under it. A process that pairs and dies leaves the lock
/// to the next one waiting, which pairs in its place. An unreachable
/// server fails as any store operation does; taking the step again
/// after reconnecting is safe.
pub fn pair_when_done<T, E: From<doppel_store::StoreError>>(
    address: &doppel_store::PgAddress,
    collection: i64,
    share: &ShareReport,
    waiting: impl FnOnce(),
    pair: impl FnOnce() -> std::result::Result<T, E>,
) -> std::result::Result<Paired<T>, E> {
    let mut lock = PairingLock::connect(address, collection)?;
    let waited = !lock.try_take()?;
    if waited {
        waiting();
        lock.take()?;
    }
    let passes = lock.passes()?;
    if passes.done > share.pairing_passes_seen {
        return Ok(Paired::Elsewhere);
    }
    // A pass was begun and never completed: its process stopped.
    let taken_over = waited && passes.begun > passes.done;
    let Some(pass) = lock.begin_pass()? else {
        return Ok(Paired::WorkLeft);
    };
    let paired = pair()?;
    lock.finish_pass(pass)?;
    drop(lock);
    Ok(Paired::Here { paired, taken_over })
}
