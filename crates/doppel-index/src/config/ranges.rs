//! The valid range of every setting, and the one check of a configuration
//! against them ([`Config::check`]).
//!
//! A range is what the code and the papers can use, not a taste: a
//! similarity threshold lies in [0, 1], a Hamming threshold is a whole
//! number of bits of that algorithm's fingerprint, a count of matching
//! signatures at most the number compared, and every size, window and
//! modulus the algorithms divide by or slide at least 1. Floors obey the
//! thresholds' ranges. The check runs after the configuration file is
//! merged over the defaults and again after the command-line flags are
//! applied, so both go through it; an [`Invalid`] names the key as the file
//! spells it, the value and the range. `assets/config.toml` documents each
//! range next to its setting.

use std::fmt::Display;
use std::sync::Arc;

use doppel_core::engine::algo::AlgorithmId;
use doppel_core::engine::stats::IdfSource;
use doppel_core::engine::{AlgorithmsConfig, Thresholds};
use doppel_pairing::cluster::ClusterBy;

use super::Config;

/// A setting outside its range, or otherwise unusable.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{key} = {value}: {problem}")]
pub struct Invalid {
    /// The key as the file spells it, dotted: `algorithms.minhash.num_perm`.
    pub key: String,
    /// The value, as TOML writes it.
    pub value: String,
    /// The range it must lie in, or why it cannot be used.
    pub problem: String,
    /// The error `problem` tells of, where one was met (a glob that does
    /// not parse).
    #[source]
    pub cause: Option<Arc<dyn std::error::Error + Send + Sync>>,
}

impl Invalid {
    fn new(key: impl Into<String>, value: impl Display, problem: impl Into<String>) -> Self {
        Invalid {
            key: key.into(),
            value: value.to_string(),
            problem: problem.into(),
            cause: None,
        }
    }

    /// `error` as the problem of `key`'s `value`, and its source.
    fn of(
        key: impl Into<String>,
        value: impl Display,
        error: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        Invalid {
            problem: error.to_string(),
            cause: Some(Arc::new(error)),
            ..Invalid::new(key, value, "")
        }
    }
}

/// Where a threshold (or floor) of one algorithm may lie: from 0 to `max`,
/// whole numbers only when the score counts something.
#[derive(Debug, Clone, PartialEq)]
pub struct ThresholdRange {
    /// The largest value.
    pub max: f64,
    /// Whole numbers only.
    pub whole: bool,
    /// What the value counts, for messages.
    pub unit: String,
}

impl ThresholdRange {
    /// Whether `value` lies in the range.
    pub fn contains(&self, value: f64) -> bool {
        (0.0..=self.max).contains(&value) && (!self.whole || value.fract() == 0.0)
    }

    /// The range in words: "from 0 to 1 (estimated Jaccard)".
    pub fn describe(&self) -> String {
        let whole = if self.whole { "a whole number " } else { "" };
        format!("must be {whole}from 0 to {} ({})", self.max, self.unit)
    }
}

/// The range of `id`'s threshold under `algorithms` (the fingerprint sizes
/// and signature counts bound the Hamming and match thresholds).
pub fn threshold_range(id: AlgorithmId, algorithms: &AlgorithmsConfig) -> ThresholdRange {
    use AlgorithmId as Id;
    let similarity = |unit: &str| ThresholdRange {
        max: 1.0,
        whole: false,
        unit: unit.to_owned(),
    };
    let count = |max: f64, unit: String| ThresholdRange {
        max,
        whole: true,
        unit,
    };
    let bits = |bits: u32, of: &str| {
        count(
            f64::from(bits),
            format!("Hamming distance in bits, at most algorithms.{of}.bits"),
        )
    };
    match id {
        Id::Exact => similarity("1 = equal word streams"),
        Id::Shingle | Id::Winnow => similarity("Jaccard"),
        Id::Minhash => similarity("estimated Jaccard"),
        Id::Supershingle => count(
            algorithms.supershingle.groups as f64,
            "matching super-shingles, at most algorithms.supershingle.groups".into(),
        ),
        Id::Simhash => bits(algorithms.simhash.bits, "simhash"),
        Id::SimhashShingle => bits(algorithms.simhash_shingle.bits, "simhash-shingle"),
        Id::SimhashLexicons => bits(algorithms.simhash_lexicons.bits, "simhash-lexicons"),
        Id::Imatch => similarity("1 = equal signatures"),
        Id::ImatchLexicons => count(
            algorithms.imatch_lexicons.lexicons as f64,
            "matching signatures, at most algorithms.imatch-lexicons.lexicons".into(),
        ),
        Id::Si => similarity("1 − relative difference of the SI numbers"),
    }
}

