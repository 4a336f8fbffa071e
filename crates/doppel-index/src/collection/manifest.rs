//! A library given as a list of its documents rather than a folder to
//! walk: a manifest file, its paths relative to the folder it lies in
//! (or absolute beneath it). A plain manifest holds a path per line
//! (blank lines and `#` comments skipped); a BagIt payload manifest
//! (`manifest-<algorithm>.txt`, as archives ship bags) a checksum and a
//! path per line, paths percent-encoded as BagIt says. Listed the same
//! way the walk lists the folder: hidden and ignored paths left out
//! (`.doppelignore`, the extra globs), files gathered into book folders
//! by the same rules, a listed folder read as a book. A listed path that
//! is missing, not a file, or outside the manifest's folder is a problem
//! with its reason, never read: a manifest cannot make doppel read
//! outside its folder.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use doppel_core::doc::DocPath;

use super::books::{book_now, gather_books, PageFolders};
use super::{describe_file_type, FileEntry, IgnoreRules, Listing, Skip};
use doppel_core::doc::FileIdentity;

/// Why a manifest gave no listing.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    /// The manifest could not be read.
    #[error("cannot read the manifest {path}: {source}")]
    Unreadable {
        /// The manifest.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A BagIt manifest's line is not a checksum and a path.
    #[error("line {line} of the BagIt manifest {path} is not a checksum and a path")]
    Malformed {
        /// The manifest.
        path: PathBuf,
        /// The line, counted from 1.
        line: usize,
    },
}

/// The documents `manifest` lists, the walk's rules applied with
/// `extra_ignores` and `page_folders`, beneath the folder it lies in
/// (canonical: the listing's root).
pub fn list_manifest(
    manifest: &Path,
    extra_ignores: &[String],
    page_folders: PageFolders,
) -> Result<Listing, ManifestError> {
    let unreadable = |source| ManifestError::Unreadable {
        path: manifest.to_path_buf(),
        source,
    };
    let manifest = manifest.canonicalize().map_err(unreadable)?;
    let text = fs::read(&manifest).map_err(unreadable)?;
    let root = manifest.parent().unwrap_or(Path::new("/")).to_path_buf();
    let paths = manifest_paths(&manifest, &text)?;
    let mut rules = IgnoreRules::with_extra(&root, extra_ignores);
    let mut files = Vec::new();
    let mut books = Vec::new();
    let mut problems = BTreeMap::new();
    for listed in paths {
        let Some(relative) = contained(&root, &listed) else {
            let why = "outside the manifest's folder (not read)".to_owned();
            problems.insert(DocPath::from_bytes(listed), unreadable_because(why));
            continue;
        };
        let path = root.join(&relative);
        if path == manifest {
            continue;
        }
        let doc = DocPath::from_relative(&relative);
        match fs::symlink_metadata(&path) {
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                let why = "listed in the manifest, not found".to_owned();
                problems.insert(doc, unreadable_because(why));
            }
            Err(error) => {
                problems.insert(doc, unreadable_because(error.to_string()));
            }
            Ok(meta) if rules.is_ignored(&path, meta.is_dir()) => {}
            Ok(meta) if meta.is_file() => {
                let identity = FileIdentity::from_metadata(&meta);
                files.push(FileEntry::file(path, doc, identity));
            }
            Ok(meta) if meta.is_dir() => match book_now(&root, &path, page_folders) {
                Some(book) => books.push(book),
                None => {
                    let what = "a folder that is not a book".to_owned();
                    problems.insert(doc, Skip::NotAFile { what });
                }
            },
            Ok(meta) => {
                let what = describe_file_type(&meta.file_type()).to_owned();
                problems.insert(doc, Skip::NotAFile { what });
            }
        }
    }
    // Each document once, a book listed and its pages listed too one book.
    let mut by_doc: BTreeMap<DocPath, FileEntry> = BTreeMap::new();
    for file in gather_books(&root, files, page_folders)
        .into_iter()
        .chain(books)
    {
        by_doc.entry(file.doc.clone()).or_insert(file);
    }
    Ok(Listing {
        root,
        files: by_doc.into_values().collect(),
        problems: problems.into_iter().collect(),
    })
}

fn unreadable_because(reason: String) -> Skip {
    Skip::Unreadable { reason }
}

/// Whether `manifest` is a BagIt payload manifest, by its name.
fn is_bagit(manifest: &Path) -> bool {
    let name = manifest.file_name().map(|n| n.to_string_lossy());
    name.is_some_and(|n| n.starts_with("manifest-") && n.ends_with(".txt"))
}

/// The paths `text` (the manifest `manifest`) lists, as raw bytes.
fn manifest_paths(manifest: &Path, text: &[u8]) -> Result<Vec<Vec<u8>>, ManifestError> {
    let bagit = is_bagit(manifest);
    let mut paths = Vec::new();
    for (at, line) in text.split(|&b| b == b'\n').enumerate() {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) || (!bagit && line.first() == Some(&b'#')) {
            continue;
        }
        if !bagit {
            paths.push(line.to_vec());
            continue;
        }
        // BagIt: the checksum, whitespace, the path (which may hold spaces).
        let malformed = || ManifestError::Malformed {
            path: manifest.to_path_buf(),
            line: at + 1,
        };
        let split = line
            .iter()
            .position(u8::is_ascii_whitespace)
            .ok_or_else(malformed)?;
        let path = line[split..].trim_ascii_start();
        if split == 0 || path.is_empty() {
            return Err(malformed());
        }
        paths.push(percent_decoded(path));
    }
    Ok(paths)
}

