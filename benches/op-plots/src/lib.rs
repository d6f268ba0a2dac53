//! What `op-plots` draws, without drawing it: the figures, panels and lines that the single-op
//! raw files of each folder give (its `RUNS.json` names the files, the commit each ran and the
//! machine). `mlx-ab book` derives the same file names and inputs from the same raw files for
//! BENCHMARKS.md's Plots section; this crate's test checks the two agree and that the PNGs are
//! committed.

pub mod manifest;

use mlx_ab_protocol::ops::Op;
use mlx_ab_protocol::routing::Routing;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The folders of single-op raw files, relative to the repository root (as `mlx-ab book` reads
/// them).
pub const DEFAULT_FOLDERS: &[&str] = &["reports/h200/ops", "reports/cpu/ops"];
/// Where the PNGs go, relative to the repository root.
pub const PLOTS_DIR: &str = "reports/plots";

/// The two plots, each drawn once per machine folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    GatherQmm,
    CausalAttention,
}

impl Kind {
    pub fn stem(self) -> &'static str {
        match self {
            Kind::GatherQmm => "gather_qmm",
            Kind::CausalAttention => "causal_attention",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Kind::GatherQmm => "sorted gather_qmm",
            Kind::CausalAttention => "causal attention (softmax stage, SDPA)",
        }
    }

    pub fn x_label(self) -> &'static str {
        match self {
            Kind::GatherQmm => "rows per expert (log2 scale)",
            Kind::CausalAttention => "key/value length L_kv (log2 scale)",
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct RawPoint {
    pub op: String,
    pub args: String,
    pub ratio: f64,
    pub ci: [f64; 2],
}

#[derive(Deserialize)]
struct RawMeta {
    date: String,
    /// `mlx-ab ops`; absent in the older `scripts/op_ab.py` reports.
    #[serde(default)]
    tool: Option<String>,
}

#[derive(Deserialize)]
struct RawReport {
    meta: RawMeta,
    results: Vec<RawPoint>,
}

/// What a point's op-bench args say, for the plots.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    /// `routing`: skewed expert loads (`hot`, `zipf`), a line of its own; none: uniform.
    /// `dtype`: activations other than bf16 (`float32`, `float16`), a line of its own too.
    Gather {
        mode: String,
        proj: String,
        rows: u64,
        shape: [u64; 3],
        routing: Option<String>,
        dtype: Option<String>,
    },
    Attention {
        op: String,
        dtype: String,
        heads: u64,
        q: u64,
        kv: u64,
    },
}

/// The point's kind and shape from its args (`mlx_ab_protocol::ops::Op`'s words:
/// `gather_qmm affine4 up 8 [E H W [ROUTING] [DTYPE]]`, `softmax float32 8 512 2048`), or why it
/// cannot be drawn.
pub fn parse(args: &str) -> Result<(Kind, Shape), String> {
    let op = Op::parse(args)?;
    let name = op.name().to_string();
    match op {
        Op::GatherQmm(q) => {
            let routing = (q.routing != Routing::Uniform).then(|| q.routing.word().to_string());
            let dtype = q.named_dtype().map(String::from);
            let (mode, proj, rows, shape) = (q.mode, q.proj, q.rows_per_expert, q.shape);
            Ok((Kind::GatherQmm, Shape::Gather { mode, proj, rows, shape, routing, dtype }))
        }
        Op::Sdpa(a) | Op::Softmax(a) => Ok((
            Kind::CausalAttention,
            Shape::Attention { op: name, dtype: a.dtype, heads: a.heads, q: a.q_len, kv: a.kv_len },
        )),
        _ => Err(format!("op `{name}` is in neither plot")),
    }
}

/// Is the point's ratio drawable (finite, positive, inside its finite interval)?
pub fn drawable(p: &RawPoint) -> Result<(), String> {
    let [lo, hi] = p.ci;
    if [p.ratio, lo, hi].iter().all(|v| v.is_finite() && *v > 0.0) && lo <= hi {
        Ok(())
    } else {
        Err(format!("ratio {} with interval [{lo}, {hi}] cannot be drawn", p.ratio))
    }
}

