//! The configuration file: the built-in file documents exactly the compiled
//! defaults, a partial file overrides only what it names, mistakes are
//! errors that name the key, and the command line beats the file.

mod common;

use common::{doppel, sample_corpus, stdout_of};

use std::path::{Path, PathBuf};

use doppel_core::engine::algo::AlgorithmId;
use doppel_core::engine::EngineConfig;
use doppel_index::collection::{list_files_with, IgnoreRules};
use doppel_index::config::{ClusterSettings, Config, ThemeName, WatchSettings, DEFAULTS};
use doppel_pairing::cluster::{ClusterBy, ClusterMode};
use doppel_pairing::library::LibraryConfig;

fn parse(text: &str) -> Result<Config, doppel_index::config::ConfigError> {
    Config::from_toml(text, Some(Path::new("/etc/doppel-test.toml")))
}

fn error(text: &str) -> String {
    format!("{:#}", parse(text).expect_err("should be an error"))
}

#[test]
fn the_built_in_file_is_exactly_the_compiled_defaults() {
    let raw: Config = toml::from_str(DEFAULTS).expect("assets/config.toml deserializes");
    assert_eq!(raw.engine, EngineConfig::default());
    assert_eq!(raw.library, LibraryConfig::default());
    assert_eq!(raw.watch, WatchSettings::default());
    assert_eq!(raw.clusters, ClusterSettings::default());
    assert_eq!(raw.index_dir, None);
    assert!(raw.ignore.is_empty());
    assert_eq!(raw, Config::default());
    // Loading (merge, checks, floors) changes nothing either.
    assert_eq!(Config::defaults(), Config::default());
    assert_eq!(
        WatchSettings::default().quiet(),
        doppel_index::watch::DEFAULT_QUIET
    );
    assert_eq!(
        WatchSettings::default().rescan_every(),
        doppel_index::watch::DEFAULT_RESCAN_EVERY
    );
}

/// Every key path of `table` that holds a value (not a table), dotted.
fn leaves(table: &toml::Table, prefix: &str, out: &mut Vec<String>) {
    for (key, value) in table {
        let path = if prefix.is_empty() {
            key.clone()
        } else {
            format!("{prefix}.{key}")
        };
        match value {
            toml::Value::Table(t) => leaves(t, &path, out),
            _ => out.push(path),
        }
    }
}

#[test]
fn the_built_in_file_spells_out_every_setting() {
    // Every setting the compiled defaults have is written in the file (not
    // left to serde defaults), so the file documents all of them.
    let compiled = toml::Table::try_from(Config::default()).unwrap();
    let written: toml::Table = DEFAULTS.parse().unwrap();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    leaves(&compiled, "", &mut a);
    leaves(&written, "", &mut b);
    a.sort();
    b.sort();
    assert_eq!(a, b);
    // ... and each with a comment somewhere above its table.
    assert!(DEFAULTS.lines().filter(|l| l.starts_with('#')).count() > 60);
}

#[test]
fn a_partial_file_overrides_only_what_it_names() {
    let config = parse(
        "ignore = [\"*.bak\"]\n\
         [thresholds]\nminhash = 0.5\n\
         [algorithms.minhash]\nnum_perm = 64\n\
         [library.candidates.simhash-banding]\ntables = 8\n\
         [watch]\nquiet-ms = 1000\n",
    )
    .unwrap();
    let mut expected = Config {
        ignore: vec!["*.bak".into()],
        ..Config::default()
    };
    expected.engine.thresholds.set(AlgorithmId::Minhash, 0.5);
    expected.engine.algorithms.minhash.num_perm = 64;
    expected.library.candidates.simhash_banding =
        doppel_pairing::candidates::SimhashBanding::Tables {
            tables: 8,
            bits_per_table: 16,
        };
    expected.watch.quiet_ms = 1000;
    assert_eq!(config, expected);
    // Untouched maps keep every entry.
    assert_eq!(config.engine.thresholds.0.len(), AlgorithmId::ALL.len());
    assert_eq!(config.library.floors, LibraryConfig::default().floors);
}

#[test]
fn switching_an_enum_variant_replaces_the_default_table() {
    let config =
        parse("[library.candidates.simhash-banding]\nmode = \"pigeonhole\"\nmax_distance = 10\n")
            .unwrap();
    assert_eq!(
        config.library.candidates.simhash_banding,
        doppel_pairing::candidates::SimhashBanding::Pigeonhole { max_distance: 10 }
    );
}

