//! A document's identity, the base every layer keys on.
//!
//! A document is a file of the watched folder, named by [`DocPath`]: the
//! raw bytes of its path relative to the folder, so a name that is not
//! UTF-8, holds control characters, or differs from another only in Unicode
//! normalization is still exactly one document. Its display form (what
//! reports, the terminal UI and error messages show) is made from those
//! bytes and never read back as an identity. Inside a library a document
//! is a [`DocId`]; on disk, [`FileIdentity`] tells whether it may have
//! changed without reading it. A curator's decision on a pair of documents
//! is a [`CuratorVerdict`].

use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// A library's dense id of a document (reused once the document is gone).
pub type DocId = u32;

/// The path of a document relative to the watched folder, as raw bytes
/// (on unix the path's own bytes; elsewhere its UTF-16 code units, little
/// endian). Ordered and hashed by those bytes. Its [`fmt::Display`] form is
/// valid UTF-8 with control characters and backslashes escaped and invalid
/// bytes as `\xNN`, so two documents never display alike; it serializes as
/// that display form, for output only.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct DocPath(Box<[u8]>);

impl DocPath {
    /// The identity of `relative` (a path relative to the folder): its raw
    /// bytes on unix, never a lossy conversion, so `caf\xe9` and `caf\xe8`
    /// stay two documents.
    #[cfg(unix)]
    pub fn from_relative(relative: &Path) -> Self {
        use std::os::unix::ffi::OsStrExt;
        Self::from_bytes(relative.as_os_str().as_bytes())
    }

    /// The identity of `relative`: UTF-16 code units as little-endian bytes
    /// off unix (lossless for unpaired surrogates too).
    #[cfg(not(unix))]
    pub fn from_relative(relative: &Path) -> Self {
        use std::os::windows::ffi::OsStrExt;
        Self(
            relative
                .as_os_str()
                .encode_wide()
                .flat_map(u16::to_le_bytes)
                .collect(),
        )
    }

    /// A path from its stored bytes (see [`DocPath::as_bytes`]).
    pub fn from_bytes(bytes: impl Into<Box<[u8]>>) -> Self {
        Self(bytes.into())
    }

    /// The raw bytes (what the store keys rows on).
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// The relative path these bytes stand for (inverse of
    /// [`DocPath::from_relative`]).
    #[cfg(unix)]
    pub fn to_relative_path(&self) -> PathBuf {
        use std::os::unix::ffi::OsStrExt;
        PathBuf::from(std::ffi::OsStr::from_bytes(&self.0))
    }

    /// The relative path these bytes stand for (inverse of
    /// [`DocPath::from_relative`]).
    #[cfg(not(unix))]
    pub fn to_relative_path(&self) -> PathBuf {
        use std::os::windows::ffi::OsStringExt;
        let units: Vec<u16> = self
            .0
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        PathBuf::from(std::ffi::OsString::from_wide(&units))
    }

    /// The relative path, only when it stays inside the folder it is
    /// joined to: not empty, and every component a plain name (no `..`,
    /// no leading `.`, no root or drive prefix). What a path read from
    /// outside doppel's own walk (a journal, a stored record) must be
    /// before a file is written or moved there.
    pub fn to_contained_path(&self) -> Option<PathBuf> {
        let path = self.to_relative_path();
        let mut components = path.components().peekable();
        components.peek()?;
        components
            .all(|c| matches!(c, std::path::Component::Normal(_)))
            .then_some(path)
    }

    /// Whether this is `folder` itself or a path under it (whole
    /// components: `ab/c` is not under `a`).
    pub fn is_within(&self, folder: &DocPath) -> bool {
        self.0.strip_prefix(&*folder.0).is_some_and(|rest| {
            rest.is_empty() || rest.first() == Some(&b'/') || folder.0.is_empty()
        })
    }

    /// Whether the path is empty (a problem of the walk with no path).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for DocPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use fmt::Write;
        for chunk in self.0.utf8_chunks() {
            for c in chunk.valid().chars() {
                if c.is_control() || c == '\\' {
                    for e in c.escape_debug() {
                        f.write_char(e)?;
                    }
                } else {
                    f.write_char(c)?;
                }
            }
            for b in chunk.invalid() {
                write!(f, "\\x{b:02x}")?;
            }
        }
        Ok(())
    }
}

impl fmt::Debug for DocPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DocPath({:?})", self.to_string())
    }
}

impl From<&str> for DocPath {
    /// The document named by `s`'s UTF-8 bytes (tests, and names typed
    /// by a person).
    fn from(s: &str) -> Self {
        Self::from_bytes(s.as_bytes())
    }
}

impl From<&[u8]> for DocPath {
    fn from(bytes: &[u8]) -> Self {
        Self::from_bytes(bytes)
    }
}

impl PartialEq<str> for DocPath {
    /// Whether the raw bytes are `s`'s UTF-8 bytes.
    fn eq(&self, s: &str) -> bool {
        &*self.0 == s.as_bytes()
    }
}

impl PartialEq<&str> for DocPath {
    fn eq(&self, s: &&str) -> bool {
        &*self.0 == s.as_bytes()
    }
}

