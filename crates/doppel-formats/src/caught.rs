//! Panics inside a reader of this crate, caught: a third-party parser
//! (pdf_oxide) that panics on a hostile file makes that file damaged, not
//! the process, and says nothing on stderr, where the default panic hook
//! would tear a terminal UI's screen and clutter a `--json` run's errors.
//!
//! [`catch`] marks the thread as reading for as long as the reader runs;
//! a panic hook, installed once and chained to the one before it, stays
//! quiet while the mark is set and hands every other panic on as before.
//! A process that installs its own hook later can ask
//! [`panic_is_caught`] to stay quiet too.

use std::any::Any;
use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

thread_local! {
    /// How many catching readers this thread is inside.
    static CATCHING: Cell<u32> = const { Cell::new(0) };
}

static HOOK: Once = Once::new();

/// Whether the current thread is inside a reader of this crate that
/// catches its panics (and reports the file damaged): a panic hook can
/// stay quiet then, nothing is lost.
pub fn panic_is_caught() -> bool {
    CATCHING.try_with(|c| c.get() > 0).unwrap_or(false)
}

/// Run `f`; a panic in it is returned as its message, not printed.
pub(crate) fn catch<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if !panic_is_caught() {
                previous(info);
            }
        }));
    });
    let _catching = Catching::enter();
    // The hook runs where the panic starts, inside `f`: the mark is set.
    panic::catch_unwind(AssertUnwindSafe(f)).map_err(|payload| message(&*payload))
}

/// The mark that the thread is inside [`catch`], unset when dropped.
struct Catching;

impl Catching {
    fn enter() -> Self {
        CATCHING.with(|c| c.set(c.get() + 1));
        Catching
    }
}

impl Drop for Catching {
    fn drop(&mut self) {
        let _ = CATCHING.try_with(|c| c.set(c.get().saturating_sub(1)));
    }
}

/// A panic's message, when it has one.
fn message(payload: &(dyn Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())
        .unwrap_or("no message")
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_caught_panic_is_its_message_and_the_mark_is_only_set_inside() {
        assert!(!panic_is_caught());
        let seen = catch(panic_is_caught);
        assert_eq!(seen, Ok(true), "set while the reader runs");
        assert!(!panic_is_caught(), "unset after");

        let failed: Result<(), String> = catch(|| panic!("bad xref at {}", 7));
        assert_eq!(failed, Err("bad xref at 7".to_owned()));
        assert!(!panic_is_caught(), "unset after a panic too");
        assert_eq!(
            catch(|| std::panic::panic_any(3u8)),
            Err::<(), _>("no message".to_owned())
        );
        // Nested readers (a PDF inside an archive) keep the mark until the
        // outermost ends.
        assert_eq!(
            catch(|| (catch(|| ()).is_ok(), panic_is_caught())),
            Ok((true, true))
        );
    }
}
