//! Giving freed memory back at once. The binary's allocator keeps freed
//! pages a while before it returns them, which is what makes it fast; but
//! the boilerplate learner, freed when reading ends, is a third of a large
//! scan's memory, and pairing then allocates before the allocator gets
//! round to it: at 110,000 texts the peak stood 90 MiB above what was
//! live. The index asks for freed memory back right after dropping the
//! learner ([`release_freed`]), through a hook the binary sets
//! ([`set_release`]), so the library names no allocator.

use std::sync::OnceLock;

static RELEASE: OnceLock<fn()> = OnceLock::new();

/// Set how freed memory is given back (once per process; later calls are
/// ignored). Without it, [`release_freed`] does nothing.
pub fn set_release(release: fn()) {
    let _ = RELEASE.set(release);
}

/// Give the memory freed so far back to the system now, if the binary said
/// how.
pub fn release_freed() {
    if let Some(release) = RELEASE.get() {
        release();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    static CALLS: AtomicUsize = AtomicUsize::new(0);

    fn count() {
        CALLS.fetch_add(1, Ordering::SeqCst);
    }

    /// The hook set first is the one called, each time memory is released.
    #[test]
    fn the_binary_s_hook_gives_memory_back_each_time() {
        super::set_release(count);
        super::set_release(|| panic!("only the first hook counts"));
        super::release_freed();
        super::release_freed();
        assert_eq!(CALLS.load(Ordering::SeqCst), 2);
    }
}