#[test]
fn a_looser_threshold_lowers_its_floor() {
    let config = parse("[thresholds]\nminhash = 0.1\nsimhash = 20\n").unwrap();
    assert_eq!(config.library.floors.get(AlgorithmId::Minhash), 0.1);
    assert_eq!(config.library.floors.get(AlgorithmId::Simhash), 20.0);
    assert_eq!(config.library.floors.get(AlgorithmId::Shingle), 0.15);
}

#[test]
fn a_looser_related_containment_lowers_the_containment_floor() {
    // Related pairs the floor did not keep would be reported by chance.
    let config = parse("[fusion]\nrelated-containment = 0.08\n").unwrap();
    assert_eq!(config.library.containment_floor, 0.08);
    let config = parse("[fusion]\nrelated-containment = 0.3\n").unwrap();
    assert_eq!(
        config.library.containment_floor,
        LibraryConfig::default().containment_floor
    );
}

#[test]
fn clusters_index_dir_and_relative_paths() {
    let config =
        parse("index-dir = \"state\"\n[clusters]\nby = \"minhash\"\nmode = \"star\"\n").unwrap();
    assert_eq!(config.index_dir, Some(PathBuf::from("/etc/state")));
    assert_eq!(
        config.clusters.by,
        ClusterBy::Algorithm(AlgorithmId::Minhash)
    );
    assert_eq!(config.clusters.mode, ClusterMode::Star);
    let absolute = parse("index-dir = \"/var/doppel\"\n").unwrap();
    assert_eq!(absolute.index_dir, Some(PathBuf::from("/var/doppel")));
}

#[test]
fn the_theme_is_default_or_monochrome_and_nothing_else() {
    assert_eq!(Config::default().ui.theme, ThemeName::Default);
    let config = parse("[ui]\ntheme = \"monochrome\"\n").unwrap();
    assert_eq!(config.ui.theme, ThemeName::Monochrome);
    let message = error("# mine\n[ui]\ntheme = \"mono\"\n");
    assert!(message.contains("/etc/doppel-test.toml"), "{message}");
    assert!(message.contains("ui.theme"), "{message}");
    assert!(message.contains("line 3"), "{message}");
    assert!(message.contains("`mono`"), "{message}");
    assert!(message.contains("monochrome"), "{message}");
    let message = error("[ui]\ncolours = false\n");
    assert!(message.contains("`colours`"), "{message}");
}

#[test]
fn index_dir_holds_one_file_per_folder_named_as_the_default() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let config = parse("index-dir = \"/var/doppel\"\n").unwrap();
    let in_a = config.index_path(a.path()).unwrap().unwrap();
    let in_b = config.index_path(b.path()).unwrap().unwrap();
    assert_ne!(in_a, in_b);
    assert_eq!(in_a.parent(), Some(Path::new("/var/doppel")));
    // The same name as in the platform data folder, so index files can be
    // moved between the two.
    let default = doppel_store::SqliteStore::default_path(a.path()).unwrap();
    assert_eq!(in_a.file_name(), default.file_name());
    assert_eq!(Config::default().index_path(a.path()).unwrap(), None);
}

#[test]
fn an_unknown_top_level_key_is_an_error_naming_it() {
    let message = error("threshold = 3\n");
    assert!(message.contains("/etc/doppel-test.toml"), "{message}");
    assert!(message.contains("`threshold`"), "{message}");
    assert!(message.contains("line 1"), "{message}");
}

#[test]
fn an_unknown_nested_key_is_an_error_naming_it_and_its_table() {
    let message = error("# mine\n[algorithms.minhash]\nnum_perms = 64\n");
    assert!(message.contains("/etc/doppel-test.toml"), "{message}");
    assert!(message.contains("`num_perms`"), "{message}");
    assert!(message.contains("algorithms.minhash"), "{message}");
    assert!(message.contains("line 3"), "{message}");
    // A table that does not exist.
    let message = error("[algorithms.mimhash]\nw = 4\n");
    assert!(message.contains("`mimhash`"), "{message}");
    // A key of another enum variant, which serde alone would ignore.
    let message = error("[idf]\nsource = \"reference\"\nmax_drift = 0.1\n");
    assert!(message.contains("`max_drift`"), "{message}");
    assert!(message.contains("idf"), "{message}");
    assert!(message.contains("line 3"), "{message}");
    // An unknown algorithm id as a threshold key.
    let message = error("[thresholds]\nminhsh = 0.3\n");
    assert!(message.contains("minhsh"), "{message}");
}

