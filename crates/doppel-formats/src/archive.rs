//! A zip read in memory within [`Limits`]: every entry is inflated
//! through `take()` against what is left of the archive's budget (its
//! expanded size and its expansion ratio, all entries together), never
//! trusting the sizes the zip declares. Nothing is ever written to disk,
//! so an entry named `../x` or `/etc/x` is only a name.

use std::io::{Cursor, Read as _};

use zip::result::ZipError;
use zip::ZipArchive;

use crate::{Format, FormatError, Limits};

/// A zip archive in memory, with its expansion budget.
pub(crate) struct Archive<'a> {
    zip: ZipArchive<Cursor<&'a [u8]>>,
    format: Format,
    /// The archive's own size in bytes.
    size: u64,
    /// Bytes inflated so far.
    expanded: u64,
    /// The most all entries may inflate to.
    budget: u64,
    /// Whether the budget is the ratio's (else the size limit's).
    by_ratio: bool,
    limits: Limits,
}

/// One entry's name and whether it is a directory.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    /// Its index in the archive.
    pub index: usize,
    /// Its name as the zip spells it.
    pub name: String,
    /// Whether it is a directory.
    pub is_dir: bool,
}

impl<'a> Archive<'a> {
    /// Open the zip in `bytes` (its central directory only).
    pub fn open(bytes: &'a [u8], format: Format, limits: &Limits) -> Result<Self, FormatError> {
        let zip = ZipArchive::new(Cursor::new(bytes)).map_err(|e| damaged(format, &e))?;
        let size = bytes.len() as u64;
        let by_ratio_budget = size.saturating_mul(limits.max_expansion_ratio);
        let by_ratio = by_ratio_budget < limits.max_expanded_bytes;
        Ok(Self {
            zip,
            format,
            size,
            expanded: 0,
            budget: by_ratio_budget.min(limits.max_expanded_bytes),
            by_ratio,
            limits: *limits,
        })
    }

    /// Its entries, in the zip's order.
    pub fn entries(&self) -> Result<Vec<Entry>, FormatError> {
        (0..self.zip.len())
            .map(|index| {
                let name = self
                    .zip
                    .name_for_index(index)
                    .ok_or_else(|| self.damaged_reason(format!("entry {index} has no name")))?
                    .map_err(|e| damaged(self.format, &e))?
                    .into_owned();
                let is_dir = name.ends_with('/') || name.ends_with('\\');
                Ok(Entry {
                    index,
                    name,
                    is_dir,
                })
            })
            .collect()
    }

    /// The index of the entry named `name`.
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.zip.index_for_name(name)
    }

    /// The inflated bytes of the entry at `index`, within the budget left.
    pub fn read(&mut self, index: usize) -> Result<Vec<u8>, FormatError> {
        let format = self.format;
        let left = self.budget - self.expanded;
        let mut file = match self.zip.by_index(index) {
            Ok(file) => file,
            Err(ZipError::UnsupportedArchive(ZipError::PASSWORD_REQUIRED)) => {
                return Err(FormatError::Encrypted { format })
            }
            Err(e) => return Err(damaged(format, &e)),
        };
        let name = file.name().map(|n| n.into_owned()).unwrap_or_default();
        // The declared size only sizes the first allocation, never more
        // than the budget allows.
        let mut bytes = Vec::with_capacity(file.size().min(left).min(1 << 20) as usize);
        (&mut file)
            .take(left + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| FormatError::Damaged {
                format,
                reason: format!("entry {name} cannot be inflated: {e}"),
            })?;
        drop(file);
        self.expanded += bytes.len() as u64;
        if bytes.len() as u64 > left {
            return Err(self.over_limit());
        }
        Ok(bytes)
    }

    /// The reason the budget ran out, with its numbers.
    fn over_limit(&self) -> FormatError {
        let reason = if self.by_ratio {
            format!(
                "its {} bytes expand to more than {} bytes, over {} times their size (a zip bomb?)",
                self.size, self.budget, self.limits.max_expansion_ratio
            )
        } else {
            format!(
                "its entries expand to more than {} bytes (the size limit)",
                self.limits.max_expanded_bytes
            )
        };
        FormatError::OverLimit {
            format: self.format,
            reason,
        }
    }

    fn damaged_reason(&self, reason: String) -> FormatError {
        FormatError::Damaged {
            format: self.format,
            reason,
        }
    }
}

/// A zip error as the reason a file is damaged.
fn damaged(format: Format, error: &ZipError) -> FormatError {
    let what = match error {
        ZipError::InvalidArchive(why) => format!("not a readable zip ({why})"),
        ZipError::Io(e) => format!("the zip is cut short or corrupt ({e})"),
        other => format!("the zip cannot be read ({other})"),
    };
    FormatError::Damaged {
        format,
        reason: what,
    }
}
