//! Rendering an [`EvalReport`]: text tables with ASCII charts for the
//! terminal, CSV of every curve point, and an SVG of F (and P, R) against
//! the threshold, drawn by hand (polylines; no plotting dependency).

use std::fmt::Write as _;
use std::path::Path;

use super::error::{io, Result};

use super::fan_huang::{Curve, CurvePoint, EvalReport};
use doppel_core::engine::algo::Unit;

/// A threshold in its unit: integers for Hamming distances and counts, two
/// decimals for similarities.
pub(crate) fn fmt_threshold(unit: Unit, t: f64) -> String {
    match unit {
        Unit::Similarity => format!("{t:.2}"),
        _ => format!("{t:.0}"),
    }
}

fn rule(unit: Unit, algorithm: &str) -> &'static str {
    match (unit, algorithm) {
        (_, "fusion") => "agree >= t",
        (Unit::HammingBits, _) => "distance <= t",
        (Unit::Matches, _) => "matches >= t",
        (Unit::Similarity, _) => "score >= t",
    }
}

fn pct(x: f64) -> String {
    format!("{:.1} %", 100.0 * x)
}

impl EvalReport {
    /// Tables (best F per algorithm; best F per lexicon count beside the
    /// paper's Table 1) and an ASCII F-vs-threshold chart per algorithm.
    pub fn to_text(&self) -> String {
        let c = &self.config;
        let mut out = String::new();
        let _ = writeln!(out, "Fan & Huang protocol (seed {})", c.seed);
        let _ = writeln!(
            out,
            "  books       {}: {} files read ({} excluded by {:?} / extensions {:?}, {} unreadable)",
            self.books,
            self.files,
            self.excluded_files,
            c.exclude,
            c.extensions,
            self.unreadable_files
        );
        let _ = writeln!(
            out,
            "  texts       {} of ~{} bytes; vocabulary {} words",
            self.chunks, c.chunk_bytes, self.vocabulary
        );
        let _ = writeln!(
            out,
            "  queries     {} sources x {} copies; edit rate {}–{} of words (mean applied {})",
            c.sources,
            c.copies,
            pct(c.edit_min),
            pct(c.edit_max),
            pct(self.mean_edit_rate)
        );
        let _ = writeln!(
            out,
            "  background  {} texts{}; {} texts fingerprinted in all",
            self.background,
            if self.background + c.sources == self.chunks {
                " (every other text)"
            } else {
                ""
            },
            self.documents
        );
        for (i, s) in self.sources.iter().enumerate() {
            let _ = writeln!(
                out,
                "  source {}    {} @ byte {} ({} bytes, {} words)",
                i + 1,
                s.file,
                s.offset,
                s.bytes,
                s.words
            );
        }
        let t = &self.timing;
        let _ = writeln!(
            out,
            "  time        {:.1} s (read and edit {:.1} s, fingerprint and compare {:.1} s, sweep {:.1} s)",
            t.total, t.read, t.fingerprint, t.sweep
        );
        let _ = writeln!(
            out,
            "\nBest F per algorithm (macro-averaged over the queries; a query that \
             retrieves nothing has precision 0)"
        );
        let _ = writeln!(
            out,
            "{:<18} {:<22} {:<14} {:>9} {:>9} {:>7} {:>7} {:>8}",
            "algorithm",
            "setting",
            "retrieved if",
            "threshold",
            "precision",
            "recall",
            "F",
            "paper F"
        );
        for curve in self.main_curves() {
            let Some(b) = curve.best() else { continue };
            let paper = self
                .paper_f(curve)
                .map_or(String::new(), |f| format!("{f:.4}"));
            let _ = writeln!(
                out,
                "{:<18} {:<22} {:<14} {:>9} {:>9.4} {:>7.4} {:>7.4} {:>8}",
                curve.algorithm,
                curve.setting,
                rule(curve.unit, &curve.algorithm),
                fmt_threshold(curve.unit, b.threshold),
                b.precision,
                b.recall,
                b.f,
                paper
            );
        }
        if !self.lexicon_table.is_empty() {
            let _ = writeln!(
                out,
                "\nRandom lexicons (simhash-lexicons, {}-bit shingle SimHash): best F per \
                 lexicon count, beside Fan & Huang's Table 1",
                c.simhash_bits
            );
            let _ = writeln!(
                out,
                "{:>8} {:>7} {:>9} {:>9} {:>7}   {:>7} {:>15}",
                "lexicons", "F", "threshold", "precision", "recall", "paper F", "paper threshold"
            );
            for row in &self.lexicon_table {
                let _ = writeln!(
                    out,
                    "{:>8} {:>7.4} {:>9.0} {:>9.4} {:>7.4}   {:>7} {:>15}",
                    row.lexicons,
                    row.best.f,
                    row.best.threshold,
                    row.best.precision,
                    row.best.recall,
                    row.paper_f.map_or(String::new(), |f| format!("{f:.4}")),
                    row.paper_threshold.map_or(String::new(), |t| t.to_string())
                );
            }
        }
        let _ = writeln!(out, "\nF against threshold");
        for curve in self.main_curves() {
            out.push('\n');
            out.push_str(&ascii_chart(curve));
        }
        out
    }