#[test]
fn a_bad_type_is_an_error_naming_the_key() {
    let message = error("[algorithms.minhash]\nnum_perm = \"many\"\n");
    assert!(message.contains("/etc/doppel-test.toml"), "{message}");
    assert!(message.contains("algorithms.minhash.num_perm"), "{message}");
    assert!(message.contains("line 2"), "{message}");
    let message = error("[watch]\nquiet-ms = -5\n");
    assert!(message.contains("watch.quiet-ms"), "{message}");
    let message = error("enabled = \"minhash\"\n");
    assert!(message.contains("enabled"), "{message}");
}

#[test]
fn values_doppel_cannot_use_are_errors_naming_the_key() {
    let message = error("ignore = [\"!keep.txt\"]\n");
    assert!(message.contains("ignore"), "{message}");
    let message = error("[thresholds]\nminhash = nan\n");
    assert!(message.contains("thresholds.minhash"), "{message}");
    let message = error("[clusters]\nby = \"winnow\"\n\nenabled = [\"minhash\"]\n");
    assert!(message.contains("unknown field"), "{message}");
    let message = error("enabled = [\"minhash\"]\n[clusters]\nby = \"winnow\"\n");
    assert!(message.contains("clusters.by"), "{message}");
    let message = error("[clusters]\nby = \"fushion\"\n");
    assert!(message.contains("fushion"), "{message}");
    let message = error("not toml [");
    assert!(message.contains("/etc/doppel-test.toml"), "{message}");
}

#[test]
fn a_missing_explicit_file_is_an_error_naming_it() {
    let message = format!(
        "{:#}",
        Config::load(Some(Path::new("/nonexistent/doppel.toml"))).unwrap_err()
    );
    assert!(message.contains("/nonexistent/doppel.toml"), "{message}");
}

#[test]
fn the_printed_configuration_reads_back_the_same() {
    let config = parse("ignore = [\"drafts/\"]\n[thresholds]\nminhash = 0.4\n").unwrap();
    let again = parse(&config.to_toml().unwrap()).unwrap();
    assert_eq!(again, config);
}

#[test]
fn extra_ignore_globs_leave_files_out_of_walks_and_events() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join("drafts/deep")).unwrap();
    std::fs::create_dir_all(root.join("sub")).unwrap();
    for file in [
        "a.txt",
        "b.bak",
        "sub/c.bak",
        "sub/d.txt",
        "drafts/e.txt",
        "drafts/deep/f.txt",
        "notes.txt",
        "sub/notes.txt",
    ] {
        std::fs::write(root.join(file), "some words here").unwrap();
    }
    let globs: Vec<String> = ["*.bak", "drafts/", "/notes.txt"]
        .map(String::from)
        .to_vec();
    let (files, _) = list_files_with(&root, &globs);
    let rels: Vec<String> = files.iter().map(|f| f.doc.to_string()).collect();
    assert_eq!(rels, ["a.txt", "sub/d.txt", "sub/notes.txt"]);
    let mut rules = IgnoreRules::with_extra(&root, &globs);
    assert!(rules.is_ignored(&root.join("sub/c.bak"), false));
    assert!(rules.is_ignored(&root.join("drafts/deep/f.txt"), false));
    assert!(rules.is_ignored(&root.join("notes.txt"), false));
    assert!(!rules.is_ignored(&root.join("sub/notes.txt"), false));
    assert!(!rules.is_ignored(&root.join("a.txt"), false));
    // Without extras everything but the built-in temporary files counts.
    let (all, _) = list_files_with(&root, &[]);
    assert_eq!(all.len(), 8);
}

