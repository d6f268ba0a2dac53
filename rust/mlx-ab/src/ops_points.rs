//! The points of an `mlx-ab ops` sweep: the op each times (`mlx_ab_protocol::ops`) and the work
//! it does (flops, fewest bytes), for the rates in the report. Points, order and
//! fields are those of the retired scripts/op_ab.py, so old and new reports line up.

use mlx_ab_protocol::ops::{Attention, Op, Quantized};
use mlx_ab_protocol::routing::Routing;
use serde::Serialize;

/// The fp modes first: only they take the sorted-rhs kernel whose tile the patch changes on CUDA;
/// affine takes qmm_sm80 in both builds (a control).
pub const MODES: [&str; 4] = ["mxfp4", "nvfp4", "mxfp8", "affine4"];
pub const ROWS_PER_EXPERT: [u64; 9] = [1, 2, 4, 8, 16, 32, 64, 128, 256];
/// Rows per expert per timed graph, in calls of a point's rows: enough calls that one timing
/// spans milliseconds, not launch latency.
pub const ROWS_PER_GRAPH: u64 = 32;
pub use mlx_ab_protocol::ops::QWEN3_30B_A3B;
pub const PROJECTIONS: [&str; 2] = ["up", "down"];
/// op-bench's attention head dimension.
const HEAD_DIM: u64 = 128;
/// Causal SDPA points: dtype, heads, queries, keys.
pub const SDPA: [(&str, u64, u64, u64); 6] = [
    ("float32", 8, 2048, 2048),
    ("float32", 8, 8192, 8192),
    ("float32", 8, 512, 8192),
    ("float32", 8, 512, 32768),
    ("float32", 1, 32768, 32768),
    ("bfloat16", 8, 8192, 8192),
];
/// Graph points (op-bench's `graph`, on the CPU): shape, nodes (layers for `decode`).
pub const GRAPHS: [(&str, u64); 7] = [
    ("chain", 1000),
    ("chain", 10000),
    ("chain", 50000),
    ("fanin", 10000),
    ("fanin", 50000),
    ("multiout", 10000),
    ("streams", 10000),
];
/// Training-step points (op-bench's `sdpa_grad`, on the CPU): mask, heads, length, head dim.
/// The `array` mask runs stock MLX's chain in any build: a control beside `causal`.
pub const SDPA_GRAD: [(&str, u64, u64, u64); 3] =
    [("causal", 8, 1024, 64), ("causal", 8, 256, 64), ("array", 8, 1024, 64)];
/// Causal softmax stage points: heads, queries, keys.
pub const SOFTMAX_SHAPES: [[u64; 3]; 5] =
    [[8, 2048, 2048], [8, 8192, 8192], [1, 32768, 32768], [8, 512, 8192], [8, 512, 32768]];

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Sweep {
    #[value(name = "gather_qmm")]
    GatherQmm,
    /// Dense quantized_matmul at gather_qmm's flops (one expert's weights): the rate MLX
    /// reaches on these shapes without the gather.
    Qmm,
    Sdpa,
    Softmax,
    /// A graph's cost per node of building and evaluating it (the eval walk), on the CPU.
    Graph,
    /// A causal-attention training step (forward and backward), on the CPU.
    #[value(name = "sdpa_grad")]
    SdpaGrad,
    /// gather_qmm, sdpa and softmax: the sweeps that run on a GPU too.
    All,
}