    /// Every curve point: `algorithm,setting,threshold,precision,recall,f`.
    pub fn to_csv(&self) -> String {
        let mut out = String::from("algorithm,setting,threshold,precision,recall,f\n");
        for curve in &self.curves {
            for p in &curve.points {
                let _ = writeln!(
                    out,
                    "{},{},{},{:.6},{:.6},{:.6}",
                    curve.algorithm, curve.setting, p.threshold, p.precision, p.recall, p.f
                );
            }
        }
        out
    }

    /// The report as pretty JSON (config, sources, every curve, tables).
    pub fn to_json(&self) -> Result<String> {
        Ok(serde_json::to_string_pretty(self)?)
    }

    /// Write [`EvalReport::to_svg`] to `path`.
    pub fn write_svg(&self, path: &Path) -> Result<()> {
        std::fs::write(path, self.to_svg()).map_err(io("write", path))
    }

    /// An SVG page of small plots: precision, recall and F against the
    /// threshold for every algorithm (for `simhash-lexicons`, F for every
    /// lexicon count), then the paper's Figs. 3–5 (recall, precision and F
    /// of lexicon counts 1, 4, 7, 10 over Hamming thresholds 0–15).
    pub fn to_svg(&self) -> String {
        let mut panels = Vec::new();
        for curve in self.main_curves() {
            if curve.algorithm == "simhash-lexicons" {
                let lex: Vec<&Curve> = self
                    .curves
                    .iter()
                    .filter(|c| c.algorithm == "simhash-lexicons")
                    .collect();
                let n = lex.len().max(2) - 1;
                let series = lex
                    .iter()
                    .enumerate()
                    .map(|(i, c)| Series {
                        label: format!("L={}", i + 1),
                        color: ramp(i as f64 / n as f64),
                        width: if std::ptr::eq(*c, curve) { 2.5 } else { 1.0 },
                        dashed: false,
                        points: c.points.iter().map(|p| (p.threshold, p.f)).collect(),
                    })
                    .collect();
                panels.push(Panel {
                    title: format!("simhash-lexicons F, L = 1–{}", lex.len()),
                    x_label: "Hamming distance ≤ t".into(),
                    series,
                });
                continue;
            }
            let pick = |f: fn(&CurvePoint) -> f64| -> Vec<(f64, f64)> {
                curve.points.iter().map(|p| (p.threshold, f(p))).collect()
            };
            let best = curve
                .best()
                .map_or(String::new(), |b| format!(" (best F {:.3})", b.f));
            panels.push(Panel {
                title: format!("{}{best}", curve.algorithm),
                x_label: format!(
                    "{} {}",
                    rule(curve.unit, &curve.algorithm),
                    if curve.setting.is_empty() {
                        String::new()
                    } else {
                        format!("[{}]", curve.setting)
                    }
                ),
                series: vec![
                    Series::new("P", "#1f77b4", 1.0, true, pick(|p| p.precision)),
                    Series::new("R", "#2ca02c", 1.0, true, pick(|p| p.recall)),
                    Series::new("F", "#d62728", 2.5, false, pick(|p| p.f)),
                ],
            });
        }
        let figs: [(&str, Pick); 3] = [
            ("recall (Fig. 3)", |p| p.recall),
            ("precision (Fig. 4)", |p| p.precision),
            ("F (Fig. 5)", |p| p.f),
        ];
        let chosen: Vec<(usize, &Curve)> = self
            .curves
            .iter()
            .filter(|c| c.algorithm == "simhash-lexicons")
            .enumerate()
            .filter(|(i, _)| [0, 3, 6, 9].contains(i))
            .collect();
        if !chosen.is_empty() {
            for (name, f) in figs {
                panels.push(Panel {
                    title: format!("simhash-lexicons {name}"),
                    x_label: "Hamming distance ≤ t".into(),
                    series: chosen
                        .iter()
                        .map(|&(i, c)| Series {
                            label: format!("L={}", i + 1),
                            color: ramp(i as f64 / 9.0),
                            width: 1.5,
                            dashed: false,
                            points: c
                                .points
                                .iter()
                                .filter(|p| p.threshold <= 15.0)
                                .map(|p| (p.threshold, f(p)))
                                .collect(),
                        })
                        .collect(),
                });
            }
        }
        svg_page(
            &format!(
                "doppel eval — Fan & Huang protocol, seed {}, {} sources × {} copies, {} background texts",
                self.config.seed, self.config.sources, self.config.copies, self.background
            ),
            &panels,
        )
    }
}

