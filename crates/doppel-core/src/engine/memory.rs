//! Fallible reservations of the memory a document takes in proportion to
//! its size (its lines, its sampled shingles): a reservation that fails is
//! an error the reader turns into a skip with its reason, never a panic.
//!
//! Tests can lower a limit on the reservations of their own thread
//! (`refuse_over`: this crate's unit tests, and other crates' tests through
//! the `memory-limit` feature, which builds never enable) to make one fail
//! where they choose: the failure is then deterministic, whatever the
//! machine's memory.

use std::collections::TryReserveError;

/// `vec.try_reserve(additional)`, refused over the test limit of this
/// thread (tests only).
pub(crate) fn try_reserve<T>(vec: &mut Vec<T>, additional: usize) -> Result<(), TryReserveError> {
    #[cfg(any(test, feature = "memory-limit"))]
    if limit::refuses(additional.saturating_mul(std::mem::size_of::<T>())) {
        return Err(limit::refusal());
    }
    vec.try_reserve(additional)
}

/// [`try_reserve`] with `Vec::try_reserve_exact`.
pub(crate) fn try_reserve_exact<T>(
    vec: &mut Vec<T>,
    additional: usize,
) -> Result<(), TryReserveError> {
    #[cfg(any(test, feature = "memory-limit"))]
    if limit::refuses(additional.saturating_mul(std::mem::size_of::<T>())) {
        return Err(limit::refusal());
    }
    vec.try_reserve_exact(additional)
}

#[cfg(any(test, feature = "memory-limit"))]
pub use limit::{refuse_over, Guard};

#[cfg(any(test, feature = "memory-limit"))]
mod limit {
    use std::cell::Cell;
    use std::collections::TryReserveError;

    thread_local! {
        static LIMIT: Cell<Option<usize>> = const { Cell::new(None) };
    }

    /// Until the guard is dropped, reservations of this thread through
    /// [`super::try_reserve`] of more than `bytes` fail.
    pub fn refuse_over(bytes: usize) -> Guard {
        LIMIT.with(|l| l.set(Some(bytes)));
        Guard
    }

    /// Lifts the limit [`refuse_over`] set.
    #[derive(Debug)]
    pub struct Guard;

    impl Drop for Guard {
        fn drop(&mut self) {
            LIMIT.with(|l| l.set(None));
        }
    }

    pub(super) fn refuses(bytes: usize) -> bool {
        LIMIT.with(|l| l.get().is_some_and(|limit| bytes > limit))
    }

    /// The error of a reservation the allocator cannot make (a capacity
    /// past `isize::MAX`, as a real refusal would be).
    pub(super) fn refusal() -> TryReserveError {
        Vec::<u8>::new()
            .try_reserve(usize::MAX)
            .expect_err("no allocation of usize::MAX bytes")
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::fingerprinter::{PrintOptions, ShingleSampler};
    use crate::engine::text::page_furniture;
    use crate::engine::Engine;

    /// A reservation the allocator refuses is an error of the engine's
    /// fallible steps (a text's lines, a document's sampled shingles),
    /// never a panic; the same steps succeed with memory.
    #[test]
    fn a_refused_reservation_is_an_error_not_a_panic() {
        let engine = Engine::default();
        let page = "a page of the book with its words\n".repeat(20);
        let paged = format!("{page}\u{c}\n{page}\u{c}\n{page}");
        let analysis = engine.analyze(&paged);
        let sampling = PrintOptions {
            sample_shingles: Some(ShingleSampler::new(1)),
            ..PrintOptions::default()
        };
        let weights = engine.reference_weights();
        {
            let _limit = super::refuse_over(0);
            assert!(page_furniture::find(&paged).is_err());
            assert!(engine.try_analyze(&paged).is_err());
            assert!(engine.print(&analysis, weights, sampling).is_err());
        }
        assert!(!page_furniture::find(&paged).unwrap().is_empty());
        assert!(engine.try_analyze(&paged).is_ok());
        assert!(engine.print(&analysis, weights, sampling).is_ok());
    }
}
