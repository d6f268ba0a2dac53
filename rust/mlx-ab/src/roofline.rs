//! `mlx-ab roofline`: the sorted gather_qmm points (and the dense qmm points at the same flops)
//! of `mlx-ab ops` reports against a machine's limits. Achieved bandwidth is the fewest bytes a
//! call must move (every expert's packed weights with their scales and biases once, or the one
//! expert's for qmm, x read once, the output written once) over its median time; the arithmetic
//! rate is the point's 2*M*N*K over the same time. Written as a table and as `roofline.json`,
//! naming the patch series the arms ran. A point of another activation dtype than bf16 (`mlx-ab
//! ops --dtypes`) is a row of its own, its dtype in the label and its bytes those of the dtype;
//! its rate is still set against the bf16 limit. A point timed at more than one graph size
//! (`mlx-ab ops --rows-per-graph`) is also split into a cost per call and a cost per evaluated
//! graph (`graph_cost`).

use crate::book_sources::{self, read_json, SeriesFile};
use mlx_ab_protocol::ops::QUANTIZED_DTYPE;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// op-bench's default gather_qmm shape (Qwen3-30B-A3B's experts: E, H, W); a point's `shape`
/// overrides it.
const DEFAULT_SHAPE: [u64; 3] = crate::ops_points::QWEN3_30B_A3B;

/// Bits per weight and bytes of scale (and bias) data per weight of a quantization mode, whose
/// weights were quantized from `element` bytes floats (op-bench: the activations' dtype).
fn format(mode: &str, element: f64) -> Option<(f64, f64)> {
    match mode {
        // a scale and a bias of the weights' dtype per group of 64
        "affine4" => Some((4.0, 2.0 * element / 64.0)),
        // one 8-bit scale per 32 (mx) or 16 (nv) weights
        "mxfp4" => Some((4.0, 1.0 / 32.0)),
        "nvfp4" => Some((4.0, 1.0 / 16.0)),
        "mxfp8" => Some((8.0, 1.0 / 32.0)),
        _ => None,
    }
}

#[derive(Deserialize)]
struct Report {
    results: Vec<Point>,
}

#[derive(Deserialize)]
struct Point {
    op: String,
    #[serde(default)]
    mode: String,
    #[serde(default)]
    proj: String,
    #[serde(default)]
    rows_per_expert: u64,
    shape: Option<[u64; 3]>,
    /// Skewed loads (absent: uniform).
    #[serde(default)]
    routing: Option<String>,
    /// The activations' dtype (absent: bf16).
    #[serde(default)]
    dtype: Option<String>,
    /// Calls evaluated as one graph per timing (absent in files from before it: one).
    #[serde(default = "one_call")]
    calls: u64,
    a_seconds: f64,
    b_seconds: f64,
    flops: f64,
    identical: bool,
    /// Each arm's distance from float32 arithmetic (absent in files from before it).
    #[serde(default)]
    a_reference_error: Option<f64>,
    #[serde(default)]
    b_reference_error: Option<f64>,
}

/// Bytes per element of an activation dtype (`None`: bf16).
fn element_bytes(dtype: Option<&str>) -> Option<f64> {
    match dtype.unwrap_or(QUANTIZED_DTYPE) {
        "bfloat16" | "float16" => Some(2.0),
        "float32" => Some(4.0),
        _ => None,
    }
}

/// The bytes one call must move: activations (`dtype`; `None`: bf16) in and out, every expert's
/// weights once (`gather_qmm`) or one expert's (`qmm`, the same rows against one matrix).
fn bytes_moved(
    op: &str,
    mode: &str,
    proj: &str,
    rows_per_expert: u64,
    [experts, hidden, width]: [u64; 3],
    dtype: Option<&str>,
) -> Option<f64> {
    let element = element_bytes(dtype)?;
    let (bits, scale_bytes) = format(mode, element)?;
    let (n, k) = if proj == "up" { (width, hidden) } else { (hidden, width) };
    let rows = (experts * rows_per_expert) as f64;
    let matrices = match op {
        "gather_qmm" => experts,
        "qmm" => 1,
        _ => return None,
    };
    let weights = (matrices * n * k) as f64 * (bits / 8.0 + scale_bytes);
    Some(weights + rows * k as f64 * element + rows * n as f64 * element)
}

fn one_call() -> u64 {
    1
}