/// F against threshold as a bar chart, 10 rows high, one or two columns per
/// threshold; `*` tops the best threshold's bar.
pub(crate) fn ascii_chart(curve: &Curve) -> String {
    let mut out = String::new();
    let best = curve.best();
    let title = match best {
        Some(b) => format!(
            "{} {} — best F {:.3} at t = {} (P {:.3}, R {:.3})",
            curve.algorithm,
            curve.setting,
            b.f,
            fmt_threshold(curve.unit, b.threshold),
            b.precision,
            b.recall
        ),
        None => curve.algorithm.clone(),
    };
    let _ = writeln!(out, "{}", title.replace("  ", " "));
    let n = curve.points.len();
    let cw = if n <= 40 { 2 } else { 1 };
    for row in (1..=10).rev() {
        let level = f64::from(row) / 10.0;
        let _ = write!(out, "{level:>4.1} |");
        for p in &curve.points {
            let filled = (p.f * 10.0).round() >= f64::from(row);
            let is_best = best.is_some_and(|b| b.threshold == p.threshold);
            let top = (p.f * 10.0).round() as i32 == row;
            let ch = match (filled, is_best && top) {
                (true, true) => '*',
                (true, false) => '#',
                _ => ' ',
            };
            for _ in 0..cw {
                out.push(ch);
            }
        }
        out = out.trim_end().to_owned();
        out.push('\n');
    }
    let _ = writeln!(out, "     +{}", "-".repeat(n * cw));
    // Threshold labels, placed where they fit.
    let mut labels = vec![b' '; n * cw + 8];
    let mut free = 0;
    for (i, p) in curve.points.iter().enumerate() {
        let at = i * cw;
        let text = fmt_threshold(curve.unit, p.threshold);
        if at >= free && at + text.len() <= labels.len() {
            labels[at..at + text.len()].copy_from_slice(text.as_bytes());
            free = at + text.len() + 1;
        }
    }
    let labels = String::from_utf8(labels).unwrap_or_default();
    let _ = writeln!(
        out,
        "      {}   t ({})",
        labels.trim_end(),
        rule(curve.unit, &curve.algorithm)
    );
    out
}

/// Which value of a curve point a line plots.
type Pick = fn(&CurvePoint) -> f64;

struct Series {
    label: String,
    color: String,
    width: f64,
    dashed: bool,
    points: Vec<(f64, f64)>,
}

impl Series {
    fn new(label: &str, color: &str, width: f64, dashed: bool, points: Vec<(f64, f64)>) -> Self {
        Self {
            label: label.into(),
            color: color.into(),
            width,
            dashed,
            points,
        }
    }
}

struct Panel {
    title: String,
    x_label: String,
    series: Vec<Series>,
}