#[test]
fn extra_ignore_globs_apply_to_the_index_and_its_path_events() {
    use doppel_core::engine::Engine;
    use doppel_index::index::FolderIndex;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("folder");
    std::fs::create_dir_all(root.join("drafts")).unwrap();
    let text = "the quick brown fox jumps over the lazy dog again and again";
    std::fs::write(root.join("a.txt"), text).unwrap();
    std::fs::write(root.join("b.bak"), text).unwrap();
    std::fs::write(root.join("drafts/c.txt"), text).unwrap();
    let store = dir.path().join("index.sqlite");
    let open = || {
        FolderIndex::open(
            &root,
            Engine::default(),
            LibraryConfig::default(),
            Some(&store),
        )
        .unwrap()
        .0
    };
    let paths = |index: &FolderIndex| -> Vec<&str> {
        let known = ["a.txt", "b.bak", "drafts/c.txt", "drafts/d.txt"];
        let found: Vec<&str> = known
            .into_iter()
            .filter(|p| index.library().id_of(&(*p).into()).is_some())
            .collect();
        assert_eq!(found.len(), index.library().len());
        found
    };
    let mut index = open();
    index.reconcile().unwrap();
    assert_eq!(paths(&index), ["a.txt", "b.bak", "drafts/c.txt"]);
    // Globs added later forget what they now match.
    let mut index = open();
    index.set_extra_ignores(vec!["*.bak".into(), "drafts/".into()]);
    index.reconcile().unwrap();
    assert_eq!(paths(&index), ["a.txt"]);
    // A watcher event for an ignored path indexes nothing.
    std::fs::write(root.join("drafts/d.txt"), text).unwrap();
    index
        .sync_paths(&[root.canonicalize().unwrap().join("drafts/d.txt")])
        .unwrap();
    assert_eq!(paths(&index), ["a.txt"]);
}

// --- the command line ---------------------------------------------------

fn scan_json(config: &Path, extra: &[&str]) -> serde_json::Value {
    let stdout = stdout_of(
        doppel()
            .args(["scan", "--no-index", "--format", "json", "--config"])
            .arg(config)
            .args(extra)
            .arg(sample_corpus()),
    );
    serde_json::from_slice(&stdout).unwrap()
}

#[test]
fn cli_threshold_from_the_file_and_the_flag_beats_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("config.toml");
    std::fs::write(
        &file,
        "[thresholds]\nminhash = 0.6\nsimhash = 3\n[clusters]\nby = \"minhash\"\n",
    )
    .unwrap();
    let from_file = scan_json(&file, &[]);
    assert_eq!(from_file["thresholds"]["minhash"], 0.6);
    assert_eq!(from_file["thresholds"]["simhash"], 3.0);
    let default_shingle = doppel_core::engine::Thresholds::default().get(AlgorithmId::Shingle);
    assert_eq!(from_file["thresholds"]["shingle"], default_shingle);
    assert_eq!(from_file["cluster_algorithm"], "minhash");
    let flagged = scan_json(
        &file,
        &["--threshold", "minhash=0.9", "--cluster-by", "fusion"],
    );
    assert_eq!(flagged["thresholds"]["minhash"], 0.9);
    assert_eq!(flagged["thresholds"]["simhash"], 3.0);
    assert_eq!(flagged["cluster_algorithm"], "fusion");
    // The thresholds really judge the pairs: every pair listed as a minhash
    // duplicate passes the flag's threshold.
    for pair in flagged["pairs"].as_array().unwrap() {
        let by: Vec<&str> = pair["duplicate_by"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        if by.contains(&"minhash") {
            assert!(pair["scores"]["minhash"].as_f64().unwrap() >= 0.9);
        }
    }
}

#[test]
fn cli_ignore_globs_from_the_file_leave_files_out() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("config.toml");
    std::fs::write(&file, "ignore = [\"moby/\", \"*.bin\"]\n").unwrap();
    let v = scan_json(&file, &[]);
    let paths: Vec<&str> = v["documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["path"].as_str().unwrap())
        .collect();
    assert!(!paths.is_empty());
    assert!(paths.iter().all(|p| !p.starts_with("moby/")), "{paths:?}");
}