#[derive(Serialize)]
struct Roofline {
    series: Vec<SeriesFile>,
    commit: String,
    machine: String,
    sources: Vec<String>,
    /// The machine's limits the percentages use.
    limits: Limits,
    points: Vec<RooflinePoint>,
    /// Points timed at more than one graph size, each time per call split as K + P / calls.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    graph_costs: Vec<GraphCost>,
}

#[derive(Serialize)]
struct GraphCost {
    op: String,
    mode: String,
    proj: String,
    rows_per_expert: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    dtype: Option<String>,
    arm: &'static str,
    /// The graph sizes the fit used.
    calls_per_graph: Vec<u64>,
    /// K: each call's own time.
    ms_per_call: f64,
    /// P: each evaluated graph's (its evaluation, launch and wait), shared by its calls.
    ms_per_graph: f64,
    /// The point's flops over K (none where K is not positive).
    #[serde(skip_serializing_if = "Option::is_none")]
    tflops_per_call: Option<f64>,
}

impl RooflinePoint {
    /// The point's name in the tables: op, mode, projection, rows per expert, dtype if not bf16.
    fn label(&self) -> String {
        let dtype = self.dtype.as_ref().map(|d| format!(" {d}")).unwrap_or_default();
        format!("{} {} {} r={}{dtype}", self.op, self.mode, self.proj, self.rows_per_expert)
    }
}

/// Each point timed at more than one graph size, split by `graph_cost::split`, with its table.
fn graph_costs(points: &[RooflinePoint]) -> (Vec<GraphCost>, String) {
    let mut groups: BTreeMap<_, Vec<&RooflinePoint>> = BTreeMap::new();
    for p in points {
        groups
            .entry((&p.op, &p.mode, &p.proj, p.rows_per_expert, &p.dtype, p.arm))
            .or_default()
            .push(p);
    }
    let mut table = String::from(
        "| point | arm | calls per graph | K: ms per call | P: ms per graph | TFLOP/s at K |\n\
         |---|---|---|---:|---:|---:|\n",
    );
    let mut costs = Vec::new();
    for ((op, mode, proj, rows, dtype, arm), group) in groups {
        let samples: Vec<(u64, f64)> = group.iter().map(|p| (p.calls_per_graph, p.ms)).collect();
        let Some((k, p)) = crate::graph_cost::split(&samples) else { continue };
        let flops = group[0].tflops * group[0].ms * 1e9;
        let cost = GraphCost {
            op: op.clone(),
            mode: mode.clone(),
            proj: proj.clone(),
            rows_per_expert: rows,
            dtype: dtype.clone(),
            arm,
            calls_per_graph: samples.iter().map(|s| s.0).collect(),
            ms_per_call: k,
            ms_per_graph: p,
            tflops_per_call: (k > 0.0).then(|| flops / (k * 1e-3) / 1e12),
        };
        let sizes: Vec<String> = cost.calls_per_graph.iter().map(u64::to_string).collect();
        let _ = writeln!(
            table,
            "| {} | {arm} | {} | {k:.4} | {p:.4} | {} |",
            group[0].label(),
            sizes.join(", "),
            cost.tflops_per_call.map(|t| format!("{t:.1}")).unwrap_or_else(|| "-".into()),
        );
        costs.push(cost);
    }
    (costs, table)
}

#[derive(Serialize, Clone, Copy)]
struct Limits {
    tbps: f64,
    tflops: f64,
}

#[derive(Serialize)]
struct RooflinePoint {
    /// `gather_qmm`, or `qmm`: dense quantized_matmul at the same flops (one expert's weights).
    op: String,
    mode: String,
    proj: String,
    rows_per_expert: u64,
    /// Calls evaluated as one graph per timing: with more, a graph's evaluation and
    /// synchronization weigh less in each call's time (`mlx-ab ops --rows-per-graph`), so one
    /// point measured both ways is two points.
    calls_per_graph: u64,
    /// The activations' dtype when not bf16 (a point of its own: never merged with bf16's).
    #[serde(skip_serializing_if = "Option::is_none")]
    dtype: Option<String>,
    /// `stock` (arm A) or `patched` (arm B: the patches `b_patches` names).
    arm: &'static str,
    b_patches: String,
    ms: f64,
    tbps: f64,
    tflops: f64,
    bit_identical: Identity,
    /// This arm's ||y - r|| / ||r|| against float32 arithmetic, where measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    reference_error: Option<f64>,
}