/// Blue → red through purple, for lexicon counts.
fn ramp(x: f64) -> String {
    let x = x.clamp(0.0, 1.0);
    let r = (40.0 + 200.0 * x) as u8;
    let b = (220.0 - 180.0 * x) as u8;
    format!("#{r:02x}30{b:02x}")
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn svg_page(title: &str, panels: &[Panel]) -> String {
    const COLS: usize = 3;
    const PW: f64 = 360.0;
    const PH: f64 = 250.0;
    const TOP: f64 = 40.0;
    let rows = panels.len().div_ceil(COLS).max(1);
    let (width, height) = (PW * COLS as f64, TOP + PH * rows as f64);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(
        s,
        r#"<rect width="100%" height="100%" fill="white"/><text x="10" y="24" font-size="15">{}</text>"#,
        esc(title)
    );
    for (k, panel) in panels.iter().enumerate() {
        let (ox, oy) = ((k % COLS) as f64 * PW, TOP + (k / COLS) as f64 * PH);
        // Plot area inside the panel.
        let (l, r, t, b) = (ox + 45.0, ox + PW - 70.0, oy + 28.0, oy + PH - 42.0);
        let xs = panel
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.0));
        let (mut x0, mut x1) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, z), x| {
            (a.min(x), z.max(x))
        });
        if !x0.is_finite() {
            (x0, x1) = (0.0, 1.0);
        }
        if x1 <= x0 {
            (x0, x1) = (x0 - 0.5, x0 + 0.5);
        }
        let px = |x: f64| l + (x - x0) / (x1 - x0) * (r - l);
        let py = |y: f64| b - y.clamp(0.0, 1.0) * (b - t);
        let _ = writeln!(
            s,
            r#"<g><text x="{:.1}" y="{:.1}" font-size="12" font-weight="bold">{}</text>"#,
            l,
            oy + 18.0,
            esc(&panel.title)
        );
        let _ = writeln!(
            s,
            r##"<rect x="{l:.1}" y="{t:.1}" width="{:.1}" height="{:.1}" fill="none" stroke="#888"/>"##,
            r - l,
            b - t
        );
        for y in [0.0, 0.25, 0.5, 0.75, 1.0] {
            let _ = writeln!(
                s,
                r##"<line x1="{l:.1}" x2="{r:.1}" y1="{0:.1}" y2="{0:.1}" stroke="#ddd"/><text x="{1:.1}" y="{2:.1}" text-anchor="end">{y}</text>"##,
                py(y),
                l - 4.0,
                py(y) + 4.0
            );
        }
        for x in ticks(x0, x1) {
            let _ = writeln!(
                s,
                r##"<line x1="{0:.1}" x2="{0:.1}" y1="{b:.1}" y2="{1:.1}" stroke="#888"/><text x="{0:.1}" y="{2:.1}" text-anchor="middle">{3}</text>"##,
                px(x),
                b + 4.0,
                b + 15.0,
                trim_num(x)
            );
        }
        let _ = writeln!(
            s,
            r##"<text x="{:.1}" y="{:.1}" text-anchor="middle" fill="#444">{}</text>"##,
            (l + r) / 2.0,
            b + 30.0,
            esc(&panel.x_label)
        );
        for (i, series) in panel.series.iter().enumerate() {
            let pts: Vec<String> = series
                .points
                .iter()
                .map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y)))
                .collect();
            let dash = if series.dashed {
                r#" stroke-dasharray="4 3""#
            } else {
                ""
            };
            if pts.len() == 1 {
                let _ = writeln!(
                    s,
                    r#"<circle cx="{:.1}" cy="{:.1}" r="3" fill="{}"/>"#,
                    px(series.points[0].0),
                    py(series.points[0].1),
                    series.color
                );
            } else {
                let _ = writeln!(
                    s,
                    r#"<polyline fill="none" stroke="{}" stroke-width="{}"{dash} points="{}"/>"#,
                    series.color,
                    series.width,
                    pts.join(" ")
                );
            }
            let ly = t + 6.0 + 13.0 * i as f64;
            let _ = writeln!(
                s,
                r#"<line x1="{:.1}" x2="{:.1}" y1="{ly:.1}" y2="{ly:.1}" stroke="{}" stroke-width="{}"{dash}/><text x="{:.1}" y="{:.1}">{}</text>"#,
                r + 6.0,
                r + 24.0,
                series.color,
                series.width,
                r + 28.0,
                ly + 4.0,
                esc(&series.label)
            );
        }
        s.push_str("</g>\n");
    }
    s.push_str("</svg>\n");
    s
}

/// About five round tick positions across [x0, x1].
fn ticks(x0: f64, x1: f64) -> Vec<f64> {
    let span = x1 - x0;
    let raw = span / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .into_iter()
        .map(|m| m * mag)
        .find(|&s| s >= raw)
        .unwrap_or(raw);
    let mut out = Vec::new();
    let mut x = (x0 / step).ceil() * step;
    while x <= x1 + step * 1e-9 {
        out.push(x);
        x += step;
    }
    out
}

fn trim_num(x: f64) -> String {
    let s = format!("{x:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_owned()
}
