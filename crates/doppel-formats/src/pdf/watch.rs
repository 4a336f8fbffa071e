//! The PDF reader runs on a thread of its own, watched: with a deep stack
//! and against a deadline.
//!
//! pdf_oxide parses nested arrays and dictionaries by recursion, without
//! a depth limit: a few hundred `[` in a content stream overflow a 2 MiB
//! thread stack (rayon's, the test harness's), and a stack overflow
//! aborts the process, which no `catch_unwind` can stop. Its thread gets
//! [`STACK`] (only the pages touched are memory): in a debug build 20,000
//! levels used 125 MB of it. Deeper nesting (100,000 levels) still
//! overflows it; only a depth limit in pdf_oxide would close that.
//!
//! Some PDFs take pdf_oxide minutes or hours: a 35 KB file whose pages
//! all draw one 16 MB deflated content stream (measured: 50 s in a debug
//! build for 4 pages), unclosed `[` in a content stream (quadratic: 300
//! take 1.6 s, 10,000 would take half an hour). The reader gets
//! [`deadline`] (30 s, and 1 s a MB and 0.1 s a page), then the file is
//! over a limit. The thread cannot be stopped: it is left to finish on its
//! own, told to stop at its next page; at worst it ends with the process.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::{Book, Format, FormatError};

/// The reader thread's stack: virtual memory, used as deep as the PDF
/// nests.
const STACK: usize = 256 << 20;

/// How long reading a PDF of `bytes` bytes and `pages` pages may take:
/// 30 s, 1 s more a MB, 0.1 s more a page (once the count is known).
pub(super) fn deadline(bytes: usize, pages: usize) -> Duration {
    Duration::from_secs(30)
        + Duration::from_secs_f64(bytes as f64 / 1e6)
        + Duration::from_millis(100) * pages.min(u32::MAX as usize) as u32
}

/// What the reader tells its watcher.
enum Told {
    /// The PDF has this many pages: the deadline grows by them.
    Pages(usize),
    /// The reader ended.
    Done(Outcome),
}

/// What the reader tells its watcher, and asks of it.
pub(super) struct Watch {
    told: mpsc::Sender<Told>,
    stop: Arc<AtomicBool>,
}

impl Watch {
    /// The PDF has `count` pages.
    pub fn pages(&self, count: usize) {
        let _ = self.told.send(Told::Pages(count));
    }

    /// Whether the watcher gave up waiting: the reader stops at its next
    /// page.
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// What the reader thread ends with: its book, or the message of the
/// panic it caught.
pub(super) type Outcome = Result<Result<Book, FormatError>, String>;

/// Run `read` on `bytes` on a reader thread, waiting until it ends or
/// the `deadline` for the file's size and pages passes. Where no thread
/// can be started, `read` runs here, unwatched.
pub(super) fn run<R>(bytes: Vec<u8>, deadline: fn(usize, usize) -> Duration, read: R) -> Outcome
where
    R: FnOnce(Vec<u8>, &Watch) -> Outcome + Send + 'static,
{
    let size = bytes.len();
    let (told, heard) = mpsc::channel();
    let stop = Arc::new(AtomicBool::new(false));
    let watch = Watch {
        told: told.clone(),
        stop: stop.clone(),
    };
    // Shared, so the job comes back when no thread can start.
    let job = Arc::new(Mutex::new(Some((bytes, read))));
    let theirs = job.clone();
    let started = std::thread::Builder::new()
        .name("pdf reader".into())
        .stack_size(STACK)
        .spawn(move || {
            let job = theirs.lock().ok().and_then(|mut job| job.take());
            if let Some((bytes, read)) = job {
                let outcome = read(bytes, &watch);
                let _ = watch.told.send(Told::Done(outcome));
            }
        });
    drop(told);
    if started.is_err() {
        let job = job.lock().ok().and_then(|mut job| job.take());
        let Some((bytes, read)) = job else {
            return Err("no thread could be started to read it".into());
        };
        let (told, _) = mpsc::channel();
        return read(bytes, &Watch { told, stop });
    }
    let start = Instant::now();
    let mut pages = 0;
    loop {
        let limit = deadline(size, pages);
        match heard.recv_timeout(limit.saturating_sub(start.elapsed())) {
            Ok(Told::Pages(count)) => pages = count,
            Ok(Told::Done(outcome)) => return outcome,
            Err(RecvTimeoutError::Timeout) => {
                // Told to stop, and left to end on its own.
                stop.store(true, Ordering::Relaxed);
                return Ok(Err(FormatError::OverLimit {
                    format: Format::Pdf,
                    reason: format!(
                        "reading it took over {} s; it may be damaged",
                        limit.as_secs()
                    ),
                }));
            }
            Err(RecvTimeoutError::Disconnected) => {
                return Err("its thread ended without a result".into())
            }
        }
    }
}
