//! The index's modes as states, and the only ways between them.
//!
//! Three things decide how a [`super::FolderIndex`] takes what it reads:
//!
//! - its **purpose** ([`IndexState::set_one_shot`]): kept (a watcher's,
//!   a review's: changes follow the next reconcile) or one-shot (a `scan`:
//!   a report and nothing else follows), which a fresh reconcile reads to
//!   learn its boilerplate at once and free its learner before pairing;
//! - its stored **prints**: current, or stale when the index was opened
//!   under another configuration than the one its fingerprints were made
//!   under, until a pass has read every file again under the current one;
//! - the **pass** it is in: steady (every document that arrives is paired
//!   at once), or filing (documents are filed unpaired, to be paired all
//!   at once when every one is in), the data of a filing pass held in it.
//!
//! ```text
//!  purpose    Kept ◀────── set_one_shot ──────▶ OneShot
//!
//!  prints     Current ──── opened under another configuration ───▶ Stale
//!               ▲                                                   │
//!               └── refreshed: a reconcile has read every file, ────┘
//!                   or an ingest's share is done
//!
//!  pass       Steady ── begin_filing(arrival, at_once) ──▶ Filing { arrival_ns,
//!               ▲          a reconcile into an empty            unlearned }
//!               │          library; an ingest share's chunk       │ collect(samples)
//!               │                                                 │ (one-shot: learned
//!               └── end_filing: the samples collected ────────────┘  at once later)
//!                   (the caller pairs what was filed)
//! ```
//!
//! A fresh one-shot reconcile then learns its boilerplate at once and,
//! until the documents that learning moved are fingerprinted again, keeps
//! what it learned in place of a learner: the learner's own states are
//! [`super::learning::IndexBoilerplate`]'s.

use super::at_once::Unlearned;

/// What follows the next reconcile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Purpose {
    /// Changes follow (a watcher, a review): the learner is kept.
    Kept,
    /// Nothing but a report follows (a `scan`).
    OneShot,
}

/// What the stored fingerprints were made under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Prints {
    /// The current configuration.
    Current,
    /// Another one: every file is read again, and the current
    /// configuration is recorded once every one has been.
    Stale,
}

/// How arriving documents enter the library.
#[derive(Debug)]
enum Pass {
    /// Each is paired as it arrives.
    Steady,
    /// Each is filed unpaired, to be paired when the pass ends.
    Filing(Filing),
}

/// A filing pass's data.
#[derive(Debug)]
struct Filing {
    /// The first-seen time arriving documents get instead of the commit's
    /// (an ingest's share: the time their claims were queued, so that
    /// documents read by several processes arrive in path order as one
    /// process's would).
    arrival_ns: Option<i64>,
    /// When the pass learns its boilerplate at once after its last file
    /// (a fresh one-shot reconcile): the samples of every document
    /// committed so far.
    unlearned: Option<Vec<Unlearned>>,
}

/// An index's purpose, stored prints and pass (see the module's text).
#[derive(Debug)]
pub(super) struct IndexState {
    purpose: Purpose,
    prints: Prints,
    pass: Pass,
}

impl IndexState {
    /// A kept index just opened, steady, its stored prints `stale` or not.
    pub(super) fn opened(stale: bool) -> Self {
        Self {
            purpose: Purpose::Kept,
            prints: if stale {
                Prints::Stale
            } else {
                Prints::Current
            },
            pass: Pass::Steady,
        }
    }

    /// Say whether nothing but a report follows the next reconcile.
    pub(super) fn set_one_shot(&mut self, one_shot: bool) {
        self.purpose = if one_shot {
            Purpose::OneShot
        } else {
            Purpose::Kept
        };
    }

    /// Whether nothing but a report follows the next reconcile.
    pub(super) fn one_shot(&self) -> bool {
        self.purpose == Purpose::OneShot
    }

    /// Whether the stored fingerprints were made under another
    /// configuration (every file is read again).
    pub(super) fn is_stale(&self) -> bool {
        self.prints == Prints::Stale
    }

    /// Every file has now been read under the current configuration:
    /// whether the prints were stale until now (the caller records the
    /// configuration then).
    pub(super) fn refreshed(&mut self) -> bool {
        std::mem::replace(&mut self.prints, Prints::Current) == Prints::Stale
    }