/// A BagIt path's `%0A`, `%0D` and `%25` decoded (the only ones BagIt
/// encodes); anything else kept as written.
fn percent_decoded(path: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(path.len());
    let mut rest = path;
    while let Some((&byte, after)) = rest.split_first() {
        let decoded = match after {
            [a, b, ..] if byte == b'%' => match (a.to_ascii_uppercase(), b.to_ascii_uppercase()) {
                (b'0', b'A') => Some(b'\n'),
                (b'0', b'D') => Some(b'\r'),
                (b'2', b'5') => Some(b'%'),
                _ => None,
            },
            _ => None,
        };
        match decoded {
            Some(decoded) => {
                out.push(decoded);
                rest = &after[2..];
            }
            None => {
                out.push(byte);
                rest = after;
            }
        }
    }
    out
}

/// `listed` as a path relative to `root`, only when it stays beneath it:
/// relative (a leading `./` allowed) or absolute beneath `root`, every
/// component a plain name.
fn contained(root: &Path, listed: &[u8]) -> Option<PathBuf> {
    let path = DocPath::from_bytes(listed.to_vec()).to_relative_path();
    let relative = match path.strip_prefix(root) {
        Ok(beneath) => beneath.to_path_buf(),
        Err(_) if path.is_absolute() => return None,
        Err(_) => path.strip_prefix(".").unwrap_or(&path).to_path_buf(),
    };
    DocPath::from_relative(&relative).to_contained_path()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    fn docs(listing: &Listing) -> Vec<String> {
        let docs = listing.files.iter().map(|f| &f.doc);
        docs.map(|d| String::from_utf8_lossy(d.as_bytes()).into_owned())
            .collect()
    }

    fn problems(listing: &Listing) -> Vec<(String, String)> {
        let problems = listing.problems.iter();
        problems
            .map(|(d, s)| {
                (
                    String::from_utf8_lossy(d.as_bytes()).into_owned(),
                    s.to_string(),
                )
            })
            .collect()
    }

    #[test]
    fn a_manifest_lists_what_the_walk_would_of_the_paths_it_names() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        write(&root.join("a.txt"), "alpha");
        write(&root.join("sub/b.txt"), "beta");
        write(&root.join("sub/c.txt.part"), "a partial download");
        write(&root.join(".hidden.txt"), "hidden");
        write(&root.join("unlisted.txt"), "not listed");
        for page in ["0001.txt", "0002.txt"] {
            write(&root.join("book").join(page), "a page");
        }
        write(&root.join("book/.doppelbook"), "");
        let outside = tempfile::tempdir().unwrap();
        write(&outside.path().join("secret.txt"), "never read");
        let manifest = root.join("manifest.txt");
        let absolute = root.join("sub/b.txt");
        let text = format!(
            "# made by find\n./a.txt\n{}\n\nsub/c.txt.part\n.hidden.txt\nbook/0001.txt\n\
             book/0002.txt\nmissing.txt\n../{}\n{}\nmanifest.txt\na.txt\n",
            absolute.display(),
            outside.path().file_name().unwrap().to_string_lossy(),
            outside.path().join("secret.txt").display(),
        );
        write(&manifest, &text);
        let listing = list_manifest(&manifest, &[], PageFolders::Auto).unwrap();
        assert_eq!(listing.root, root);
        // The hidden and the partial file left out as the walk leaves them,
        // the pages gathered into their book, `a.txt` once, the manifest
        // itself not a document.
        assert_eq!(docs(&listing), ["a.txt", "book", "sub/b.txt"]);
        let book = listing.files.iter().find(|f| f.book.is_some()).unwrap();
        assert_eq!(book.book.as_ref().unwrap().pages.len(), 2);
        let problems = problems(&listing);
        assert_eq!(problems.len(), 3, "{problems:?}");
        assert!(problems.contains(&(
            "missing.txt".to_owned(),
            "unreadable: listed in the manifest, not found".to_owned()
        )));
        let outside_reason = "unreadable: outside the manifest's folder (not read)";
        assert_eq!(
            problems
                .iter()
                .filter(|(_, why)| why == outside_reason)
                .count(),
            2
        );
    }

    #[test]
    fn a_bagit_manifest_names_checksums_and_percent_encoded_paths() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        write(&root.join("data/war and peace.txt"), "a book");
        write(&root.join("data/100%.txt"), "another");
        let manifest = root.join("manifest-sha256.txt");
        write(
            &manifest,
            "e3b0c442  data/war and peace.txt\r\nab12 data/100%25.txt\n",
        );
        let listing = list_manifest(&manifest, &[], PageFolders::Auto).unwrap();
        assert_eq!(docs(&listing), ["data/100%.txt", "data/war and peace.txt"]);
        assert!(listing.problems.is_empty());

        write(&manifest, "only-a-checksum\n");
        let error = list_manifest(&manifest, &[], PageFolders::Auto).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(
                "line 1 of the BagIt manifest {} is not a checksum and a path",
                manifest.display()
            )
        );
    }

    #[test]
    fn a_listed_folder_is_a_book_or_a_problem() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        for page in ["00000001.xml", "00000002.xml"] {
            write(&root.join("pages").join(page), "<alto/>");
        }
        write(&root.join("plain/notes.txt"), "notes");
        let manifest = root.join("list.txt");
        write(&manifest, "pages\nplain\n");
        let listing = list_manifest(&manifest, &[], PageFolders::Auto).unwrap();
        assert_eq!(docs(&listing), ["pages"]);
        assert_eq!(
            problems(&listing),
            [(
                "plain".to_owned(),
                "not a regular file (a folder that is not a book)".to_owned()
            )]
        );
    }
}