/// `value` at `key` is at least `min`.
fn at_least<T: PartialOrd + Display>(key: &str, value: T, min: T) -> Result<(), Invalid> {
    if value >= min {
        Ok(())
    } else {
        Err(Invalid::new(key, &value, format!("must be at least {min}")))
    }
}

/// `value` at `key` lies in `lo..=hi` (NaN never does).
fn between<T: PartialOrd + Display>(key: &str, value: T, lo: T, hi: T) -> Result<(), Invalid> {
    if lo <= value && value <= hi {
        Ok(())
    } else {
        Err(Invalid::new(
            key,
            &value,
            format!("must be from {lo} to {hi}"),
        ))
    }
}

/// A TOML string.
fn quoted(s: &str) -> String {
    format!("{s:?}")
}

/// The largest SimHash fingerprint, and the most lexicons (one bit of a
/// 64-bit membership mask each).
const MAX_BITS: u32 = 64;
const MAX_LEXICONS: usize = 64;

fn check_algorithms(a: &AlgorithmsConfig) -> Result<(), Invalid> {
    let key = |table: &str, field: &str| format!("algorithms.{table}.{field}");
    at_least(&key("shingle", "w"), a.shingle.w, 1)?;
    at_least(&key("shingle", "modulus"), a.shingle.modulus, 1)?;
    at_least(&key("minhash", "num_perm"), a.minhash.num_perm, 1)?;
    at_least(&key("minhash", "w"), a.minhash.w, 1)?;
    // Fewer min-hash values than groups leave every super-shingle
    // fingerprint empty.
    let groups = key("supershingle", "groups");
    if !(1..=a.minhash.num_perm).contains(&a.supershingle.groups) {
        return Err(Invalid::new(
            groups,
            a.supershingle.groups,
            format!(
                "must be from 1 to algorithms.minhash.num_perm ({})",
                a.minhash.num_perm
            ),
        ));
    }
    at_least(
        &key("supershingle", "per_group"),
        a.supershingle.per_group,
        1,
    )?;
    between(&key("simhash", "bits"), a.simhash.bits, 1, MAX_BITS)?;
    at_least(&key("simhash-shingle", "k"), a.simhash_shingle.k, 1)?;
    between(
        &key("simhash-shingle", "bits"),
        a.simhash_shingle.bits,
        1,
        MAX_BITS,
    )?;
    let lexicons = &a.simhash_lexicons;
    between(
        &key("simhash-lexicons", "lexicons"),
        lexicons.lexicons,
        1,
        MAX_LEXICONS,
    )?;
    between(&key("simhash-lexicons", "keep"), lexicons.keep, 0.0, 1.0)?;
    at_least(&key("simhash-lexicons", "k"), lexicons.k, 1)?;
    between(&key("simhash-lexicons", "bits"), lexicons.bits, 1, MAX_BITS)?;
    check_imatch("algorithms.imatch", &a.imatch)?;
    between(
        &key("imatch-lexicons", "lexicons"),
        a.imatch_lexicons.lexicons,
        1,
        MAX_LEXICONS,
    )?;
    between(
        &key("imatch-lexicons", "keep"),
        a.imatch_lexicons.keep,
        0.0,
        1.0,
    )?;
    check_imatch(
        "algorithms.imatch-lexicons.imatch",
        &a.imatch_lexicons.imatch,
    )?;
    at_least(&key("winnow", "k"), a.winnow.k, 1)?;
    at_least(&key("winnow", "w"), a.winnow.w, 1)?;
    at_least(&key("si", "k"), a.si.k, 1)?;
    // SI samples Java-int hashes (i32) that are 0 mod this.
    between(&key("si", "modulus"), a.si.modulus, 1, i32::MAX as u32)?;
    Ok(())
}

fn check_imatch(
    table: &str,
    c: &doppel_core::engine::algo::imatch::ImatchConfig,
) -> Result<(), Invalid> {
    between(&format!("{table}.nidf_min"), c.nidf_min, 0.0, 1.0)?;
    // The band [nidf_min, nidf_max] must keep something.
    let max_key = format!("{table}.nidf_max");
    if !(c.nidf_min <= c.nidf_max && c.nidf_max <= 1.0) {
        return Err(Invalid::new(
            max_key,
            c.nidf_max,
            format!("must be from nidf_min ({}) to 1", c.nidf_min),
        ));
    }
    at_least(&format!("{table}.min_terms"), c.min_terms, 1)
}