impl Serialize for DocPath {
    /// The display form: for reports and messages, never read back.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// What `stat` says about a file: enough to tell, without reading it, whether
/// it may have changed (size, mtime, ctime) or moved (inode, device).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
pub struct FileIdentity {
    /// Length in bytes.
    pub size: u64,
    /// Last modification (unix ns).
    pub mtime_ns: i64,
    /// Last status change (unix ns; creation off unix).
    pub ctime_ns: i64,
    /// Inode number (0 off unix).
    pub inode: u64,
    /// Device number (0 off unix).
    pub dev: u64,
}

impl FileIdentity {
    /// The identity of a file from its metadata (`lstat` or `fstat`).
    #[cfg(unix)]
    pub fn from_metadata(meta: &fs::Metadata) -> Self {
        use std::os::unix::fs::MetadataExt;
        let ns = |s: i64, n: i64| s.saturating_mul(1_000_000_000).saturating_add(n);
        Self {
            size: meta.size(),
            mtime_ns: ns(meta.mtime(), meta.mtime_nsec()),
            ctime_ns: ns(meta.ctime(), meta.ctime_nsec()),
            inode: meta.ino(),
            dev: meta.dev(),
        }
    }

    /// The identity of a file from its metadata (no inode off unix).
    #[cfg(not(unix))]
    pub fn from_metadata(meta: &fs::Metadata) -> Self {
        use std::time::{SystemTime, UNIX_EPOCH};
        let ns = |t: std::io::Result<SystemTime>| {
            t.ok()
                .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
        };
        Self {
            size: meta.len(),
            mtime_ns: ns(meta.modified()),
            ctime_ns: ns(meta.created()),
            inode: 0,
            dev: 0,
        }
    }
}

/// A curator's decision on a pair of documents; it overrides every
/// algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CuratorVerdict {
    /// The two are duplicates, whatever the scores say.
    Duplicate,
    /// The two are not duplicates, whatever the scores say.
    NotDuplicate,
}

impl CuratorVerdict {
    /// The stored and displayed name: `duplicate` or `not-duplicate`.
    pub fn as_str(self) -> &'static str {
        match self {
            CuratorVerdict::Duplicate => "duplicate",
            CuratorVerdict::NotDuplicate => "not-duplicate",
        }
    }
}

/// A name that is no [`CuratorVerdict`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown verdict {name:?}")]
pub struct UnknownVerdict {
    /// The name given.
    pub name: String,
}

impl std::str::FromStr for CuratorVerdict {
    type Err = UnknownVerdict;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "duplicate" => Ok(CuratorVerdict::Duplicate),
            "not-duplicate" => Ok(CuratorVerdict::NotDuplicate),
            other => Err(UnknownVerdict {
                name: other.to_owned(),
            }),
        }
    }
}

/// Two documents in byte order (the key of a pair verdict).
pub fn ordered_pair(a: &DocPath, b: &DocPath) -> (DocPath, DocPath) {
    if a <= b {
        (a.clone(), b.clone())
    } else {
        (b.clone(), a.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_escapes_controls_backslashes_and_bad_bytes() {
        assert_eq!(
            DocPath::from(&b"caf\xe9.txt"[..]).to_string(),
            "caf\\xe9.txt"
        );
        assert_eq!(
            DocPath::from("café\n\x1b[2J").to_string(),
            "café\\n\\u{1b}[2J"
        );
        // A backslash is escaped, so `a\x41` (four characters) and a name
        // with the byte 0x41 never display alike.
        assert_eq!(DocPath::from("a\\x41").to_string(), "a\\\\x41");
    }

    #[test]
    fn relative_paths_round_trip_through_bytes() {
        #[cfg(unix)]
        let name = {
            use std::os::unix::ffi::OsStrExt;
            PathBuf::from(std::ffi::OsStr::from_bytes(b"d/z\xe9.txt"))
        };
        #[cfg(not(unix))]
        let name = PathBuf::from("d/z.txt");
        let doc = DocPath::from_relative(&name);
        assert_eq!(doc.to_relative_path(), name);
    }

    #[test]
    fn a_contained_path_never_leaves_its_folder() {
        for inside in ["a.txt", "d/e/a.txt", "d/./a.txt", "..a", "a.."] {
            assert_eq!(
                DocPath::from(inside).to_contained_path(),
                Some(PathBuf::from(inside)),
                "{inside}"
            );
        }
        for outside in ["", "..", "../a", "d/../../a", "d/..", "/etc/a", "./a", "/"] {
            assert_eq!(
                DocPath::from(outside).to_contained_path(),
                None,
                "{outside}"
            );
        }
    }

    #[test]
    fn within_means_whole_components() {
        let a = DocPath::from("a");
        assert!(DocPath::from("a").is_within(&a));
        assert!(DocPath::from("a/b.txt").is_within(&a));
        assert!(!DocPath::from("ab/c.txt").is_within(&a));
        assert!(!DocPath::from("b").is_within(&a));
    }

    #[test]
    fn normalization_forms_are_two_documents() {
        let nfc = DocPath::from("caf\u{e9}.txt");
        let nfd = DocPath::from("cafe\u{301}.txt");
        assert_ne!(nfc, nfd);
        assert_ne!(nfc.to_string(), nfd.to_string());
    }

    #[test]
    fn verdicts_parse_their_names() {
        for v in [CuratorVerdict::Duplicate, CuratorVerdict::NotDuplicate] {
            assert_eq!(v.as_str().parse::<CuratorVerdict>(), Ok(v));
        }
        assert!("maybe".parse::<CuratorVerdict>().is_err());
    }
}
