//! Writing tuned thresholds back into the user's configuration file
//! ([`save_thresholds`]): only the `[thresholds]` keys change — comments,
//! order and every other setting stay as the curator wrote them (the file
//! is edited with `toml_edit`, not re-serialized), and the new file
//! replaces the old one whole (written beside it, then renamed).

use std::io::Write;
use std::path::Path;

use toml_edit::{DocumentMut, Item, Table};

use super::{Config, ConfigError, Result, SaveProblem};
use doppel_core::engine::Thresholds;

/// Set each of `thresholds` in the `[thresholds]` table of the config file
/// at `path` (created, with its folder, when missing). The result must
/// load: a value the file cannot hold is refused before anything is
/// written.
pub fn save_thresholds(path: &Path, thresholds: &Thresholds) -> Result<()> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(error) => {
            return Err(ConfigError::Read {
                path: path.to_path_buf(),
                error,
            })
        }
    };
    let save_error = |problem| ConfigError::Save {
        path: path.to_path_buf(),
        problem,
    };
    let mut doc: DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| save_error(e.into()))?;
    let table = doc
        .entry("thresholds")
        .or_insert_with(|| Item::Table(Table::new()))
        .as_table_mut()
        .ok_or_else(|| save_error(SaveProblem::NotATable))?;
    for (id, &value) in &thresholds.0 {
        // Steps of 0.01 add up to 0.15000000000000002: the file reads as typed.
        let value = (value * 1e9).round() / 1e9;
        table[id.as_str()] = toml_edit::value(value);
    }
    let text = doc.to_string();
    // What is written must load, with these thresholds.
    Config::from_toml(&text, Some(path))?;
    write_replacing(path, &text).map_err(|error| save_error(error.into()))
}

/// Write `text` to a file beside `path`, then rename it over `path`.
fn write_replacing(path: &Path, text: &str) -> std::io::Result<()> {
    let folder = path.parent().filter(|p| !p.as_os_str().is_empty());
    if let Some(folder) = folder {
        std::fs::create_dir_all(folder)?;
    }
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".doppel-new");
    let temp = path.with_file_name(name);
    let mut file = std::fs::File::create(&temp)?;
    file.write_all(text.as_bytes())?;
    file.sync_all()?;
    std::fs::rename(&temp, path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use doppel_core::engine::algo::AlgorithmId;

    fn tuned(pairs: &[(AlgorithmId, f64)]) -> Thresholds {
        Thresholds(pairs.iter().copied().collect())
    }

    #[test]
    fn only_the_thresholds_change_and_the_file_loads_with_them() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        let before = "# my settings\n[watch]\nquiet-ms = 900 # slow disk\n\n\
                      [thresholds]\n# looser for scans\nminhash = 0.2\n";
        std::fs::write(&path, before).unwrap();
        let steps = 0.2 + 0.01 * 15.0; // as the screen's nudges add up
        save_thresholds(
            &path,
            &tuned(&[(AlgorithmId::Minhash, steps), (AlgorithmId::Shingle, 0.3)]),
        )
        .unwrap();
        let after = std::fs::read_to_string(&path).unwrap();
        for kept in [
            "# my settings",
            "quiet-ms = 900 # slow disk",
            "# looser for scans",
        ] {
            assert!(after.contains(kept), "{kept:?} lost:\n{after}");
        }
        assert!(after.contains("minhash = 0.35\n"), "{after}");
        let config = Config::load_file(&path).unwrap();
        assert_eq!(config.engine.thresholds.get(AlgorithmId::Minhash), 0.35);
        assert_eq!(config.engine.thresholds.get(AlgorithmId::Shingle), 0.3);
        assert_eq!(config.watch.quiet_ms, 900);
    }

    #[test]
    fn a_missing_file_is_created_with_its_folder() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("doppel").join("config.toml");
        save_thresholds(&path, &tuned(&[(AlgorithmId::Simhash, 12.0)])).unwrap();
        let config = Config::load_file(&path).unwrap();
        assert_eq!(config.engine.thresholds.get(AlgorithmId::Simhash), 12.0);
    }

    #[test]
    fn a_file_that_does_not_parse_or_a_value_out_of_range_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        for (text, value) in [("[thresholds\nminhash = ", 0.3), ("[thresholds]\n", 7.0)] {
            std::fs::write(&path, text).unwrap();
            let e = save_thresholds(&path, &tuned(&[(AlgorithmId::Minhash, value)]));
            let message = e.expect_err("refused").to_string();
            assert!(message.contains("config.toml"), "{message}");
            assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        }
    }
}