/// The longest `curator` name, in characters.
const MAX_CURATOR: usize = 64;

/// A curator's name is what every screen shows beside their verdicts:
/// some visible text on one line, not too long to show.
fn check_curator(name: &str) -> Result<(), Invalid> {
    let problem = if name.trim().is_empty() {
        "must name someone (leave it out for the login name)"
    } else if name.trim() != name || name.chars().any(char::is_control) {
        "must be one line without leading or trailing spaces"
    } else if name.chars().count() > MAX_CURATOR {
        "must be at most 64 characters"
    } else {
        return Ok(());
    };
    Err(Invalid::new("curator", quoted(name), problem))
}

/// Thresholds or floors (`table`) within each algorithm's range.
fn check_thresholds(
    table: &str,
    values: &Thresholds,
    algorithms: &AlgorithmsConfig,
) -> Result<(), Invalid> {
    for (&id, &value) in &values.0 {
        let range = threshold_range(id, algorithms);
        if !range.contains(value) {
            return Err(Invalid::new(
                format!("{table}.{id}"),
                value,
                range.describe(),
            ));
        }
    }
    Ok(())
}

fn check_library(config: &Config) -> Result<(), Invalid> {
    let library = &config.library;
    check_thresholds("library.floors", &library.floors, &config.engine.algorithms)?;
    between(
        "library.containment-floor",
        library.containment_floor,
        0.0,
        1.0,
    )?;
    let c = &library.candidates;
    let key = |field: &str| format!("library.candidates.{field}");
    if let Some((bands, rows)) = c.minhash_bands {
        let num_perm = config.engine.algorithms.minhash.num_perm;
        if bands == 0 || rows == 0 || bands.saturating_mul(rows) > num_perm {
            return Err(Invalid::new(
                key("minhash-bands"),
                format!("[{bands}, {rows}]"),
                format!(
                    "bands and rows must be at least 1, and bands × rows at most \
                     algorithms.minhash.num_perm ({num_perm})"
                ),
            ));
        }
    }
    let weight = |field: &str, value: f64| {
        if value.is_finite() && value >= 0.0 {
            Ok(())
        } else {
            Err(Invalid::new(
                key(field),
                value,
                "must be a number at least 0",
            ))
        }
    };
    weight("minhash-fp-weight", c.minhash_fp_weight)?;
    weight("minhash-fn-weight", c.minhash_fn_weight)?;
    if c.minhash_fp_weight + c.minhash_fn_weight == 0.0 {
        return Err(Invalid::new(
            key("minhash-fn-weight"),
            c.minhash_fn_weight,
            "minhash-fp-weight and minhash-fn-weight cannot both be 0",
        ));
    }
    match c.simhash_banding {
        doppel_pairing::candidates::SimhashBanding::Tables {
            tables,
            bits_per_table,
        } => {
            at_least(&key("simhash-banding.tables"), tables, 1)?;
            between(
                &key("simhash-banding.bits_per_table"),
                bits_per_table,
                1,
                MAX_BITS as usize,
            )?;
        }
        doppel_pairing::candidates::SimhashBanding::Pigeonhole { max_distance } => between(
            &key("simhash-banding.max_distance"),
            max_distance,
            0,
            MAX_BITS as usize - 1,
        )?,
    }
    at_least(&key("shingle-modulus"), c.shingle_modulus, 1)?;
    at_least(&key("winnow-modulus"), c.winnow_modulus, 1)?;
    at_least(&key("max-postings"), c.max_postings, 1)?;
    between(&key("si-range"), c.si_range, 0.0, 0.99)?;
    check_boilerplate(&library.boilerplate)
}

fn check_boilerplate(b: &doppel_pairing::boilerplate::BoilerplateConfig) -> Result<(), Invalid> {
    let key = |field: &str| format!("boilerplate.{field}");
    at_least(&key("min-docs"), b.min_docs, 2)?;
    at_least(&key("min-words"), b.min_words as usize, 1)?;
    at_least(&key("max-words"), b.max_words as usize, 1)?;
    at_least(&key("min-stretch"), b.min_stretch, 1)?;
    at_least(&key("min-remainder"), b.min_remainder, 1)?;
    at_least(&key("anchors"), b.anchors, 1)?;
    at_least(&key("min-groups"), b.min_groups, 2)?;
    if !(b.related > 0.0 && b.related <= 1.0) {
        return Err(Invalid::new(
            key("related"),
            b.related,
            "must be above 0 and at most 1",
        ));
    }
    Ok(())
}

