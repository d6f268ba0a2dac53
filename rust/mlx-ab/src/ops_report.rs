//! What `mlx-ab ops` writes: per point the fields scripts/op_ab.py wrote (every reader of its
//! JSON, the book and op-plots among them, reads these), the run's meta with which tool and
//! statistics made it, and the Markdown table.

use crate::ops_points::Point;
use crate::stats::PairedTimes;
use serde::Serialize;

pub const TOOL: &str = "mlx-ab ops";

#[derive(Debug, Clone, Serialize)]
pub struct Times {
    pub a: Vec<f64>,
    pub b: Vec<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct PointResult {
    #[serde(flatten)]
    pub point: Point,
    /// Each arm's median seconds per call and the pairs' A/B ratio.
    #[serde(flatten)]
    pub timing: PairedTimes,
    /// Every reply of both arms had the same output digest.
    pub identical: bool,
    pub a_tflops: f64,
    pub b_tflops: f64,
    /// B's rate over the fewest bytes a kernel must move; none for ops without that model
    /// (softmax has one).
    pub b_gbps: Option<f64>,
    pub a_peak_bytes: u64,
    pub b_peak_bytes: u64,
    /// Quantized products: each arm's largest ||y - r|| / ||r|| against float32 arithmetic
    /// (`mlx_ab_protocol::ops::Timing::reference_error`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub a_reference_error: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub b_reference_error: Option<f64>,
    /// Each arm's median over its replies of the host's seconds per call
    /// (`mlx_ab_protocol::ops::Timing::host_seconds_per_call`); none from older workers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub a_host_seconds: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub b_host_seconds: Option<f64>,
    /// Seconds per call of each pair, in pair order.
    pub times: Times,
}

#[derive(Debug, Clone, Serialize)]
pub struct Meta {
    pub a: String,
    pub b: String,
    /// Environment variables set for one arm's workers alone, `KEY=VALUE`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub a_env: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub b_env: Vec<String>,
    pub pairs: usize,
    pub reps: usize,
    pub points_planned: usize,
    pub points_run: usize,
    pub date: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped_by: Option<String>,
    /// What made the file and how: op_ab.py's files have none of these (2,000 resamples, index
    /// quantiles, ABBA pairs).
    pub tool: &'static str,
    pub bootstrap_resamples: usize,
    pub bootstrap_seed: u64,
    pub quantiles: &'static str,
    /// The measured slots of every point, e.g. `ABBABAAB`.
    pub order: String,
    /// Each pair timed in worker processes of its own (`--fresh-workers`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub fresh_workers: bool,
    /// gather_qmm's and qmm's calls per timed graph make this many rows per expert
    /// (`--rows-per-graph`; each point's `calls` says how many calls that was).
    pub rows_per_graph: u64,
}

#[derive(Serialize)]
pub struct Report<'a> {
    pub meta: &'a Meta,
    pub results: &'a [PointResult],
}