#[test]
fn cli_config_may_come_before_the_command_and_nothing_else_may() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("config.toml");
    std::fs::write(&file, "[thresholds]\nminhash = 0.7\n").unwrap();
    let stdout = stdout_of(
        doppel()
            .arg("--config")
            .arg(&file)
            .args(["scan", "--no-index", "--format", "json"])
            .arg(sample_corpus()),
    );
    let v: serde_json::Value = serde_json::from_slice(&stdout).unwrap();
    assert_eq!(v["thresholds"]["minhash"], 0.7);
    // A scan option before the command would be silently ignored: usage error.
    let out = doppel()
        .args(["--threshold", "minhash=0.5", "scan", "--no-index"])
        .arg(sample_corpus())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn cli_index_dir_from_the_file_holds_the_index_and_index_beats_it() {
    let dir = tempfile::tempdir().unwrap();
    let indexes = dir.path().join("indexes");
    let file = dir.path().join("config.toml");
    std::fs::write(&file, "index-dir = \"indexes\"\n").unwrap();
    let run = |extra: &[&std::ffi::OsStr]| {
        stdout_of(
            doppel()
                .args(["scan", "--format", "json", "--config"])
                .arg(&file)
                .args(extra)
                .arg(sample_corpus()),
        );
    };
    run(&[]);
    let expected = Config::load(Some(&file))
        .unwrap()
        .index_path(&sample_corpus())
        .unwrap()
        .unwrap();
    assert!(expected.starts_with(&indexes));
    assert!(expected.is_file(), "{}", expected.display());
    let explicit = dir.path().join("explicit.sqlite");
    run(&["--index".as_ref(), explicit.as_os_str()]);
    assert!(explicit.is_file());
}

#[test]
fn cli_watch_takes_clusters_ignores_and_index_dir_from_the_file() {
    use std::io::{BufRead, Read};
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("config.toml");
    std::fs::write(
        &file,
        "ignore = [\"misc/\"]\nindex-dir = \"indexes\"\n[clusters]\nby = \"exact\"\n",
    )
    .unwrap();
    let mut child = doppel()
        .args(["watch", "--jsonl", "--until-eof", "--config"])
        .arg(&file)
        .arg(sample_corpus())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stdin = child.stdin.take().unwrap();
    let mut lines = Vec::new();
    let mut reader = std::io::BufReader::new(child.stdout.take().unwrap());
    for line in reader.by_ref().lines() {
        let value: serde_json::Value = serde_json::from_str(&line.unwrap()).unwrap();
        let done = value["event"] == "snapshot" || value["event"] == "stopped";
        lines.push(value);
        if done {
            break;
        }
    }
    drop(stdin);
    // Read to the end, so the watcher never writes into a closed pipe.
    for line in reader.lines() {
        line.unwrap();
    }
    assert!(child.wait().unwrap().success());
    let event = |name: &'static str| lines.iter().filter(move |l| l["event"] == name);
    // The first snapshot already clusters by exact: only byte-for-byte
    // (normalized) copies, never the edited or OCR copies fusion finds.
    let clusters: Vec<&serde_json::Value> = event("cluster").collect();
    assert!(!clusters.is_empty(), "{lines:?}");
    for cluster in &clusters {
        let members = cluster["members"].to_string();
        assert!(!members.contains("edited/"), "{members}");
        assert!(!members.contains("scans/"), "{members}");
    }
    assert!(event("indexed").all(|l| !l["path"].as_str().unwrap().starts_with("misc/")));
    assert!(event("indexed").count() > 0);
    assert!(
        std::fs::read_dir(dir.path().join("indexes"))
            .unwrap()
            .count()
            >= 1
    );
}

#[test]
fn cli_a_missing_config_file_exits_1_naming_it() {
    let out = doppel()
        .args(["scan", "--no-index", "--config", "/nonexistent/doppel.toml"])
        .arg(sample_corpus())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("/nonexistent/doppel.toml"), "{stderr}");
    assert!(out.stdout.is_empty());
}

#[test]
fn cli_a_bad_config_file_exits_1_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("config.toml");
    std::fs::write(&file, "[algorithms.minhash]\nnum_perms = 64\n").unwrap();
    let out = doppel()
        .args(["compare", "--config"])
        .arg(&file)
        .arg(sample_corpus().join("empty.txt"))
        .arg(sample_corpus().join("empty.txt"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("num_perms"), "{stderr}");
    assert!(stderr.contains(&file.display().to_string()), "{stderr}");
}