/// What to sweep (the `mlx-ab ops` options that choose points).
#[derive(Debug, Clone)]
pub struct SweepOptions {
    /// The sweeps to run, in this order (`All` stands for gather_qmm, sdpa and softmax).
    pub sweeps: Vec<Sweep>,
    pub modes: Vec<String>,
    pub gather_shape: [u64; 3],
    pub rows: Vec<u64>,
    /// gather_qmm's and qmm's calls per timed graph: as many as make this many rows per expert
    /// in all, at least one.
    pub rows_per_graph: u64,
    /// gather_qmm's expert loads (qmm has no experts: uniform only).
    pub routings: Vec<Routing>,
    /// gather_qmm's and qmm's activation dtypes.
    pub dtypes: Vec<String>,
    pub softmax_shapes: Vec<[u64; 3]>,
    /// Keep only the points whose label contains this text.
    pub only: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Kind {
    Gather {
        mode: String,
        proj: String,
        /// The mean: `routing` says how the rows spread.
        rows_per_expert: u64,
        /// Absent: uniform (every report before skewed loads).
        #[serde(skip_serializing_if = "Option::is_none")]
        routing: Option<String>,
        /// The activations' dtype; absent: bf16 (every report before dtypes).
        #[serde(skip_serializing_if = "Option::is_none")]
        dtype: Option<String>,
    },
    Attention {
        dtype: String,
        heads: u64,
        q_len: u64,
        kv_len: u64,
    },
    /// `graph`, not `shape`: a point's `shape` is gather_qmm's.
    Graph {
        graph: String,
        nodes: u64,
    },
    TrainStep {
        mask: String,
        heads: u64,
        len: u64,
        head_dim: u64,
    },
}

/// One point, serialized with the field names op_ab.py wrote.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Point {
    pub op: String,
    #[serde(flatten)]
    pub kind: Kind,
    /// What the worker times.
    #[serde(skip)]
    pub request: Op,
    /// `request` in words (`Op`'s Display), the key of the point in every report.
    pub args: String,
    /// Independent calls evaluated as one graph per timing.
    pub calls: u64,
    pub flops: u64,
    /// Softmax only: the fewest bytes a kernel must move.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes: Option<i64>,
    /// gather_qmm and qmm only, when not the default shape.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shape: Option<[u64; 3]>,
}

impl Point {
    /// What `--only` matches and the report prints.
    pub fn label(&self) -> String {
        match &self.kind {
            Kind::Gather { mode, proj, rows_per_expert, routing, dtype } => {
                let shape =
                    self.shape.map(|[e, h, w]| format!(" E={e} H={h} W={w}")).unwrap_or_default();
                let word =
                    |w: &Option<String>| w.as_ref().map(|w| format!(" {w}")).unwrap_or_default();
                let (routing, dtype) = (word(routing), word(dtype));
                format!("{} {mode} {proj} r={rows_per_expert}{shape}{routing}{dtype}", self.op)
            }
            Kind::Attention { dtype, heads, q_len, kv_len } => {
                format!("{} {dtype} H={heads} q={q_len} kv={kv_len}", self.op)
            }
            Kind::Graph { graph, nodes } => format!("graph {graph} n={nodes}"),
            Kind::TrainStep { mask, heads, len, head_dim } => {
                format!("sdpa_grad {mask} H={heads} L={len} D={head_dim}")
            }
        }
    }
}

/// `op` is `gather_qmm` or `qmm` (op-bench takes the same arguments for both, less the
/// routing: qmm's points are uniform only). Dtype-major: each dtype's points in the order of a
/// bf16 sweep.
pub fn gather_points(
    op: &str,
    modes: &[String],
    shape: [u64; 3],
    rows: &[u64],
    rows_per_graph: u64,
    routings: &[Routing],
    dtypes: &[String],
) -> Vec<Point> {
    let [experts, hidden, width] = shape;
    let routings = if op == "qmm" { &[Routing::Uniform][..] } else { routings };
    let mut points = Vec::new();
    for (dtype, mode) in dtypes.iter().flat_map(|d| modes.iter().map(move |m| (d, m))) {
        for proj in PROJECTIONS {
            for &routing in routings {
                for &r in rows {
                    let skewed = (routing != Routing::Uniform).then(|| routing.word().to_string());
                    let q = Quantized {
                        mode: mode.clone(),
                        proj: proj.into(),
                        rows_per_expert: r,
                        shape,
                        routing,
                        dtype: dtype.clone(),
                    };
                    let named = q.named_dtype().map(String::from);
                    let request = if op == "qmm" { Op::Qmm(q) } else { Op::GatherQmm(q) };
                    points.push(Point {
                        op: op.into(),
                        kind: Kind::Gather {
                            mode: mode.clone(),
                            proj: proj.into(),
                            rows_per_expert: r,
                            routing: skewed,
                            dtype: named,
                        },
                        args: request.to_string(),
                        request,
                        calls: (rows_per_graph / r).max(1),
                        flops: 2 * experts * r * hidden * width,
                        bytes: None,
                        shape: (shape != QWEN3_30B_A3B).then_some(shape),
                    });
                }
            }
        }
    }
    points
}

/// A point timed one call per graph, with no work figures (callers add flops or bytes).
fn single_call(kind: Kind, request: Op) -> Point {
    let (op, args) = (request.name().into(), request.to_string());
    Point { op, kind, request, args, calls: 1, flops: 0, bytes: None, shape: None }
}