/// Python's `{:.3g}`: three significant digits, trailing zeros dropped.
pub fn three_significant(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let exponent = x.abs().log10().floor() as i32;
    if !(-4..3).contains(&exponent) {
        let s = format!("{x:.2e}");
        let (mantissa, power) = s.split_once('e').unwrap();
        let mantissa = mantissa.trim_end_matches('0').trim_end_matches('.');
        let power: i32 = power.parse().unwrap();
        return format!("{mantissa}e{}{:02}", if power < 0 { '-' } else { '+' }, power.abs());
    }
    let s = format!("{x:.*}", (2 - exponent) as usize);
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// The line printed as each point finishes.
pub fn progress_line(r: &PointResult, seconds: f64) -> String {
    format!(
        "{}: A {:.4} ms, B {:.4} ms, A/B {:.3} [{:.3}, {:.3}] identical={} ({seconds:.1}s)",
        r.point.label(),
        r.timing.a_seconds * 1e3,
        r.timing.b_seconds * 1e3,
        r.timing.ratio,
        r.timing.ci[0],
        r.timing.ci[1],
        if r.identical { "True" } else { "False" }
    )
}

/// ` with `K=V`, `K2=V2``: an arm's own environment, or nothing.
pub(crate) fn with_env(env: &[String]) -> String {
    if env.is_empty() {
        return String::new();
    }
    let list: Vec<String> = env.iter().map(|e| format!("`{e}`")).collect();
    format!(" with {}", list.join(", "))
}

pub fn markdown(results: &[PointResult], meta: &Meta) -> String {
    let stopped =
        meta.stopped_by.as_ref().map(|s| format!(" (stopped by {s})")).unwrap_or_default();
    let mut lines = vec![
        format!(
            "A: `{}`{}  B: `{}`{}  pairs: {}{}, reps per request: {}, points: {} of {}{stopped}. Ratio = \
             A time / B time (above 1: B faster), median of pairs [95% bootstrap] and its exact interval \
             (order statistics, coverage in parentheses: distribution-free, where a bootstrap of \
             few pairs is too narrow); identical: \
             output bits equal in every reply of both arms; graph points: ms per node; host \
             ms/call: until MLX returned from `async_eval` (near the whole, the host bounds it). \
             Statistics: {} ({} bootstrap resamples, {} quantiles; pair order {}).{}",
            meta.a,
            with_env(&meta.a_env),
            meta.b,
            with_env(&meta.b_env),
            meta.pairs,
            if meta.fresh_workers { " (each in worker processes of its own)" } else { "" },
            meta.reps,
            meta.points_run,
            meta.points_planned,
            meta.tool,
            meta.bootstrap_resamples,
            meta.quantiles,
            meta.order,
            if meta.rows_per_graph == crate::ops_points::ROWS_PER_GRAPH {
                String::new()
            } else {
                format!(
                    " Calls per graph: as many as make {} rows per expert (`--rows-per-graph`), \
                     not the default {}.",
                    meta.rows_per_graph,
                    crate::ops_points::ROWS_PER_GRAPH
                )
            }
        ),
        String::new(),
        "| point | A ms/call | B ms/call | A/B | 95% CI | exact CI | B faster/slower (p) | A TFLOP/s | B GB/s (fewest bytes) | host ms/call A / B | identical |".into(),
        "|---|---:|---:|---:|---|---|---|---:|---:|---:|---|".into(),
    ];
    let ms = |s: Option<f64>| s.map_or("-".into(), |s| format!("{:.4}", s * 1e3));
    for r in results {
        lines.push(format!(
            "| {} | {} | {:.2} | {} | {} / {} | {} |",
            r.point.label(),
            timing_cells(&r.timing),
            r.a_tflops,
            r.b_gbps.map_or("-".into(), |g| format!("{g:.1}")),
            ms(r.a_host_seconds),
            ms(r.b_host_seconds),
            identity(r)
        ));
    }
    lines.join("\n") + "\n"
}

/// The cells `A ms | B ms | A/B | 95% CI | exact CI | B faster/slower (p)` of a table row.
pub fn timing_cells(t: &PairedTimes) -> String {
    format!(
        "{:.4} | {:.4} | {:.3} | [{:.3}, {:.3}] | [{:.3}, {:.3}] ({:.1}%) | {}/{} (p = {})",
        t.a_seconds * 1e3,
        t.b_seconds * 1e3,
        t.ratio,
        t.ci[0],
        t.ci[1],
        t.ci_exact[0],
        t.ci_exact[1],
        100.0 * t.ci_exact_coverage,
        t.b_faster,
        t.a_faster,
        three_significant(t.p)
    )
}

/// "yes", or "**NO**" with each arm's distance from float32 arithmetic where measured.
fn identity(r: &PointResult) -> String {
    if r.identical {
        return "yes".into();
    }
    match (r.a_reference_error, r.b_reference_error) {
        (Some(a), Some(b)) => format!("**NO** (against float32: A {a:.2e}, B {b:.2e})"),
        _ => "**NO**".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::three_significant;

    #[test]
    fn three_significant_digits_like_python() {
        // Python: f"{x:.3g}" for each.
        for (x, text) in [
            (1.0, "1"),
            (0.03125, "0.0312"),
            (0.0078125, "0.00781"),
            (0.109375, "0.109"),
            (0.5, "0.5"),
            (2e-5, "2e-05"),
            (123456.0, "1.23e+05"),
            (0.0, "0"),
        ] {
            assert_eq!(three_significant(x), text, "{x}");
        }
    }
}