#[test]
fn cli_config_prints_the_defaults_and_the_configuration_in_effect() {
    let out = doppel()
        .args(["config", "--print-defaults"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8(out.stdout).unwrap(), DEFAULTS);

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("config.toml");
    std::fs::write(&file, "[thresholds]\nwinnow = 0.5\n").unwrap();
    let stdout = stdout_of(doppel().args(["config", "--config"]).arg(&file));
    let printed = Config::from_toml(&String::from_utf8(stdout).unwrap(), None).unwrap();
    assert_eq!(printed.engine.thresholds.get(AlgorithmId::Winnow), 0.5);
    assert_eq!(printed, Config::load(Some(&file)).unwrap());
}

// --- ranges -------------------------------------------------------------

#[test]
fn values_outside_their_range_are_errors_naming_file_line_key_value_and_range() {
    // (file, key, value, words of the range)
    let cases = [
        (
            "[thresholds]\nminhash = 7\n",
            "thresholds.minhash",
            "7",
            "from 0 to 1",
        ),
        (
            "[thresholds]\nsupershingle = 2.5\n",
            "thresholds.supershingle",
            "2.5",
            "whole number from 0 to 6",
        ),
        (
            "[thresholds]\nsimhash = 200\n",
            "thresholds.simhash",
            "200",
            "from 0 to 64",
        ),
        (
            "[algorithms.minhash]\nnum_perm = 0\n",
            "algorithms.minhash.num_perm",
            "0",
            "at least 1",
        ),
        (
            "[algorithms.simhash]\nbits = 65\n",
            "algorithms.simhash.bits",
            "65",
            "from 1 to 64",
        ),
        (
            "[algorithms.winnow]\nw = 0\n",
            "algorithms.winnow.w",
            "0",
            "at least 1",
        ),
        (
            "[algorithms.shingle]\nmodulus = 0\n",
            "algorithms.shingle.modulus",
            "0",
            "at least 1",
        ),
        (
            "[algorithms.simhash-lexicons]\nkeep = 1.5\n",
            "algorithms.simhash-lexicons.keep",
            "1.5",
            "from 0 to 1",
        ),
        (
            "[algorithms.imatch-lexicons]\nlexicons = 65\n",
            "algorithms.imatch-lexicons.lexicons",
            "65",
            "from 1 to 64",
        ),
        (
            "[algorithms.imatch]\nnidf_min = 0.5\nnidf_max = 0.4\n",
            "algorithms.imatch.nidf_max",
            "0.4",
            "from nidf_min (0.5) to 1",
        ),
        (
            "[algorithms.si]\nk = 0\n",
            "algorithms.si.k",
            "0",
            "at least 1",
        ),
        (
            "[fusion]\nmin-agree = 0\n",
            "fusion.min-agree",
            "0",
            "from 1 to 4",
        ),
        // Ten voters, but three families: 2 + 1 + 1 votes.
        (
            "[fusion]\nmin-agree = 5\n",
            "fusion.min-agree",
            "5",
            "from 1 to 4",
        ),
        (
            "[fusion]\ncontainment = 1.1\n",
            "fusion.containment",
            "1.1",
            "from 0 to 1",
        ),
        (
            "[library]\ncontainment-floor = -0.5\n",
            "library.containment-floor",
            "-0.5",
            "from 0 to 1",
        ),
        (
            "[library.floors]\nwinnow = 1.5\n",
            "library.floors.winnow",
            "1.5",
            "from 0 to 1",
        ),
        (
            "[library.candidates]\nmax-postings = 0\n",
            "library.candidates.max-postings",
            "0",
            "at least 1",
        ),
        (
            "[library.candidates]\nsi-range = 1.0\n",
            "library.candidates.si-range",
            "1",
            "from 0 to 0.99",
        ),
        (
            "[library.candidates.simhash-banding]\ntables = 0\n",
            "library.candidates.simhash-banding.tables",
            "0",
            "at least 1",
        ),
    ];
    for (file, key, value, range) in cases {
        let message = error(file);
        let line = file.lines().count();
        for part in [
            "/etc/doppel-test.toml".to_owned(),
            format!("line {line}"),
            format!("{key} = {value}"),
            range.to_owned(),
        ] {
            assert!(message.contains(&part), "{file:?}: {message} lacks {part}");
        }
    }
}

#[test]
fn values_at_the_ends_of_their_ranges_are_accepted() {
    let accepted = [
        "[thresholds]\nminhash = 0.0\nshingle = 1.0\nsi = 1\n",
        "[thresholds]\nsupershingle = 6\nimatch-lexicons = 10\nsimhash = 64\n",
        "[thresholds]\nsupershingle = 0\nsimhash = 0\n",
        "[algorithms.minhash]\nnum_perm = 6\n[algorithms.supershingle]\ngroups = 6\nper_group = 1\n",
        "[algorithms.simhash]\nbits = 10\n[thresholds]\nsimhash = 10\n[library.floors]\nsimhash = 10\n",
        "[algorithms.simhash-lexicons]\nlexicons = 64\nkeep = 0.0\nk = 1\nbits = 64\n",
        "[algorithms.imatch]\nnidf_min = 0.5\nnidf_max = 0.5\nmin_terms = 1\n",
        "[algorithms.winnow]\nk = 1\nw = 1\n[algorithms.shingle]\nw = 1\nmodulus = 1\n",
        "[fusion]\nmin-agree = 4\ncontainment = 0\n",
        "[fusion]\nvoters = [\"minhash\"]\nmin-agree = 1\n",
        "[library.candidates]\nminhash-bands = [16, 8]\nsi-range = 0.99\nsi-cap = 0\n",
        "[library.candidates.simhash-banding]\nmode = \"pigeonhole\"\nmax_distance = 63\n",
        "[watch]\nquiet-ms = 0\nrescan-minutes = 0\n",
    ];
    for file in accepted {
        if let Err(e) = parse(file) {
            panic!("{file:?} should be accepted: {e:#}");
        }
    }
}

#[test]
fn cluster_by_fusion_with_no_voter_and_no_shingle_is_an_error_suggesting_an_algorithm() {
    let message = error("enabled = [\"si\"]\n");
    assert!(message.contains("clusters.by"), "{message}");
    assert!(message.contains("si"), "{message}");
    // Shingle alone cannot vote here but can still contain.
    parse("enabled = [\"shingle\"]\n[fusion]\nvoters = [\"minhash\"]\nmin-agree = 1\n").unwrap();
    parse("enabled = [\"si\"]\n[clusters]\nby = \"si\"\n").unwrap();
}

proptest::proptest! {
    /// A threshold is accepted exactly inside its documented range: a
    /// similarity from 0 to 1; a whole number of bits up to the
    /// fingerprint's 64; whole matches up to the 6 super-shingles or 10
    /// I-Match lexicons.
    #[test]
    fn thresholds_are_accepted_exactly_inside_their_range(
        id in proptest::sample::select(AlgorithmId::ALL.to_vec()),
        tenths in -20i32..=700,
    ) {
        use doppel_core::engine::algo::Unit;
        let value = f64::from(tenths) / 10.0;
        let whole = value.fract() == 0.0;
        let expected = match id {
            AlgorithmId::Supershingle => whole && (0.0..=6.0).contains(&value),
            AlgorithmId::ImatchLexicons => whole && (0.0..=10.0).contains(&value),
            _ if id.unit() == Unit::HammingBits => whole && (0.0..=64.0).contains(&value),
            _ => (0.0..=1.0).contains(&value),
        };
        let file = format!("[thresholds]\n{id} = {value:?}\n");
        proptest::prop_assert_eq!(parse(&file).is_ok(), expected, "{}", file);
        // A floor obeys the same range.
        let floor = format!("[library.floors]\n{id} = {value:?}\n");
        if !expected {
            proptest::prop_assert!(parse(&floor).is_err(), "{}", floor);
        }
    }
}

#[test]
fn curator_names_who_verdicts_are_recorded_as() {
    let config = parse("curator = \"Ada Lovelace\"\n").unwrap();
    assert_eq!(config.curator(), "Ada Lovelace");
    assert_eq!(Config::defaults().curator, None, "default: the login name");
    for (bad, why) in [
        ("curator = \"\"", "must name someone"),
        (
            "curator = \" ada\"",
            "one line without leading or trailing spaces",
        ),
        ("curator = \"ada\\nbob\"", "one line"),
        ("curator = \"x\" \ncurator2 = 1", "unknown field"),
    ] {
        let message = error(bad);
        assert!(message.contains(why), "{bad}: {message}");
    }
    let long = format!("curator = \"{}\"", "a".repeat(65));
    assert!(error(&long).contains("at most 64 characters"));
}
