//! The full fingerprints of a one-shot scan, spilled to an unlinked
//! temporary file as each document is read and read back when pairing
//! needs them ([`SpilledPrints`], a [`PrintSource`]). A `--no-index` scan
//! then holds, per document, only its resident prints and candidate keys: the
//! shingle and winnowing sets of a whole collection (most of what it held,
//! growing with the number of books) stay in the page cache, which the
//! system may drop, instead of the heap. What an indexed scan does with its
//! store, without a store.
//!
//! Each record is the postcard encoding of a [`Fingerprints`] with an
//! xxh3 checksum kept beside its place: a record cut short (a short write,
//! a file truncated under us) or changed reads as an error naming the
//! document, never as other fingerprints.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rayon::prelude::*;

use doppel_core::doc::DocPath;
use doppel_core::engine::Fingerprints;
use doppel_pairing::library::PrintSource;

/// Seed of the records' checksums.
const CHECKSUM_SEED: u64 = 0x5350_494c_4c00;

/// Why spilled fingerprints could not be written or read back.
#[derive(Debug, thiserror::Error)]
pub enum SpillError {
    /// The temporary file could not be made.
    #[error(
        "cannot make a temporary file for fingerprints in {}: {source} \
         (set TMPDIR to a writable folder)",
        dir.display()
    )]
    Create {
        /// The folder it was to be made in.
        dir: PathBuf,
        /// What the system said.
        source: io::Error,
    },
    /// A document's fingerprints could not be written.
    #[error("cannot write the fingerprints of {path} to the temporary file: {reason}")]
    Write {
        /// The document.
        path: DocPath,
        /// What went wrong.
        #[source]
        reason: SpillProblem,
    },
    /// A document's fingerprints did not read back as they were written.
    #[error("the fingerprints of {path} do not read back from the temporary file: {reason}")]
    Read {
        /// The document.
        path: DocPath,
        /// What went wrong.
        #[source]
        reason: SpillProblem,
    },
}