    /// Begin filing arriving documents unpaired, with `arrival_ns` as
    /// their first-seen time (`None`: the commit's), collecting their
    /// samples when the pass learns its boilerplate `at_once`. Only from
    /// the steady pass.
    pub(super) fn begin_filing(&mut self, arrival_ns: Option<i64>, at_once: bool) {
        debug_assert!(
            matches!(self.pass, Pass::Steady),
            "a filing pass began twice"
        );
        self.pass = Pass::Filing(Filing {
            arrival_ns,
            unlearned: at_once.then(Vec::new),
        });
    }

    /// End the filing pass: back to steady, with the samples it collected
    /// to learn at once (`None`: it learned otherwise, or was not filing).
    pub(super) fn end_filing(&mut self) -> Option<Vec<Unlearned>> {
        match std::mem::replace(&mut self.pass, Pass::Steady) {
            Pass::Filing(filing) => filing.unlearned,
            Pass::Steady => None,
        }
    }

    /// Whether arriving documents are filed unpaired.
    pub(super) fn files_unpaired(&self) -> bool {
        matches!(self.pass, Pass::Filing(_))
    }

    /// The first-seen time arriving documents get (`None`: the commit's).
    pub(super) fn arrival_ns(&self) -> Option<i64> {
        match &self.pass {
            Pass::Filing(filing) => filing.arrival_ns,
            Pass::Steady => None,
        }
    }

    /// Whether the pass learns its boilerplate at once after its last
    /// file (its reading only takes the samples).
    pub(super) fn learns_at_once(&self) -> bool {
        matches!(
            &self.pass,
            Pass::Filing(Filing {
                unlearned: Some(_),
                ..
            })
        )
    }

    /// Keep the samples of committed documents to learn at once; ignored
    /// unless the pass does.
    pub(super) fn collect(&mut self, samples: Vec<Unlearned>) {
        if let Pass::Filing(Filing {
            unlearned: Some(unlearned),
            ..
        }) = &mut self.pass
        {
            unlearned.extend(samples);
        } else {
            debug_assert!(
                samples.is_empty(),
                "samples taken outside a pass learning at once"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use doppel_core::doc::DocPath;
    use doppel_pairing::boilerplate::DocSamples;

    fn sample(doc: &str) -> Unlearned {
        (
            DocPath::from(doc),
            DocSamples::from_sampled(vec![(7, 0)], 3),
            1,
        )
    }

    #[test]
    fn an_index_opens_kept_and_steady_and_is_one_shot_only_when_told() {
        let mut state = IndexState::opened(false);
        assert!(!state.one_shot());
        assert!(!state.files_unpaired());
        assert_eq!(state.arrival_ns(), None);
        state.set_one_shot(true);
        assert!(state.one_shot());
        state.set_one_shot(false);
        assert!(!state.one_shot());
    }

    #[test]
    fn stale_prints_are_refreshed_once() {
        let mut state = IndexState::opened(true);
        assert!(state.is_stale());
        assert!(
            state.refreshed(),
            "the first refresh records the configuration"
        );
        assert!(!state.is_stale());
        assert!(!state.refreshed(), "and only the first");
        assert!(!IndexState::opened(false).refreshed());
    }

    #[test]
    fn a_filing_pass_holds_its_arrival_time_until_it_ends() {
        let mut state = IndexState::opened(false);
        state.begin_filing(Some(42), false);
        assert!(state.files_unpaired());
        assert!(!state.learns_at_once());
        assert_eq!(state.arrival_ns(), Some(42));
        assert_eq!(state.end_filing().map(|u| u.len()), None);
        assert!(!state.files_unpaired());
        assert_eq!(state.arrival_ns(), None, "the time was the pass's alone");
        assert!(
            state.end_filing().is_none(),
            "ending a steady pass is nothing"
        );
    }

    #[test]
    fn a_pass_learning_at_once_gives_back_every_sample_collected() {
        let mut state = IndexState::opened(false);
        state.begin_filing(None, true);
        assert!(state.learns_at_once());
        state.collect(vec![sample("a.txt")]);
        state.collect(vec![sample("b.txt"), sample("c.txt")]);
        let docs: Vec<String> = state
            .end_filing()
            .expect("learned at once")
            .into_iter()
            .map(|(doc, _, _)| doc.to_string())
            .collect();
        assert_eq!(docs, ["a.txt", "b.txt", "c.txt"]);
        assert!(!state.learns_at_once());
        // A steady pass collects nothing (and there is nothing to collect).
        state.collect(Vec::new());
        assert!(state.end_filing().is_none());
    }
}