impl Shape {
    /// The panel a point goes in: a gather_qmm mode and shape, or an attention op.
    pub fn panel(&self) -> String {
        match self {
            Shape::Gather { mode, shape: [e, h, w], .. } => {
                format!("{mode}, E={e} experts, H={h}, W={w}")
            }
            Shape::Attention { op, .. } => match op.as_str() {
                "softmax" => "causal softmax stage (head dim 128)".into(),
                _ => "causal SDPA (head dim 128)".into(),
            },
        }
    }

    /// The line a point is on within its panel and series (its x left out).
    pub fn line(&self) -> String {
        match self {
            Shape::Gather { mode, proj, routing, dtype, .. } => {
                let words = [routing, dtype].into_iter().flatten();
                words.fold(format!("{mode} {proj}"), |line, w| format!("{line} {w}"))
            }
            Shape::Attention { op, dtype, heads, q, kv } => {
                let op = if op == "softmax" { "softmax" } else { "SDPA" };
                if q == kv {
                    format!("{op} {dtype} H={heads} L_q=L_kv")
                } else {
                    format!("{op} {dtype} H={heads} L_q={q}")
                }
            }
        }
    }

    /// Drawn dashed: down projections and non-square attention (L_q != L_kv).
    pub fn dashed(&self) -> bool {
        match self {
            Shape::Gather { proj, .. } => proj == "down",
            Shape::Attention { q, kv, .. } => q != kv,
        }
    }

    pub fn x(&self) -> u64 {
        match self {
            Shape::Gather { rows, .. } => *rows,
            Shape::Attention { kv, .. } => *kv,
        }
    }
}

/// A folder's name in the PNG names: `reports/h200/ops` -> `h200`.
pub fn folder_slug(folder: &str) -> String {
    let parts: Vec<&str> = folder.trim_end_matches('/').split('/').collect();
    let name = match parts.as_slice() {
        [.., parent, "ops"] => parent,
        [.., last] => last,
        [] => "ops",
    };
    slug(name)
}

/// Lower-case letters and digits, runs of anything else as one `-`.
pub fn slug(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_end_matches('-').to_string()
}

/// The PNG of one plot for one machine of one folder: `gather_qmm-h200.png`, or with the
/// machine's slug when the folder's manifest names several machines.
pub fn file_name(kind: Kind, folder: &str, machine: &str, machines_in_folder: usize) -> String {
    if machines_in_folder > 1 {
        format!("{}-{}-{}.png", kind.stem(), folder_slug(folder), slug(machine))
    } else {
        format!("{}-{}.png", kind.stem(), folder_slug(folder))
    }
}

/// One raw file a figure draws from.
#[derive(Debug, Clone)]
pub struct Input {
    /// As given (relative to the repository root when the folder is).
    pub path: String,
    pub commit: String,
    /// The run's day, from the raw file's `meta.date`.
    pub date: String,
    /// Arm B's patches as the manifest names them (`all`, or ids).
    pub b: String,
    /// None: a control (no patch of B changes these ops here).
    pub measures: Option<String>,
}

/// (x, stock/patched median, 95% interval).
pub type Point = (f64, f64, [f64; 2]);

#[derive(Debug, Clone)]
pub struct Line {
    /// The mode and projection, or the op and its shape.
    pub what: String,
    /// The series: commit, run day(s), B when not every patch, `(control)`.
    pub series: String,
    pub dashed: bool,
    /// (x, stock/patched median, 95% interval), sorted by x.
    pub points: Vec<(f64, f64, [f64; 2])>,
}

#[derive(Debug, Clone)]
pub struct Panel {
    pub title: String,
    pub lines: Vec<Line>,
}

#[derive(Debug, Clone)]
pub struct Figure {
    pub kind: Kind,
    pub file: String,
    pub machine: String,
    pub folder: String,
    pub inputs: Vec<Input>,
    pub panels: Vec<Panel>,
    /// Points of this figure's ops that are not drawn: `file: args (why)`.
    pub not_drawn: Vec<String>,
}