/// What went wrong with one document's record in the temporary file.
#[derive(Debug, thiserror::Error)]
pub enum SpillProblem {
    /// The file system refused.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// The record does not encode or decode.
    #[error("{0}")]
    Encoding(#[from] postcard::Error),
    /// The record is larger than this machine's memory can address.
    #[error("{0}")]
    Size(#[from] std::num::TryFromIntError),
    /// The file is shorter than the record.
    #[error("the file ends before the record's {len} bytes at {offset}")]
    Truncated {
        /// The record's length.
        len: u64,
        /// Where it starts.
        offset: u64,
    },
    /// The record's bytes are not those written.
    #[error("its checksum does not match")]
    Checksum,
    /// The document has no record.
    #[error("it was never written")]
    Missing,
}

/// Where one document's record lies in the file.
#[derive(Debug, Clone, Copy)]
struct Slot {
    offset: u64,
    len: u64,
    checksum: u64,
}

#[derive(Debug)]
struct Spill {
    file: BufWriter<File>,
    /// Where the next record goes: the file's length once flushed.
    end: u64,
    /// Each document's latest record (an earlier one is left in the file).
    slots: HashMap<DocPath, Slot>,
}

/// Full fingerprints by path in an unlinked temporary file (see the module
/// documentation). Written from any thread ([`SpilledPrints::put`]), read
/// as a [`PrintSource`].
#[derive(Debug)]
pub struct SpilledPrints {
    spill: Mutex<Spill>,
}

impl SpilledPrints {
    /// An empty spill in the system's temporary folder (`TMPDIR`).
    pub fn new() -> Result<Self, SpillError> {
        Self::new_in(&std::env::temp_dir())
    }

    /// An empty spill in `dir`; the file has no name there, so nothing is
    /// left behind however the process ends.
    pub fn new_in(dir: &Path) -> Result<Self, SpillError> {
        let file = tempfile::tempfile_in(dir).map_err(|source| SpillError::Create {
            dir: dir.to_path_buf(),
            source,
        })?;
        Ok(Self {
            spill: Mutex::new(Spill {
                file: BufWriter::with_capacity(1 << 20, file),
                end: 0,
                slots: HashMap::new(),
            }),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Spill> {
        // A panic while holding it leaves at worst an unused record.
        self.spill.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Write the fingerprints of `path`, replacing any it had.
    pub fn put(&self, path: &DocPath, prints: &Fingerprints) -> Result<(), SpillError> {
        // Encoded outside the lock: workers only queue to append.
        let record = encode(prints).map_err(|reason| SpillError::Write {
            path: path.clone(),
            reason,
        })?;
        self.put_record(path, &record)
    }

    /// [`SpilledPrints::put`] of prints already [`encode`]d (made where
    /// they were read, another process's: doppel-cluster); they are
    /// decoded, and checked, when read back.
    pub fn put_record(&self, path: &DocPath, record: &[u8]) -> Result<(), SpillError> {
        let write_error = |reason: SpillProblem| SpillError::Write {
            path: path.clone(),
            reason,
        };
        let checksum = doppel_core::hash::hash64(record, CHECKSUM_SEED);
        let mut spill = self.lock();
        spill
            .file
            .write_all(record)
            .map_err(|e| write_error(e.into()))?;
        let slot = Slot {
            offset: spill.end,
            len: record.len() as u64,
            checksum,
        };
        spill.end += slot.len;
        spill.slots.insert(path.clone(), slot);
        Ok(())
    }

    /// The fingerprints of `path`, if it has any.
    pub fn get(&self, path: &DocPath) -> Result<Option<Fingerprints>, SpillError> {
        let record = self.lock().record(path)?;
        record.map(|record| decode(path, &record)).transpose()
    }

    /// The size of the record of `path` (0 when it has none): what reading
    /// its fingerprints back costs.
    pub fn spilled_bytes(&self, path: &DocPath) -> u64 {
        self.lock().slots.get(path).map_or(0, |slot| slot.len)
    }

    /// How many documents have fingerprints here.
    pub fn len(&self) -> usize {
        self.lock().slots.len()
    }

    /// Whether no document has.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Spill {
    /// The record of `path` as written (checked against its checksum),
    /// if it has one.
    fn record(&mut self, path: &DocPath) -> Result<Option<Vec<u8>>, SpillError> {
        let Some(slot) = self.slots.get(path).copied() else {
            return Ok(None);
        };
        let read_error = |reason: SpillProblem| SpillError::Read {
            path: path.clone(),
            reason,
        };
        self.file.flush().map_err(|e| read_error(e.into()))?;
        let end = self.end;
        let file = self.file.get_mut();
        let len = usize::try_from(slot.len).map_err(|e| read_error(e.into()))?;
        let mut record = vec![0u8; len];
        let read = file
            .seek(SeekFrom::Start(slot.offset))
            .and_then(|_| file.read_exact(&mut record))
            .map_err(|e| match e.kind() {
                io::ErrorKind::UnexpectedEof => read_error(SpillProblem::Truncated {
                    len: slot.len,
                    offset: slot.offset,
                }),
                _ => read_error(e.into()),
            });
        // Back to the end, where the next record is appended.
        let back = file.seek(SeekFrom::Start(end));
        read?;
        back.map_err(|e| read_error(e.into()))?;
        if doppel_core::hash::hash64(&record, CHECKSUM_SEED) != slot.checksum {
            return Err(read_error(SpillProblem::Checksum));
        }
        Ok(Some(record))
    }
}

/// The record `prints` are spilled as ([`SpilledPrints::put_record`]).
pub fn encode(prints: &Fingerprints) -> Result<Vec<u8>, SpillProblem> {
    Ok(postcard::to_allocvec(prints)?)
}

/// The fingerprints a record of `path` encodes.
fn decode(path: &DocPath, record: &[u8]) -> Result<Fingerprints, SpillError> {
    postcard::from_bytes(record).map_err(|e| SpillError::Read {
        path: path.clone(),
        reason: e.into(),
    })
}

impl PrintSource for SpilledPrints {
    type Error = SpillError;

    fn full_prints(&self, paths: &[&DocPath]) -> Result<Vec<Option<Fingerprints>>, SpillError> {
        // Read in one go under the lock, decoded in parallel outside it.
        let records: Vec<Option<Vec<u8>>> = {
            let mut spill = self.lock();
            paths
                .iter()
                .map(|path| spill.record(path))
                .collect::<Result<_, _>>()?
        };
        paths
            .par_iter()
            .zip(records)
            .map(|(path, record)| record.map(|record| decode(path, &record)).transpose())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use doppel_core::engine::fingerprinter::PrintOptions;
    use doppel_core::engine::Engine;
    use proptest::prelude::*;

    fn prints_of(engine: &Engine, text: &str) -> Fingerprints {
        engine
            .fingerprint_text(text, engine.reference_weights(), PrintOptions::default())
            .expect("memory")
            .fingerprints
    }

    fn path(name: &str) -> DocPath {
        DocPath::from_relative(Path::new(name))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        /// Every algorithm's fingerprints of any texts read back equal,
        /// the latest of a path replacing the earlier, whatever was
        /// written in between.
        #[test]
        fn spilled_prints_read_back_equal(
            texts in prop::collection::vec("[a-e ]{0,300}", 1..6),
            rewrite in any::<prop::sample::Index>(),
        ) {
            let engine = Engine::default();
            let spill = SpilledPrints::new().expect("temp dir");
            let prints: Vec<Fingerprints> = texts.iter().map(|t| prints_of(&engine, t)).collect();
            let paths: Vec<DocPath> = (0..texts.len()).map(|i| path(&format!("{i}.txt"))).collect();
            let again = rewrite.index(texts.len());
            for (p, f) in paths.iter().zip(&prints) {
                spill.put(p, &prints[again]).expect("write");
                spill.put(p, f).expect("write");
            }
            let refs: Vec<&DocPath> = paths.iter().collect();
            let read = spill.full_prints(&refs).expect("read");
            for (read, written) in read.iter().zip(&prints) {
                prop_assert_eq!(read.as_ref(), Some(written));
            }
            prop_assert_eq!(spill.get(&path("absent.txt")).expect("read"), None);
            prop_assert_eq!(spill.len(), texts.len());
        }
    }

    #[test]
    fn a_missing_temporary_folder_is_a_clear_error() {
        let dir = tempfile::tempdir().expect("temp dir");
        let missing = dir.path().join("gone");
        let error = SpilledPrints::new_in(&missing).expect_err("no folder");
        let message = error.to_string();
        assert!(
            message.contains("cannot make a temporary file") && message.contains("gone"),
            "{message}"
        );
    }

    #[test]
    fn a_record_cut_short_reads_as_an_error_not_other_prints() {
        let engine = Engine::default();
        let spill = SpilledPrints::new().expect("temp dir");
        let (a, b) = (path("a.txt"), path("b.txt"));
        spill
            .put(&a, &prints_of(&engine, "one two three four five six"))
            .expect("write");
        spill
            .put(&b, &prints_of(&engine, "seven eight nine ten eleven"))
            .expect("write");
        // What a short write of b's record leaves: the file ends inside it.
        {
            let mut inner = spill.lock();
            inner.file.flush().expect("flush");
            let cut = inner.end - 3;
            inner.file.get_ref().set_len(cut).expect("truncate");
        }
        assert!(spill.get(&a).expect("a is whole").is_some());
        let error = spill.full_prints(&[&a, &b]).expect_err("b is cut");
        let message = error.to_string();
        assert!(
            message.contains("b.txt") && message.contains("file ends before"),
            "{message}"
        );
    }

    #[test]
    fn a_changed_record_reads_as_an_error() {
        let engine = Engine::default();
        let spill = SpilledPrints::new().expect("temp dir");
        let a = path("a.txt");
        spill
            .put(&a, &prints_of(&engine, "one two three four five six"))
            .expect("write");
        {
            let mut inner = spill.lock();
            inner.file.flush().expect("flush");
            let file = inner.file.get_mut();
            file.seek(SeekFrom::Start(5)).expect("seek");
            let mut byte = [0u8];
            file.read_exact(&mut byte).expect("read");
            file.seek(SeekFrom::Start(5)).expect("seek");
            file.write_all(&[byte[0] ^ 0x55]).expect("write");
        }
        let message = spill.get(&a).expect_err("changed").to_string();
        assert!(message.contains("checksum"), "{message}");
    }
}