/// `true` when both arms' outputs had the same bits; otherwise `"tolerance"` where the arm's
/// distance from float32 arithmetic was measured (`reference_error`), else `false`.
#[derive(Serialize, Clone, Copy, PartialEq, Debug)]
#[serde(untagged)]
enum Identity {
    Bits(bool),
    Tolerance(&'static str),
}

impl Identity {
    fn of(identical: bool, reference_error: Option<f64>) -> Identity {
        match (identical, reference_error) {
            (true, _) => Identity::Bits(true),
            (false, Some(_)) => Identity::Tolerance("tolerance"),
            (false, None) => Identity::Bits(false),
        }
    }
}

pub fn main(
    root: &Path,
    files: &[PathBuf],
    limits: (f64, f64),
    json: Option<&Path>,
) -> Result<(), String> {
    let limits = Limits { tbps: limits.0, tflops: limits.1 };
    let mut out: Option<Roofline> = None;
    let mut table = String::from(
        "| point | arm | ms | TB/s | % of bandwidth | TFLOP/s | % of bf16 rate | bit-identical |\n\
         |---|---|---:|---:|---:|---:|---:|---|\n",
    );
    for file in files {
        let relative = file.strip_prefix(root).unwrap_or(file);
        let (entry, series) = book_sources::entry_of(root, relative)?;
        let roofline = out.get_or_insert_with(|| Roofline {
            series: series.patches.iter().map(SeriesFile::from).collect(),
            commit: entry.commit.clone(),
            machine: entry.machine.clone(),
            sources: Vec::new(),
            limits,
            points: Vec::new(),
            graph_costs: Vec::new(),
        });
        if roofline.commit != entry.commit || roofline.machine != entry.machine {
            return Err(format!(
                "{}: commit {} on {}, but the first file's is {} on {}: one roofline per series and machine",
                relative.display(), entry.commit, entry.machine, roofline.commit, roofline.machine
            ));
        }
        roofline.sources.push(relative.display().to_string());
        let report: Report = read_json(&root.join(relative))?;
        // Uniform loads only: under skewed ones the experts left without rows move no weights,
        // so every expert's bytes would overstate the rate.
        let uniform = |p: &&Point| p.routing.is_none();
        for p in
            report.results.iter().filter(|p| p.op == "gather_qmm" || p.op == "qmm").filter(uniform)
        {
            let shape = p.shape.unwrap_or(DEFAULT_SHAPE);
            let dtype = p.dtype.as_deref();
            let bytes = bytes_moved(&p.op, &p.mode, &p.proj, p.rows_per_expert, shape, dtype)
                .ok_or_else(|| {
                    let what =
                        format!("mode {} dtype {}", p.mode, dtype.unwrap_or(QUANTIZED_DTYPE));
                    format!("{}: unknown {what}", relative.display())
                })?;
            for (arm, seconds, reference_error) in [
                ("stock", p.a_seconds, p.a_reference_error),
                ("patched", p.b_seconds, p.b_reference_error),
            ] {
                let point = RooflinePoint {
                    op: p.op.clone(),
                    mode: p.mode.clone(),
                    proj: p.proj.clone(),
                    rows_per_expert: p.rows_per_expert,
                    calls_per_graph: p.calls,
                    dtype: p.dtype.clone(),
                    arm,
                    b_patches: entry.b.clone().unwrap_or_else(|| "all".into()),
                    ms: seconds * 1e3,
                    tbps: bytes / seconds / 1e12,
                    tflops: p.flops / seconds / 1e12,
                    bit_identical: Identity::of(p.identical, reference_error),
                    reference_error,
                };
                let _ = writeln!(
                    table,
                    "| {}, {} per graph | {arm} | {:.3} | {:.2} | {:.0}% | {:.1} | {:.1}% | {} |",
                    point.label(),
                    point.calls_per_graph,
                    point.ms,
                    point.tbps,
                    100.0 * point.tbps / limits.tbps,
                    point.tflops,
                    100.0 * point.tflops / limits.tflops,
                    match (point.bit_identical, point.reference_error) {
                        (Identity::Bits(true), _) => "yes".to_string(),
                        (_, Some(e)) => format!("NO: {e:.2e} from float32"),
                        _ => "NO".to_string(),
                    }
                );
                roofline.points.push(point);
            }
        }
    }
    let mut roofline = out.ok_or("no report given")?;
    print!("{table}");
    let (costs, cost_table) = graph_costs(&roofline.points);
    if !costs.is_empty() {
        print!(
            "\nTime per call = K + P / calls per graph, where a point was timed at more than one \
             graph size (least squares in 1 / calls; an inference, not a measurement):\n\n{cost_table}"
        );
    }
    roofline.graph_costs = costs;
    if let Some(path) = json {
        let text = serde_json::to_string_pretty(&roofline).map_err(|e| e.to_string())?;
        std::fs::write(path, text + "\n")
            .map_err(|e| format!("writing {}: {e}", path.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_of_a_decode_call_are_mostly_weights() {
        // affine4 up, 1 row per expert, 128 experts of 768 x 2048: 4 bits + 1/16 byte per weight.
        let weights = 128.0 * 768.0 * 2048.0 * (0.5 + 0.0625);
        let activations = 128.0 * 2048.0 * 2.0 + 128.0 * 768.0 * 2.0;
        let gather = |mode, proj| bytes_moved("gather_qmm", mode, proj, 1, DEFAULT_SHAPE, None);
        assert_eq!(gather("affine4", "up"), Some(weights + activations));
        // The down projection reads the transposed matrix: same weights, other activations.
        let down = gather("affine4", "down").unwrap();
        assert_eq!(down, weights + 128.0 * 768.0 * 2.0 + 128.0 * 2048.0 * 2.0);
        assert!(gather("mxfp8", "up").unwrap() > weights * 1.7);
        assert_eq!(gather("int3", "up"), None);
        // The dense product at the same flops reads one expert's matrix.
        let dense = bytes_moved("qmm", "affine4", "up", 1, DEFAULT_SHAPE, None);
        assert_eq!(dense, Some(weights / 128.0 + activations));
        assert_eq!(bytes_moved("sdpa", "affine4", "up", 1, DEFAULT_SHAPE, None), None);
        // float32: activations twice the bytes, and affine's scales and biases too (quantized
        // from float32 weights); an fp mode's 8-bit scales stay.
        let f32 = |mode| bytes_moved("gather_qmm", mode, "up", 1, DEFAULT_SHAPE, Some("float32"));
        let f32_weights = 128.0 * 768.0 * 2048.0 * (0.5 + 0.125);
        assert_eq!(f32("affine4"), Some(f32_weights + 2.0 * activations));
        let mxfp4 = gather("mxfp4", "up").unwrap();
        assert_eq!(f32("mxfp4"), Some(mxfp4 + activations));
        let named = |dtype| bytes_moved("qmm", "affine4", "up", 1, DEFAULT_SHAPE, Some(dtype));
        assert_eq!((named("bfloat16"), named("float64")), (dense, None));
    }

    #[test]
    fn points_at_two_graph_sizes_split_into_call_and_graph() {
        let point = |arm, rows, calls, ms| RooflinePoint {
            op: "gather_qmm".into(),
            mode: "affine4".into(),
            proj: "up".into(),
            rows_per_expert: rows,
            calls_per_graph: calls,
            dtype: None,
            arm,
            b_patches: "all".into(),
            ms,
            tbps: 0.0,
            // 1 GFLOP a call
            tflops: 1e9 / (ms * 1e-3) / 1e12,
            bit_identical: Identity::Bits(true),
            reference_error: None,
        };
        let points = [
            point("patched", 128, 1, 0.45),
            point("stock", 128, 1, 10.0),
            point("patched", 128, 8, 0.15 + 0.3 / 8.0),
            point("patched", 256, 1, 0.5),
        ];
        let (costs, table) = graph_costs(&points);
        // Only patched at 128 rows was timed at two graph sizes.
        assert_eq!(costs.len(), 1, "{table}");
        let c = &costs[0];
        assert_eq!(
            (c.arm, c.rows_per_expert, c.calls_per_graph.clone()),
            ("patched", 128, vec![1, 8])
        );
        assert!((c.ms_per_call - 0.15).abs() < 1e-9 && (c.ms_per_graph - 0.3).abs() < 1e-9);
        assert!((c.tflops_per_call.unwrap() - 1e9 / 0.15e-3 / 1e12).abs() < 1e-6);
        assert!(
            table.contains(
                "| gather_qmm affine4 up r=128 | patched | 1, 8 | 0.1500 | 0.3000 | 6.7 |"
            ),
            "{table}"
        );
    }

    #[test]
    fn identity_is_bits_or_a_measured_tolerance() {
        let json = |i| serde_json::to_string(&i).unwrap();
        assert_eq!(json(Identity::of(true, Some(1e-3))), "true");
        assert_eq!(json(Identity::of(false, Some(1e-3))), r#""tolerance""#);
        // Bits that differ with no distance measured claim nothing.
        assert_eq!(json(Identity::of(false, None)), "false");
    }
}