/// The figures of every folder, in folder order then plot order; points in neither plot go to
/// the second value (`file: args (why)`).
pub fn plan(root: &Path, folders: &[String]) -> Result<(Vec<Figure>, Vec<String>), String> {
    let mut figures = Vec::new();
    let mut elsewhere = Vec::new();
    for folder in folders {
        let dir = root.join(folder);
        let runs = manifest::read(&dir)?;
        let machines: Vec<&str> = {
            let mut m: Vec<&str> = runs.values().map(|e| e.machine.as_str()).collect();
            m.sort();
            m.dedup();
            m
        };
        for machine in &machines {
            // Line key (panel, commit + run day + tool + B, line) -> (dashed, points): one
            // series' points measured one day by one tool against one B form a line (its files
            // may split the sweep).
            let mut per_kind: BTreeMap<Kind, Figure> = BTreeMap::new();
            type Key = (String, String, String);
            let mut lines: BTreeMap<Kind, BTreeMap<Key, (bool, Vec<Point>)>> = BTreeMap::new();
            // Per key: (line, B, measures, commit, run day, tool).
            type Label = (String, String, Option<String>, String, String, String);
            let mut entry_labels: BTreeMap<Key, Label> = BTreeMap::new();
            for (name, entry) in runs.iter().filter(|(_, e)| e.machine == *machine) {
                let path = format!("{}/{name}", folder.trim_end_matches('/'));
                let report: RawReport = read_json(&dir.join(name))?;
                let date: String = report.meta.date.chars().take(10).collect();
                for p in &report.results {
                    let kind = match p.op.as_str() {
                        "gather_qmm" => Kind::GatherQmm,
                        "softmax" | "sdpa" => Kind::CausalAttention,
                        other => {
                            let why = format!("op `{other}` is in neither plot");
                            elsewhere.push(format!("{path}: `{}` ({why})", p.args));
                            continue;
                        }
                    };
                    let fig = figure(&mut per_kind, kind, folder, machine, machines.len());
                    if !fig.inputs.iter().any(|i| i.path == path) {
                        fig.inputs.push(Input {
                            path: path.clone(),
                            commit: entry.commit.clone(),
                            date: date.clone(),
                            b: entry.b.clone().unwrap_or_else(|| "all".into()),
                            measures: entry.measures.clone(),
                        });
                    }
                    let shape = match parse(&p.args) {
                        Ok((_, shape)) => shape,
                        Err(why) => {
                            fig.not_drawn.push(format!("{path}: `{}` ({why})", p.args));
                            continue;
                        }
                    };
                    if let Err(why) = drawable(p) {
                        fig.not_drawn.push(format!("{path}: `{}` ({why})", p.args));
                        continue;
                    }
                    let b = entry.b.clone().unwrap_or_else(|| "all".into());
                    let tool =
                        report.meta.tool.clone().unwrap_or_else(|| "scripts/op_ab.py".into());
                    // Arm B too: one commit's sweeps of two arms are two lines.
                    let run = format!("{} {date} {tool} {b}", entry.commit);
                    let key = (shape.panel(), run, shape.line());
                    let label = (
                        shape.line(),
                        b,
                        entry.measures.clone(),
                        entry.commit.clone(),
                        date.clone(),
                        tool,
                    );
                    entry_labels.insert(key.clone(), label);
                    let line = lines.entry(kind).or_default().entry(key).or_default();
                    line.0 = shape.dashed();
                    line.1.push((shape.x() as f64, p.ratio, p.ci));
                }
            }
            for (kind, mut fig) in per_kind {
                let mut panels: BTreeMap<String, Vec<(String, Line)>> = BTreeMap::new();
                for (key, (dashed, mut points)) in lines.remove(&kind).unwrap_or_default() {
                    points.sort_by(|a, b| a.0.total_cmp(&b.0));
                    let (line, b, measures, commit, day, tool) = &entry_labels[&key];
                    let d = [day.clone()];
                    let mut label = format!("commit {}, run {day}, {tool}", short(commit));
                    if b != "all" {
                        label.push_str(&format!(", B: {b} only"));
                    }
                    if measures.is_none() {
                        label.push_str(" (control)");
                    }
                    // Same x twice on one line (two files of one series): not one line.
                    let mut seen = points.iter().map(|p| p.0).collect::<Vec<_>>();
                    seen.dedup();
                    if seen.len() != points.len() {
                        for (i, p) in points.into_iter().enumerate() {
                            let l = Line {
                                what: line.clone(),
                                series: format!("{label}, point {}", i + 1),
                                dashed,
                                points: vec![p],
                            };
                            panels.entry(key.0.clone()).or_default().push((d[0].clone(), l));
                        }
                        continue;
                    }
                    panels.entry(key.0.clone()).or_default().push((
                        d[0].clone(),
                        Line { what: line.clone(), series: label, dashed, points },
                    ));
                }
                for (title, mut lines) in panels {
                    // By what is measured, then oldest run first.
                    lines.sort_by(|a, b| {
                        (&a.1.what, &a.0, &a.1.series).cmp(&(&b.1.what, &b.0, &b.1.series))
                    });
                    fig.panels
                        .push(Panel { title, lines: lines.into_iter().map(|l| l.1).collect() });
                }
                fig.inputs.sort_by(|a, b| a.date.cmp(&b.date).then(a.path.cmp(&b.path)));
                figures.push(fig);
            }
        }
    }
    Ok((figures, elsewhere))
}