fn attention(op: &str, dtype: &str, heads: u64, q_len: u64, kv_len: u64) -> Point {
    let kind = Kind::Attention { dtype: dtype.into(), heads, q_len, kv_len };
    let a = Attention { dtype: dtype.into(), heads, q_len, kv_len };
    single_call(kind, if op == "sdpa" { Op::Sdpa(a) } else { Op::Softmax(a) })
}

pub fn sdpa_points() -> Vec<Point> {
    SDPA.iter()
        .map(|&(dtype, heads, q, kv)| Point {
            flops: 4 * heads * q * kv * HEAD_DIM,
            ..attention("sdpa", dtype, heads, q, kv)
        })
        .collect()
}

/// The causal softmax stage alone, on held float32 scores. Bytes: the visible scores read once
/// and every output written once. Query i sees min(kv, i + kv - q + 1) keys (summed as op_ab.py
/// did, so a q > kv point gives the same figure).
pub fn softmax_points(shapes: &[[u64; 3]]) -> Vec<Point> {
    shapes
        .iter()
        .map(|&[heads, q, kv]| {
            let (qi, kvi) = (q as i64, kv as i64);
            let visible: i64 = (0..qi).map(|i| kvi.min(i + kvi - qi + 1)).sum();
            Point {
                bytes: Some(4 * heads as i64 * (visible + qi * kvi)),
                ..attention("softmax", "float32", heads, q, kv)
            }
        })
        .collect()
}

/// One point per graph: seconds per node, so no flops.
pub fn graph_points() -> Vec<Point> {
    GRAPHS
        .iter()
        .map(|&(shape, nodes)| {
            let kind = Kind::Graph { graph: shape.into(), nodes };
            single_call(kind, Op::Graph { graph: shape.into(), nodes })
        })
        .collect()
}

pub fn sdpa_grad_points() -> Vec<Point> {
    SDPA_GRAD
        .iter()
        .map(|&(mask, heads, len, head_dim)| {
            let kind = Kind::TrainStep { mask: mask.into(), heads, len, head_dim };
            single_call(kind, Op::SdpaGrad { mask: mask.into(), heads, len, head_dim })
        })
        .collect()
}

/// Every point of the sweeps, in their order (`all`: gather_qmm, then sdpa, then softmax).
pub fn points(o: &SweepOptions) -> Vec<Point> {
    let mut points = Vec::new();
    for sweep in &o.sweeps {
        match sweep {
            Sweep::GatherQmm | Sweep::Qmm => points.extend(gather_points(
                if *sweep == Sweep::Qmm { "qmm" } else { "gather_qmm" },
                &o.modes,
                o.gather_shape,
                &o.rows,
                o.rows_per_graph,
                &o.routings,
                &o.dtypes,
            )),
            Sweep::Sdpa => points.extend(sdpa_points()),
            Sweep::Softmax => points.extend(softmax_points(&o.softmax_shapes)),
            Sweep::Graph => points.extend(graph_points()),
            Sweep::SdpaGrad => points.extend(sdpa_grad_points()),
            Sweep::All => points.extend(self::points(&SweepOptions {
                sweeps: vec![Sweep::GatherQmm, Sweep::Sdpa, Sweep::Softmax],
                only: None,
                ..o.clone()
            })),
        }
    }
    if let Some(only) = &o.only {
        points.retain(|p| p.label().contains(only.as_str()));
    }
    points
}

/// Is a point's request (`args`) a control, an op no patch changes, measured beside the ops
/// that a patch does: `qmm` (the dense product at a gather's flops) and `sdpa_grad array`
/// (stock's chain in any build)? A patch's evidence leaves them out.
pub fn is_control(args: &str) -> bool {
    args.starts_with("qmm ") || args.starts_with("sdpa_grad array ")
}

/// `A:B:C`, each a positive integer (a gather shape or a softmax shape).
pub fn parse_triple(text: &str) -> Result<[u64; 3], String> {
    let values: Vec<u64> = text
        .split(':')
        .map(|v| v.trim().parse::<u64>().ok().filter(|&v| v > 0))
        .collect::<Option<_>>()
        .ok_or_else(|| format!("{text:?}: expected three positive integers A:B:C"))?;
    values.try_into().map_err(|_| format!("{text:?}: expected three positive integers A:B:C"))
}

