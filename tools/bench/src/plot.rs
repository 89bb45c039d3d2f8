//! `wavekit bench --plot`: GB/s against n, one panel per collective and element type, one line
//! per backend, its same-run baseline (CUB, plain atomics) and copy, as a self-contained SVG.

use crate::report::{Outcome, Row, rates};
use std::collections::BTreeMap;
use std::fmt::Write as _;

const PANEL_W: f64 = 360.0;
const PANEL_H: f64 = 240.0;
const MARGIN_L: f64 = 52.0;
const MARGIN_B: f64 = 34.0;
const MARGIN_T: f64 = 26.0;
const COLUMNS: usize = 3;
const LEGEND_H: f64 = 16.0;
const COLOURS: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf",
];

/// (series name, dashed) -> points (log2 n, GB/s).
type Series = BTreeMap<(String, bool), Vec<(f64, f64)>>;

fn panels(rows: &[Row]) -> BTreeMap<String, Series> {
    let mut out: BTreeMap<String, Series> = BTreeMap::new();
    for r in rows {
        let Outcome::Measured {
            timing,
            bytes,
            copy,
            copy_bytes,
            baseline,
            ..
        } = &r.outcome
        else {
            continue;
        };
        let x = (r.n as f64).log2();
        let (gbs, copy_gbs) = rates(timing, *bytes, copy, *copy_bytes);
        let panel = out
            .entry(format!("{} {}", r.collective, r.elem))
            .or_default();
        let mut push = |name: String, dashed: bool, y: f64| {
            panel.entry((name, dashed)).or_default().push((x, y));
        };
        push(r.backend.clone(), false, gbs);
        push(format!("{} copy", r.backend), true, copy_gbs);
        if let Some(bl) = baseline {
            push(
                format!("{} ({})", bl.name, r.backend),
                true,
                bl.timing.gb_per_s(*bytes),
            );
        }
    }
    for series in out.values_mut() {
        for pts in series.values_mut() {
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        }
    }
    out
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A "nice" upper bound for the y axis.
fn nice_max(v: f64) -> f64 {
    if v <= 0.0 {
        return 1.0;
    }
    let p = 10f64.powf(v.log10().floor());
    [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * p)
        .find(|&m| m >= v)
        .unwrap_or(10.0 * p)
}

pub fn svg(rows: &[Row]) -> String {
    let panels = panels(rows);
    let names: Vec<String> = {
        let mut all: Vec<String> = panels
            .values()
            .flat_map(|s| s.keys().map(|k| k.0.clone()))
            .collect();
        all.sort();
        all.dedup();
        all
    };
    let colour = |name: &str| {
        let i = names.iter().position(|n| n == name).unwrap_or(0);
        COLOURS[i % COLOURS.len()]
    };
    let legend_rows = names.len().div_ceil(2);
    let count = panels.len().max(1);
    let grid_rows = count.div_ceil(COLUMNS);
    let width = PANEL_W * COLUMNS as f64;
    let top = LEGEND_H * legend_rows as f64 + 28.0;
    let height = top + PANEL_H * grid_rows as f64;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(
        s,
        r##"<rect width="100%" height="100%" fill="#ffffff"/><text x="8" y="16" font-size="13">GB/s against n (log2); solid: wavekit, dashed: same-run copy and baselines</text>"##
    );
    for (i, name) in names.iter().enumerate() {
        let x = 8.0 + (i % 2) as f64 * width / 2.0;
        let y = 30.0 + (i / 2) as f64 * LEGEND_H;
        let dash = if name.ends_with(" copy") || name.contains(" (") {
            r#" stroke-dasharray="5,3""#
        } else {
            ""
        };
        let _ = writeln!(
            s,
            r#"<line x1="{x}" y1="{y}" x2="{}" y2="{y}" stroke="{}" stroke-width="2"{dash}/><text x="{}" y="{}">{}</text>"#,
            x + 24.0,
            colour(name),
            x + 30.0,
            y + 4.0,
            escape(name)
        );
    }
    for (p, (title, series)) in panels.iter().enumerate() {
        let ox = (p % COLUMNS) as f64 * PANEL_W;
        let oy = top + (p / COLUMNS) as f64 * PANEL_H;
        let pts = series.values().flatten();
        let (mut x0, mut x1, mut ymax) = (f64::MAX, f64::MIN, 0.0f64);
        for &(x, y) in pts {
            x0 = x0.min(x);
            x1 = x1.max(x);
            ymax = ymax.max(y);
        }
        if x1 <= x0 {
            x0 -= 1.0;
            x1 += 1.0;
        }
        let ymax = nice_max(ymax);
        let pw = PANEL_W - MARGIN_L - 12.0;
        let ph = PANEL_H - MARGIN_T - MARGIN_B;
        let sx = |x: f64| ox + MARGIN_L + (x - x0) / (x1 - x0) * pw;
        let sy = |y: f64| oy + MARGIN_T + ph - y / ymax * ph;
        let _ = writeln!(
            s,
            r##"<text x="{}" y="{}" font-size="12">{}</text><rect x="{}" y="{}" width="{pw}" height="{ph}" fill="none" stroke="#999"/>"##,
            ox + MARGIN_L,
            oy + 16.0,
            escape(title),
            ox + MARGIN_L,
            oy + MARGIN_T
        );
        for k in 0..=4 {
            let y = ymax * k as f64 / 4.0;
            let _ = writeln!(
                s,
                r##"<line x1="{l}" y1="{yy}" x2="{r}" y2="{yy}" stroke="#eee"/><text x="{tx}" y="{ty}" text-anchor="end">{y:.0}</text>"##,
                l = ox + MARGIN_L,
                r = ox + MARGIN_L + pw,
                yy = sy(y),
                tx = ox + MARGIN_L - 4.0,
                ty = sy(y) + 4.0
            );
        }
        let mut x = x0.ceil();
        while x <= x1 {
            let _ = writeln!(
                s,
                r#"<text x="{}" y="{}" text-anchor="middle">2^{x:.0}</text>"#,
                sx(x),
                oy + MARGIN_T + ph + 14.0
            );
            x += if x1 - x0 > 8.0 { 2.0 } else { 1.0 };
        }
        for ((name, dashed), pts) in series {
            let path: Vec<String> = pts
                .iter()
                .map(|&(x, y)| format!("{:.1},{:.1}", sx(x), sy(y)))
                .collect();
            let dash = if *dashed {
                r#" stroke-dasharray="5,3""#
            } else {
                ""
            };
            let _ = writeln!(
                s,
                r#"<polyline points="{}" fill="none" stroke="{}" stroke-width="2"{dash}/>"#,
                path.join(" "),
                colour(name)
            );
            for &(x, y) in pts {
                let _ = writeln!(
                    s,
                    r#"<circle cx="{:.1}" cy="{:.1}" r="2.5" fill="{}"/>"#,
                    sx(x),
                    sy(y),
                    colour(name)
                );
            }
        }
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timing::{Baseline, Timing};
    use std::time::Duration;

    fn row(collective: &'static str, n: usize, ms: u64, baseline: bool) -> Row {
        let t = Timing::new(vec![Duration::from_millis(ms)]);
        Row {
            collective,
            elem: "f32",
            n,
            backend: "cuda:0".into(),
            outcome: Outcome::Measured {
                timing: t.clone(),
                bytes: 1_000_000,
                copy: t.clone(),
                copy_bytes: 1_000_000,
                read: None,
                baseline: baseline.then_some(Baseline {
                    name: "CUB",
                    timing: t,
                }),
            },
        }
    }

    #[test]
    fn one_panel_per_collective_with_a_line_per_series() {
        let rows = vec![
            row("reduce sum", 1 << 16, 1, true),
            row("reduce sum", 1 << 20, 2, true),
            row("scan inclusive sum", 1 << 16, 1, false),
            Row {
                collective: "scan inclusive sum",
                elem: "f32",
                n: 1 << 20,
                backend: "cuda:0".into(),
                outcome: Outcome::Wrong("x".into()),
            },
        ];
        let svg = svg(&rows);
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains(">reduce sum f32<") && svg.contains(">scan inclusive sum f32<"));
        // reduce: wavekit, copy, CUB; scan: wavekit, copy (the refused row draws nothing).
        assert_eq!(svg.matches("<polyline").count(), 5, "{svg}");
        assert!(svg.contains("CUB (cuda:0)"));
        assert_eq!(svg.matches("<circle").count(), 3 * 2 + 2);
    }

    #[test]
    fn axis_bounds_are_round() {
        assert_eq!(nice_max(3.2), 5.0);
        assert_eq!(nice_max(1800.0), 2000.0);
        assert_eq!(nice_max(0.0), 1.0);
    }
}