impl Config {
    /// Every setting within its range (see the module documentation);
    /// otherwise the first one that is not, by its key.
    pub fn check(&self) -> Result<(), Invalid> {
        if let Some(curator) = &self.curator {
            check_curator(curator)?;
        }
        for glob in &self.ignore {
            crate::collection::check_ignore_glob(glob)
                .map_err(|e| Invalid::of("ignore", quoted(glob), e))?;
        }
        if let Some(store) = &self.store {
            check_store(store)?;
        }
        let engine = &self.engine;
        if engine.enabled.is_empty() {
            return Err(Invalid::new(
                "enabled",
                "[]",
                "at least one algorithm is needed",
            ));
        }
        check_algorithms(&engine.algorithms)?;
        check_thresholds("thresholds", &engine.thresholds, &engine.algorithms)?;
        let fusion = &engine.fusion;
        if fusion.voters.is_empty() {
            return Err(Invalid::new(
                "fusion.voters",
                "[]",
                "at least one algorithm must vote",
            ));
        }
        between(
            "fusion.min-agree",
            fusion.min_agree,
            1,
            doppel_core::engine::FusionConfig::max_votes(&fusion.voters),
        ).map_err(|e| {
            Invalid {
                problem: format!("{} (the votes fusion.voters' families can give: passages 2, vocabulary, signatures and si 1 each)", e.problem),
                ..e
            }
        })?;
        between("fusion.containment", fusion.containment, 0.0, 1.0)?;
        between("fusion.part-containment", fusion.part_containment, 0.0, 1.0)?;
        // Below 1: a part is smaller than its whole, so equal sizes never
        // make one.
        between("fusion.part-size-ratio", fusion.part_size_ratio, 0.0, 0.99)?;
        between("fusion.own-text-share", fusion.own_text_share, 0.0, 1.0)?;
        between(
            "fusion.related-containment",
            fusion.related_containment,
            0.0,
            1.0,
        )?;
        check_library(self)?;
        if let IdfSource::Collection { .. } = engine.idf {
            // Scans, the index and the watcher weight terms with the pinned
            // table only; accepting the setting would silently ignore it.
            return Err(Invalid::new(
                "idf.source",
                quoted("collection"),
                "not supported by scan, watch or the review screen yet (they use the \
                 pinned reference table)",
            ));
        }
        match self.clusters.by {
            ClusterBy::Algorithm(id) if !engine.enabled.contains(&id) => Err(Invalid::new(
                "clusters.by",
                quoted(id.as_str()),
                format!("needs {id} among the enabled algorithms (`enabled`, --algorithms)"),
            )),
            ClusterBy::Fusion => {
                let rule = engine.fusion_rule();
                if rule.voters.is_empty() && !rule.containment_applies {
                    let first = engine.enabled.iter().next().expect("checked non-empty");
                    return Err(Invalid::new(
                        "clusters.by",
                        quoted("fusion"),
                        format!(
                            "fusion links nothing: no voting algorithm (fusion.voters) is \
                             enabled, nor shingle for containment; cluster by an enabled \
                             algorithm (clusters.by = \"{first}\", --cluster-by {first}) or \
                             enable a voter"
                        ),
                    ));
                }
                Ok(())
            }
            ClusterBy::Algorithm(_) => Ok(()),
        }
    }
}

/// `store` names a PostgreSQL database that can be connected to as
/// written (a file is `index-dir`'s or `--index`'s). Its value is shown
/// [`redacted`](doppel_store::redacted).
fn check_store(store: &str) -> Result<(), Invalid> {
    use doppel_store::{redacted, StoreAddress};
    let shown = quoted(&redacted(store));
    match StoreAddress::parse(store) {
        Ok(address) if address.is_shared() => Ok(()),
        Ok(_) => Err(Invalid::new(
            "store",
            shown,
            "a postgres:// URL is needed (an index file is index-dir's or --index's)",
        )),
        Err(error) => Err(Invalid::new("store", shown, error.to_string())),
    }
}