pub fn parse_rows(text: &str) -> Result<u64, String> {
    text.trim()
        .parse::<u64>()
        .ok()
        .filter(|&r| r > 0)
        .ok_or_else(|| format!("{text:?}: rows per expert must be a positive integer"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defaults(sweep: Sweep) -> SweepOptions {
        SweepOptions {
            sweeps: vec![sweep],
            modes: MODES.iter().map(|m| m.to_string()).collect(),
            gather_shape: QWEN3_30B_A3B,
            rows: ROWS_PER_EXPERT.to_vec(),
            rows_per_graph: ROWS_PER_GRAPH,
            routings: vec![Routing::Uniform],
            dtypes: vec!["bfloat16".into()],
            softmax_shapes: SOFTMAX_SHAPES.to_vec(),
            only: None,
        }
    }

    /// Reads a request back into numbers (independently of how it was written).
    fn numbers(args: &str) -> Vec<u64> {
        args.split_whitespace().filter_map(|w| w.parse().ok()).collect()
    }

    /// The default sweep as op-bench's docs and op_ab.py define it: mode-major gather_qmm
    /// (mode, then projection, then rows), then the sdpa list, then the softmax list; every
    /// request's numbers give back the point's fields, calls and work (op_ab.py printed 83
    /// points with these args, checked once against it when it was retired).
    #[test]
    fn default_sweep_is_op_ab_py_s() {
        let all = points(&defaults(Sweep::All));
        let gathers = MODES.len() * PROJECTIONS.len() * ROWS_PER_EXPERT.len();
        assert_eq!(all.len(), gathers + SDPA.len() + SOFTMAX_SHAPES.len());
        let mut i = 0;
        for mode in MODES {
            for proj in ["up", "down"] {
                for r in [1u64, 2, 4, 8, 16, 32, 64, 128, 256] {
                    let p = &all[i];
                    i += 1;
                    assert_eq!(p.args, format!("gather_qmm {mode} {proj} {r} 128 2048 768"));
                    // One graph holds at least 32 rows per expert, or one call.
                    assert!(p.calls * r >= 32 || p.calls == 1, "{}", p.args);
                    assert!(p.calls == 1 || (p.calls + 1) * r > 32, "{}", p.args);
                    assert_eq!(p.flops, 2 * 128 * r * 2048 * 768);
                    assert_eq!((p.shape, p.bytes), (None, None));
                    assert_eq!(p.label(), format!("gather_qmm {mode} {proj} r={r}"));
                }
            }
        }
        for (dtype, heads, q, kv) in SDPA {
            let p = &all[i];
            i += 1;
            assert_eq!(p.args, format!("sdpa {dtype} {heads} {q} {kv}"));
            assert_eq!((p.calls, p.flops), (1, 4 * heads * q * kv * 128));
        }
        for p in &all[i..] {
            let [heads, q, kv]: [u64; 3] = numbers(&p.args).try_into().unwrap();
            assert!(p.args.starts_with("softmax float32 "));
            // Closed form of the causal count for q <= kv: query i sees kv - q + 1 + i keys.
            let visible = q * (kv - q + 1) + q * (q - 1) / 2;
            assert_eq!(p.bytes, Some((4 * heads * (visible + q * kv)) as i64));
            assert_eq!((p.calls, p.flops), (1, 0));
        }
        let softmax: Vec<[u64; 3]> =
            all[i..].iter().map(|p| numbers(&p.args).try_into().unwrap()).collect();
        assert_eq!(softmax, SOFTMAX_SHAPES);
    }

    #[test]
    fn sweeps_only_and_shapes_choose_points() {
        assert_eq!(points(&defaults(Sweep::GatherQmm)).len(), 72);
        assert_eq!(points(&defaults(Sweep::Sdpa)).len(), 6);
        assert_eq!(points(&defaults(Sweep::Softmax)).len(), 5);
        let only = SweepOptions { only: Some("q=2048".into()), ..defaults(Sweep::All) };
        let labels: Vec<String> = points(&only).iter().map(Point::label).collect();
        assert_eq!(
            labels,
            ["sdpa float32 H=8 q=2048 kv=2048", "softmax float32 H=8 q=2048 kv=2048"]
        );
        let small = SweepOptions {
            modes: vec!["affine4".into()],
            gather_shape: [32, 512, 512],
            rows: vec![4],
            ..defaults(Sweep::GatherQmm)
        };
        let p = &points(&small)[0];
        assert_eq!(p.args, "gather_qmm affine4 up 4 32 512 512");
        assert_eq!(p.label(), "gather_qmm affine4 up r=4 E=32 H=512 W=512");
        assert_eq!((p.shape, p.calls), (Some([32, 512, 512]), 8));
        // More rows per graph: more calls at every rows per expert, one at least; the point's
        // request and work stay those of one call.
        let calls = |rows_per_graph, rows: Vec<u64>| -> Vec<u64> {
            let o = SweepOptions { rows_per_graph, rows, ..small.clone() };
            points(&o).iter().filter(|p| p.label().contains(" up ")).map(|p| p.calls).collect()
        };
        assert_eq!(calls(1024, vec![1, 4, 256, 1024, 2048]), [1024, 256, 4, 1, 1]);
        assert_eq!(calls(1, vec![1, 256]), [1, 1]);
        let wide = SweepOptions { rows_per_graph: 1024, ..small.clone() };
        assert_eq!(
            (points(&wide)[0].args.as_str(), points(&wide)[0].flops),
            (p.args.as_str(), p.flops)
        );
        // qmm takes gather_qmm's arguments, and the flops of that gather.
        let both = SweepOptions {
            sweeps: vec![Sweep::Qmm, Sweep::GatherQmm],
            only: Some("up r=".into()),
            ..small.clone()
        };
        let [dense, gather] = &points(&both)[..] else { panic!("two points") };
        assert_eq!(dense.args, "qmm affine4 up 4 32 512 512");
        assert_eq!(dense.label(), "qmm affine4 up r=4 E=32 H=512 W=512");
        assert_eq!((dense.flops, dense.calls), (gather.flops, gather.calls));
        assert_eq!(gather.args, p.args);
        let json = serde_json::to_value(p).unwrap();
        assert_eq!(json["rows_per_expert"], 4);
        assert_eq!(json["shape"], serde_json::json!([32, 512, 512]));
        assert!(json.get("bytes").is_none() && json.get("dtype").is_none());
    }

    /// Skewed loads: one point per routing (routing-major within a projection), the word at the
    /// end of gather_qmm's request and label, nothing for uniform (old reports' form); qmm has
    /// no experts, so uniform only.
    #[test]
    fn routings_multiply_gather_points_only() {
        let skewed = SweepOptions {
            sweeps: vec![Sweep::GatherQmm, Sweep::Qmm],
            modes: vec!["mxfp4".into()],
            rows: vec![1, 16],
            routings: vec![Routing::Uniform, Routing::Hot, Routing::Zipf],
            ..defaults(Sweep::GatherQmm)
        };
        let all = points(&skewed);
        let args: Vec<&str> = all.iter().map(|p| p.args.as_str()).collect();
        assert_eq!(all.len(), 2 * 3 * 2 + 2 * 2, "{args:?}");
        assert_eq!(args[0], "gather_qmm mxfp4 up 1 128 2048 768");
        assert_eq!(args[2], "gather_qmm mxfp4 up 1 128 2048 768 hot");
        assert_eq!(args[5], "gather_qmm mxfp4 up 16 128 2048 768 zipf");
        assert_eq!(all[5].label(), "gather_qmm mxfp4 up r=16 zipf");
        assert_eq!(all[5].flops, all[1].flops, "the same rows in all");
        let json = serde_json::to_value(&all[5]).unwrap();
        assert_eq!(json["routing"], "zipf");
        assert!(serde_json::to_value(&all[0]).unwrap().get("routing").is_none());
        assert!(all[12..].iter().all(|p| p.op == "qmm" && !p.args.contains("uniform")));
        assert!(all[12..].iter().all(|p| p.args.split(' ').count() == 7));
    }

    /// Dtypes: dtype-major, the word at the end of the request and label and a `dtype` field
    /// only when not bf16 (old reports' form), so a float32 point never shares a key with the
    /// bf16 point of its mode, projection and rows.
    #[test]
    fn dtypes_multiply_gather_and_qmm_points() {
        let sweep = SweepOptions {
            sweeps: vec![Sweep::GatherQmm, Sweep::Qmm],
            modes: vec!["affine4".into()],
            gather_shape: [32, 512, 1024],
            rows: vec![2],
            routings: vec![Routing::Uniform, Routing::Hot],
            dtypes: vec!["bfloat16".into(), "float32".into()],
            ..defaults(Sweep::GatherQmm)
        };
        let all = points(&sweep);
        let args: Vec<&str> = all.iter().map(|p| p.args.as_str()).collect();
        assert_eq!(
            args,
            [
                "gather_qmm affine4 up 2 32 512 1024",
                "gather_qmm affine4 up 2 32 512 1024 hot",
                "gather_qmm affine4 down 2 32 512 1024",
                "gather_qmm affine4 down 2 32 512 1024 hot",
                "gather_qmm affine4 up 2 32 512 1024 float32",
                "gather_qmm affine4 up 2 32 512 1024 hot float32",
                "gather_qmm affine4 down 2 32 512 1024 float32",
                "gather_qmm affine4 down 2 32 512 1024 hot float32",
                "qmm affine4 up 2 32 512 1024",
                "qmm affine4 down 2 32 512 1024",
                "qmm affine4 up 2 32 512 1024 float32",
                "qmm affine4 down 2 32 512 1024 float32",
            ]
        );
        assert!(all.iter().all(|p| Op::parse(&p.args).as_ref() == Ok(&p.request)));
        assert_eq!(all[5].label(), "gather_qmm affine4 up r=2 E=32 H=512 W=1024 hot float32");
        assert_eq!(all[10].label(), "qmm affine4 up r=2 E=32 H=512 W=1024 float32");
        assert_eq!(all[4].flops, all[0].flops);
        let json = serde_json::to_value(&all[4]).unwrap();
        assert_eq!(json["dtype"], "float32");
        assert!(serde_json::to_value(&all[0]).unwrap().get("dtype").is_none());
        let only = SweepOptions { only: Some("float32".into()), ..sweep };
        assert_eq!(points(&only).len(), 6);
    }

    /// The CPU-only sweeps: op-bench's `graph` and `sdpa_grad` requests, none in `all`.
    #[test]
    fn graph_and_training_step_points() {
        let graphs = points(&defaults(Sweep::Graph));
        assert_eq!(graphs.len(), GRAPHS.len());
        assert_eq!(graphs[1].args, "graph chain 10000");
        assert_eq!(graphs[1].label(), "graph chain n=10000");
        let json = serde_json::to_value(&graphs[1]).unwrap();
        assert_eq!((json["graph"].as_str(), json["nodes"].as_u64()), (Some("chain"), Some(10000)));
        assert!(json.get("shape").is_none());
        let steps = points(&defaults(Sweep::SdpaGrad));
        assert_eq!(steps[0].args, "sdpa_grad causal 8 1024 64");
        assert_eq!(steps[0].label(), "sdpa_grad causal H=8 L=1024 D=64");
        assert!(steps.iter().any(|p| is_control(&p.args)), "no control");
        assert!(!is_control(&steps[0].args) && !is_control(&graphs[0].args));
        let bf16 = ["bfloat16".into()];
        let dense = gather_points(
            "qmm",
            &["affine4".into()],
            QWEN3_30B_A3B,
            &[1],
            ROWS_PER_GRAPH,
            &[],
            &bf16,
        );
        assert!(is_control(&dense[0].args));
        let all = points(&defaults(Sweep::All));
        assert!(all.iter().all(|p| p.op != "graph" && p.op != "sdpa_grad"));
    }

    #[test]
    fn softmax_bytes_count_visible_scores() {
        // 1 head, 2 queries, 3 keys: query 0 sees 2 keys, query 1 sees 3; plus 6 outputs.
        let p = &softmax_points(&[[1, 2, 3]])[0];
        assert_eq!(p.bytes, Some(4 * (2 + 3 + 6)));
        let json = serde_json::to_value(p).unwrap();
        assert_eq!((json["q_len"].as_u64(), json["dtype"].as_str()), (Some(2), Some("float32")));
    }

    #[test]
    fn parses_shapes_and_rows() {
        assert_eq!(parse_triple("128:2048:768"), Ok([128, 2048, 768]));
        assert!(parse_triple("1:2").is_err() && parse_triple("1:2:0").is_err());
        assert!(parse_triple("1:2:3:4").is_err() && parse_triple("a:2:3").is_err());
        assert_eq!(parse_rows("16"), Ok(16));
        assert!(parse_rows("0").is_err());
    }
}