fn figure<'a>(
    per_kind: &'a mut BTreeMap<Kind, Figure>,
    kind: Kind,
    folder: &str,
    machine: &str,
    machines: usize,
) -> &'a mut Figure {
    per_kind.entry(kind).or_insert_with(|| Figure {
        kind,
        file: file_name(kind, folder, machine, machines),
        machine: machine.into(),
        folder: folder.into(),
        inputs: Vec::new(),
        panels: Vec::new(),
        not_drawn: Vec::new(),
    })
}

pub fn short(commit: &str) -> &str {
    &commit[..commit.len().min(7)]
}

/// A JSON file read into `T`; errors name the file.
pub fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, String> {
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("reading {}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// The repository root (this crate is `benches/op-plots`).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn args_give_panel_line_and_x() {
        let (k, s) = parse("gather_qmm affine4 down 8").unwrap();
        assert_eq!(k, Kind::GatherQmm);
        assert_eq!(s.panel(), "affine4, E=128 experts, H=2048, W=768");
        assert_eq!((s.line().as_str(), s.dashed(), s.x()), ("affine4 down", true, 8));
        let (_, s) = parse("gather_qmm mxfp4 up 4 32 512 512").unwrap();
        assert_eq!(s.panel(), "mxfp4, E=32 experts, H=512, W=512");
        let (_, s) = parse("gather_qmm mxfp4 up 4 32 512 512 hot").unwrap();
        assert_eq!(
            (s.panel().as_str(), s.line().as_str()),
            ("mxfp4, E=32 experts, H=512, W=512", "mxfp4 up hot")
        );
        // Another dtype: the same panel, a line of its own.
        let (_, s) = parse("gather_qmm mxfp4 up 4 32 512 512 hot float32").unwrap();
        assert_eq!(
            (s.panel().as_str(), s.line().as_str()),
            ("mxfp4, E=32 experts, H=512, W=512", "mxfp4 up hot float32")
        );
        let (_, s) = parse("gather_qmm mxfp4 down 4 32 512 512 float16").unwrap();
        assert_eq!(s.line(), "mxfp4 down float16");
        let (k, s) = parse("softmax float32 8 512 2048").unwrap();
        assert_eq!(k, Kind::CausalAttention);
        assert_eq!(
            (s.line().as_str(), s.dashed(), s.x()),
            ("softmax float32 H=8 L_q=512", true, 2048)
        );
        let (_, s) = parse("sdpa bfloat16 8 8192 8192").unwrap();
        assert_eq!(s.line(), "SDPA bfloat16 H=8 L_q=L_kv");
        assert!(parse("sdpa float32 8 2048").is_err());
        assert!(parse("matmul 1 2 3").is_err());
    }

    #[test]
    fn slugs_and_names() {
        assert_eq!(folder_slug("reports/h200/ops"), "h200");
        assert_eq!(folder_slug("reports/cpu/ops/"), "cpu");
        assert_eq!(slug("2-core x86 VM (CPU)"), "2-core-x86-vm-cpu");
        assert_eq!(file_name(Kind::GatherQmm, "reports/cpu/ops", "x", 1), "gather_qmm-cpu.png");
        assert_eq!(
            file_name(Kind::CausalAttention, "reports/cpu/ops", "VM (CPU)", 2),
            "causal_attention-cpu-vm-cpu.png"
        );
    }

    #[test]
    fn undrawable_ratios_are_reported() {
        let p =
            RawPoint { op: "sdpa".into(), args: String::new(), ratio: f64::NAN, ci: [1.0, 2.0] };
        assert!(drawable(&p).is_err());
        let p = RawPoint { ratio: 1.5, ..p };
        assert!(drawable(&p).is_ok());
    }
}
