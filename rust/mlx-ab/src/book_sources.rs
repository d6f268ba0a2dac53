//! What the benchmark book is made of: the series (patch file names and their sha256) that each
//! raw file under `reports/` ran, read from the folder manifests (`RUNS.json`) and
//! `reports/series.json`, and the raw files themselves (`mlx-ab run` reports, `mlx-ab ops`
//! and older `scripts/op_ab.py` sweeps), reduced to what the book prints.

use crate::deterministic::Backend;
use crate::stats::{RatioSummary, SignTest};
use mlx_build::digest;
use op_plots::manifest::{self, RunEntry, MANIFEST};
pub use op_plots::read_json;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// Folders holding `mlx-ab run` reports, relative to the repository root.
pub const E2E_FOLDERS: &[&str] = &["reports/h200", "reports/h200/e2e", "reports/cpu/e2e"];
/// Folders holding `mlx-ab ops` (or older `scripts/op_ab.py`) reports.
pub const OPS_FOLDERS: &[&str] = op_plots::DEFAULT_FOLDERS;
/// The tool of the op reports that name none.
pub const OP_AB_PY: &str = "scripts/op_ab.py";
pub const SERIES_FILE: &str = "reports/series.json";

/// A patch file as reports name the series they ran: its name and sha256.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeriesFile {
    pub name: String,
    pub sha256: String,
}

impl From<&PatchFile> for SeriesFile {
    fn from(p: &PatchFile) -> Self {
        SeriesFile { name: p.name.clone(), sha256: p.sha256.clone() }
    }
}

/// One patch file of a series.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct PatchFile {
    pub name: String,
    pub sha256: String,
    /// The sha256 of its diff alone (`mlx_build::digest::patch`): what a build applies, so two
    /// files with one diff build the same code whatever their messages say.
    pub diff: String,
    /// The files its diff changes: known for the working tree's patches only (empty in
    /// `reports/series.json`).
    #[serde(default)]
    pub files: Vec<String>,
}

impl PatchFile {
    pub fn id(&self) -> &str {
        mlx_build::series::id_of(&self.name)
    }

    /// Does it change what `backend`'s library computes? Unknown files count as yes.
    fn changes(&self, backend: Backend) -> bool {
        self.files.is_empty() || self.files.iter().any(|f| backend.builds(f))
    }
}

/// The patch files of `patches/series` at one commit (or in the working tree: `commit` None).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Series {
    #[serde(default)]
    pub commit: Option<String>,
    /// The commit's time, `2026-12-01T17:25:37Z` (empty for the working tree).
    pub date: String,
    pub patches: Vec<PatchFile>,
}

impl Series {
    /// The first 12 hex digits of the sha256 of `sha256sum`'s lines for the files in series
    /// order: `cd patches && sha256sum $(cat series) | sha256sum`.
    pub fn digest(&self) -> String {
        let lines: String =
            self.patches.iter().map(|p| format!("{}  {}\n", p.sha256, p.name)).collect();
        digest::bytes(lines.as_bytes())[..12].to_string()
    }

    /// As [`Series::digest`] over the diffs alone: equal for series that build the same code.
    pub fn code_digest(&self) -> String {
        let lines: String =
            self.patches.iter().map(|p| format!("{}  {}\n", p.diff, p.name)).collect();
        digest::bytes(lines.as_bytes())[..12].to_string()
    }

    /// Did this (older) series build the same code as `current` on `backend`? Yes when their
    /// diffs are equal, or when `current` only adds patches that `backend`'s library does not
    /// compile (a CUDA-only patch leaves a CPU run's code as it was).
    pub fn same_code_on(&self, current: &Series, backend: Backend) -> bool {
        self.code_digest() == current.code_digest()
            || self.patches.iter().all(|p| current.patch(p.id()).is_some_and(|c| c.diff == p.diff))
                && current
                    .patches
                    .iter()
                    .filter(|c| self.patch(c.id()).is_none())
                    .all(|c| !c.changes(backend))
    }

    /// The commit's day, `2026-12-01`.
    pub fn day(&self) -> &str {
        &self.date[..self.date.len().min(10)]
    }

    /// `2026-12-01, commit 0fe28f5, series 1a2b3c4d5e6f`, or `current (patches/ now), ...`.
    pub fn label(&self) -> String {
        match &self.commit {
            Some(commit) => format!(
                "{}, commit {}, series {}",
                self.day(),
                &commit[..commit.len().min(7)],
                self.digest()
            ),
            None => format!("current (patches/ now), series {}", self.digest()),
        }
    }

    pub fn patch(&self, id: &str) -> Option<&PatchFile> {
        self.patches.iter().find(|p| p.id() == id)
    }

    pub fn ids(&self) -> Vec<String> {
        self.patches.iter().map(|p| p.id().to_string()).collect()
    }
}

/// The series of the working tree: `patches/series` (through `mlx-build`, the one reader of it)
/// with the sha256 of each patch file as it is now under `root`.
pub fn current_series(root: &Path) -> Result<Series, String> {
    let patches = mlx_build::series::entries()
        .into_iter()
        .map(|entry| {
            let path = root.join("patches").join(entry.file_name);
            let bytes = fs::read(&path).map_err(|e| format!("reading {}: {e}", path.display()))?;
            Ok(PatchFile {
                name: entry.file_name.to_string(),
                sha256: digest::bytes(&bytes),
                diff: digest::patch(&bytes),
                files: mlx_build::patches::touched_files(&bytes),
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(Series { commit: None, date: String::new(), patches })
}

/// The patch's `Subject:` line (folded lines joined), without git's `[PATCH]`.
pub fn patch_subject(text: &str) -> Option<String> {
    let mut lines = text.lines();
    let first = lines.find_map(|l| l.strip_prefix("Subject:"))?;
    let mut subject = first.trim().to_string();
    for continuation in lines.take_while(|l| l.starts_with(' ') || l.starts_with('\t')) {
        subject.push(' ');
        subject.push_str(continuation.trim());
    }
    Some(subject.trim_start_matches("[PATCH]").trim().to_string())
}

#[derive(Deserialize)]
struct SeriesJson {
    series: BTreeMap<String, SeriesAtCommit>,
    /// Patch id -> `prefill` or `decode` (and an `about`).
    end_to_end_phase: BTreeMap<String, String>,
}

#[derive(Deserialize)]
struct SeriesAtCommit {
    date: String,
    patches: Vec<PatchFile>,
}

/// `reports/series.json`.
pub struct Recorded {
    /// The series at every commit a manifest names, by full commit id.
    pub series: BTreeMap<String, Series>,
    /// Each patch id's end-to-end phase (and an `about`).
    pub phases: BTreeMap<String, String>,
}

pub fn recorded_series(root: &Path) -> Result<Recorded, String> {
    let file: SeriesJson = read_json(&root.join(SERIES_FILE))?;
    let series = file
        .series
        .into_iter()
        .map(|(commit, s)| {
            (commit.clone(), Series { commit: Some(commit), date: s.date, patches: s.patches })
        })
        .collect();
    Ok(Recorded { series, phases: file.end_to_end_phase })
}

/// The manifest entry of the raw file at `path` (under `root`, in a folder with a `RUNS.json`)
/// and the series its commit ran.
pub fn entry_of(root: &Path, path: &Path) -> Result<(RunEntry, Series), String> {
    let (dir, name) = match (path.parent(), path.file_name()) {
        (Some(dir), Some(name)) => (dir, name.to_string_lossy().to_string()),
        _ => return Err(format!("{}: not a file path", path.display())),
    };
    let entry = manifest::read(&root.join(dir))?.remove(&name).ok_or_else(|| {
        format!(
            "{name} is not in {}: add it with its commit and machine",
            dir.join(MANIFEST).display()
        )
    })?;
    let series = recorded_series(root)?.series.remove(&entry.commit).ok_or_else(|| {
        format!("commit {} of {name} has no series in {SERIES_FILE}", entry.commit)
    })?;
    Ok((entry, series))
}

/// A raw file with its manifest entry and series.
#[derive(Debug, Clone)]
pub struct Source {
    /// Relative to the repository root, `/`-separated.
    pub path: String,
    pub date: String,
    pub machine: String,
    pub series: Series,
    pub note: Option<String>,
}

impl Source {
    /// The MLX backend its figures ran on, by its folder: `reports/cpu/` holds CPU runs,
    /// `reports/h200/` CUDA runs (on H200s and H100s; no Metal run exists).
    pub fn backend(&self) -> Backend {
        if self.path.starts_with("reports/cpu/") {
            Backend::Cpu
        } else {
            Backend::Cuda
        }
    }
}

/// An `mlx-ab run` report, as the book reads it (the fields `report::Report` writes).
#[derive(Debug, Clone)]
pub struct E2eRun {
    pub source: Source,
    pub device: String,
    /// Arm A's and B's patch ids, as their workers reported them.
    pub a_patches: Vec<String>,
    pub b_patches: Vec<String>,
    pub preset: String,
    pub prompt_len: u64,
    pub prefill_chunk: u64,
    pub gen_len: u64,
    pub pairs: usize,
    /// `identical`, `different` or `nondeterministic` (`report::Verdict`).
    pub verdict: String,
    pub prefill: RatioSummary,
    pub decode: RatioSummary,
    pub memory: RatioSummary,
}

#[derive(Deserialize)]
struct E2eJson {
    pairs: usize,
    verdict: String,
    arms: ArmsJson,
    ratio: RatiosJson,
    workload: WorkloadJson,
    provenance: ProvenanceJson,
}

#[derive(Deserialize)]
struct ArmsJson {
    #[serde(rename = "A")]
    a: ArmJson,
    #[serde(rename = "B")]
    b: ArmJson,
}

#[derive(Deserialize)]
struct ArmJson {
    device: String,
    mlx: MlxJson,
    #[serde(default)]
    spec: SpecJson,
}

/// What the arm asked for beyond its build: variables for its worker alone (`--b-env`).
#[derive(Deserialize, Default)]
struct SpecJson {
    #[serde(default)]
    env: Vec<String>,
}

#[derive(Deserialize)]
struct MlxJson {
    patches: Vec<String>,
}

#[derive(Deserialize)]
struct RatiosJson {
    prefill_tps: RatioSummary,
    decode_tps: RatioSummary,
    peak_memory_bytes: RatioSummary,
}

#[derive(Deserialize)]
struct WorkloadJson {
    preset: Option<String>,
    prompt_len: u64,
    gen_len: u64,
    prefill_chunk: u64,
}

#[derive(Deserialize)]
struct ProvenanceJson {
    date: String,
}

/// An `mlx-ab ops` (or older `scripts/op_ab.py`) report: A stock, B patched, one point per op
/// and shape.
#[derive(Debug, Clone)]
pub struct OpsRun {
    pub source: Source,
    /// What made it: the report's `meta.tool`, or `scripts/op_ab.py` (which wrote none).
    pub tool: String,
    /// B's patch ids.
    pub b_patches: Vec<String>,
    pub points: Vec<OpPoint>,
}

#[derive(Debug, Clone)]
pub struct OpPoint {
    /// The point's op-bench arguments (`gather_qmm affine4 up 8`).
    pub args: String,
    /// The current patch whose change it measures (`RunEntry::measures_for`; none: a control).
    pub measures: Option<String>,
    pub a_seconds: f64,
    pub b_seconds: f64,
    /// Stock time / patched time per pair: above 1, the patched build is faster.
    pub ratio: RatioSummary,
    pub identical: bool,
}

impl OpPoint {
    /// Whether this point is evidence for patch `id`.
    pub fn measures(&self, id: &str) -> bool {
        self.measures.as_deref() == Some(id)
    }

    /// Attention points where queries and keys differ in number.
    pub fn non_square(&self) -> bool {
        use mlx_ab_protocol::ops::Op;
        matches!(Op::parse(&self.args), Ok(Op::Sdpa(a) | Op::Softmax(a)) if a.q_len != a.kv_len)
    }
}

#[derive(Deserialize)]
struct OpsJson {
    meta: OpsMeta,
    results: Vec<OpJson>,
}

#[derive(Deserialize)]
struct OpsMeta {
    date: String,
    #[serde(default)]
    tool: Option<String>,
    /// `mlx-ab ops --rows-per-graph`; absent before it existed (the default then).
    #[serde(default)]
    rows_per_graph: Option<u64>,
}

/// The paired-times fields (`stats::PairedTimes`) of an op point or a script timing.
#[derive(Deserialize)]
pub(crate) struct PairedJson {
    pub a_seconds: f64,
    pub b_seconds: f64,
    ratio: f64,
    ci: [f64; 2],
    b_faster: usize,
    a_faster: usize,
    p: f64,
}

impl PairedJson {
    /// The ratio's summary over `pairs` pairs, with these per-pair ratios.
    pub fn summary(&self, samples: Vec<f64>, pairs: usize) -> RatioSummary {
        RatioSummary {
            samples,
            median: Some(self.ratio),
            ci95: Some(self.ci),
            sign_test: SignTest {
                greater: self.b_faster,
                less: self.a_faster,
                ties: pairs.saturating_sub(self.b_faster + self.a_faster),
                p_value: self.p,
            },
        }
    }
}

#[derive(Deserialize)]
struct OpJson {
    args: String,
    #[serde(flatten)]
    paired: PairedJson,
    identical: bool,
    times: Times,
}

#[derive(Deserialize)]
struct Times {
    a: Vec<f64>,
    b: Vec<f64>,
}

impl OpJson {
    fn point(self, measures: Option<String>) -> OpPoint {
        let pairs = self.times.a.len().min(self.times.b.len());
        let samples = self.times.a.iter().zip(&self.times.b).map(|(a, b)| a / b).collect();
        OpPoint {
            args: self.args,
            measures,
            a_seconds: self.paired.a_seconds,
            b_seconds: self.paired.b_seconds,
            ratio: self.paired.summary(samples, pairs),
            identical: self.identical,
        }
    }
}

/// Everything the book shows.
#[derive(Debug, Clone)]
pub struct Sources {
    pub current: Series,
    /// Each current patch id's `Subject:`.
    pub subjects: BTreeMap<String, String>,
    /// Each current patch id's end-to-end phase: `prefill` or `decode`.
    pub phases: BTreeMap<String, String>,
    pub e2e: Vec<E2eRun>,
    pub ops: Vec<OpsRun>,
    pub scripts: Vec<crate::book_scripts::ScriptRun>,
}

impl Sources {
    /// The patch files that some raw file's series holds and the current series does not, each
    /// with the newest series that held it.
    pub fn left_the_series(&self) -> Vec<(&PatchFile, &Series)> {
        let all = self.e2e.iter().map(|r| &r.source).chain(self.ops.iter().map(|r| &r.source));
        let mut left: BTreeMap<&str, (&PatchFile, &Series)> = BTreeMap::new();
        for series in all.map(|source| &source.series) {
            for patch in &series.patches {
                if self.current.patch(patch.id()).is_some() {
                    continue;
                }
                let newest =
                    left.get(patch.name.as_str()).is_none_or(|(_, s)| s.date < series.date);
                if newest {
                    left.insert(&patch.name, (patch, series));
                }
            }
        }
        left.into_values().collect()
    }
}

/// The `*.json` raw files of a folder (not its manifest), sorted.
fn raw_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    Ok(mlx_build::files::sorted_files(dir, "json")?
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n != MANIFEST))
        .collect())
}

/// A folder's raw files, each with its manifest entry. A raw file the manifest does not name,
/// or an entry naming no file, is an error: the book shows every raw file, each with its series.
pub(crate) fn folder(
    root: &Path,
    folder: &str,
    series: &BTreeMap<String, Series>,
) -> Result<Vec<(PathBuf, RunEntry, Source)>, String> {
    let dir = root.join(folder);
    let runs = manifest::read(&dir)?;
    let files = raw_files(&dir)?;
    let mut out = Vec::new();
    for file in &files {
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        if name.starts_with("mlx-suite") {
            continue; // MLX's C++ suite, not a benchmark
        }
        if name.starts_with("roofline") {
            continue; // `mlx-ab roofline`'s reading of op sweeps the book reads as they are
        }
        let Some(entry) = runs.get(&name) else {
            return Err(format!(
                "{folder}/{name} is not in {folder}/{MANIFEST}: add it with the commit its arms \
                 were built from and the machine"
            ));
        };
        let Some(at) = series.get(&entry.commit) else {
            return Err(format!(
                "{folder}/{MANIFEST}: commit {} of {name} has no series in {SERIES_FILE}; add it \
                 (each patch: git show {}:patches/NAME | sha256sum)",
                entry.commit, entry.commit
            ));
        };
        let source = Source {
            path: format!("{folder}/{name}"),
            date: String::new(),
            machine: entry.machine.clone(),
            series: at.clone(),
            note: entry.note.clone(),
        };
        out.push((file.clone(), entry.clone(), source));
    }
    for name in runs.keys() {
        if !dir.join(name).is_file() {
            return Err(format!("{folder}/{MANIFEST} names {name}, which is not there"));
        }
    }
    Ok(out)
}

/// An error when a manifest entry of a file that is no op sweep has an op sweep's fields.
pub(crate) fn no_op_fields(entry: &RunEntry, path: &str) -> Result<(), String> {
    if entry.b.is_some() || entry.measures.is_some() || !entry.measures_by_prefix.is_empty() {
        return Err(format!("{path}: `b` and `measures` are for op sweeps"));
    }
    Ok(())
}

/// `all` or comma-separated ids, against the series the arm was built from.
fn resolve_patches(list: &str, series: &Series, context: &str) -> Result<Vec<String>, String> {
    if list.trim() == "all" {
        return Ok(series.ids());
    }
    let ids: Vec<String> =
        list.split(',').map(str::trim).filter(|s| !s.is_empty()).map(String::from).collect();
    if let Some(unknown) = ids.iter().find(|id| series.patch(id).is_none()) {
        return Err(format!(
            "{context}: patch `{unknown}` is not in the series of {}",
            series.label()
        ));
    }
    Ok(ids)
}

pub fn read(root: &Path) -> Result<Sources, String> {
    let current = current_series(root)?;
    let mut subjects = BTreeMap::new();
    for patch in &current.patches {
        let path = root.join("patches").join(&patch.name);
        let text =
            fs::read_to_string(&path).map_err(|e| format!("reading {}: {e}", path.display()))?;
        let subject =
            patch_subject(&text).ok_or_else(|| format!("{}: no Subject: line", path.display()))?;
        subjects.insert(patch.id().to_string(), subject);
    }
    let Recorded { series, mut phases } = recorded_series(root)?;
    phases.remove("about");
    for id in current.ids() {
        match phases.get(&id).map(String::as_str) {
            Some("prefill" | "decode") => {}
            _ => {
                return Err(format!(
                    "{SERIES_FILE}: end_to_end_phase has no `prefill` or `decode` for patch `{id}`"
                ))
            }
        }
    }
    let mut e2e = Vec::new();
    for f in E2E_FOLDERS {
        for (file, entry, mut source) in folder(root, f, &series)? {
            let json: E2eJson = read_json(&file)?;
            source.date = json.provenance.date.chars().take(10).collect();
            for (arm, side) in [("A", &json.arms.a), ("B", &json.arms.b)] {
                resolve_patches(&side.mlx.patches.join(","), &source.series, &source.path)
                    .map_err(|e| format!("{e} (arm {arm}); is its commit right?"))?;
                if !side.spec.env.is_empty() {
                    return Err(format!(
                        "{}: arm {arm} ran with {} set for it alone: a run-time switch, not a \
                         series; keep this report out of the book's folders",
                        source.path,
                        side.spec.env.join(", ")
                    ));
                }
            }
            no_op_fields(&entry, &source.path)?;
            e2e.push(E2eRun {
                source,
                device: json.arms.b.device,
                a_patches: json.arms.a.mlx.patches,
                b_patches: json.arms.b.mlx.patches,
                preset: json.workload.preset.unwrap_or_else(|| "a checkpoint".into()),
                prompt_len: json.workload.prompt_len,
                prefill_chunk: json.workload.prefill_chunk,
                gen_len: json.workload.gen_len,
                pairs: json.pairs,
                verdict: json.verdict,
                prefill: json.ratio.prefill_tps,
                decode: json.ratio.decode_tps,
                memory: json.ratio.peak_memory_bytes,
            });
        }
    }
    let mut ops = Vec::new();
    for f in OPS_FOLDERS {
        for (file, entry, mut source) in folder(root, f, &series)? {
            let json: OpsJson = read_json(&file)?;
            let rows_per_graph =
                json.meta.rows_per_graph.unwrap_or(crate::ops_points::ROWS_PER_GRAPH);
            if rows_per_graph != crate::ops_points::ROWS_PER_GRAPH {
                // A point's key leaves its calls out: such a point would pass for the default's.
                return Err(format!(
                    "{}: {rows_per_graph} rows per expert to a graph (`--rows-per-graph`), not the \
                     default {}: a diagnostic, not a source of the book; keep it in its run folder",
                    source.path,
                    crate::ops_points::ROWS_PER_GRAPH
                ));
            }
            source.date = json.meta.date.chars().take(10).collect();
            let b = entry
                .b
                .as_deref()
                .ok_or_else(|| format!("{}: no `b` in its manifest", source.path))?;
            let b_patches = resolve_patches(b, &source.series, &source.path)?;
            for id in entry.measures.iter().chain(entry.measures_by_prefix.values().flatten()) {
                if current.patch(id).is_none() && source.series.patch(id).is_none() {
                    return Err(format!(
                        "{}: `measures` names `{id}`, neither a current patch nor one of its series",
                        source.path
                    ));
                }
            }
            let point = |p: OpJson| {
                let measures = entry.measures_for(&p.args).map(String::from);
                p.point(measures)
            };
            ops.push(OpsRun {
                source,
                tool: json.meta.tool.unwrap_or_else(|| OP_AB_PY.into()),
                b_patches,
                points: json.results.into_iter().map(point).collect(),
            });
        }
    }
    let scripts = crate::book_scripts::read(root, &series)?;
    Ok(Sources { current, subjects, phases, e2e, ops, scripts })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subject_unfolds_and_drops_patch_tag() {
        let text = "From 1 Mon\nSubject: [PATCH] [Metal] gather_qmm_rhs: 32x64 tile\n (transposed)\n\nbody";
        assert_eq!(patch_subject(text).unwrap(), "[Metal] gather_qmm_rhs: 32x64 tile (transposed)");
        assert_eq!(patch_subject("no header").as_deref(), None);
    }

    #[test]
    fn digest_is_sha256sum_of_sha256sum_lines() {
        let s = Series {
            commit: Some("0123456789abcdef".into()),
            date: "2026-12-01".into(),
            patches: vec![PatchFile {
                name: "0001-a.patch".into(),
                sha256: "ab".into(),
                diff: "d1".into(),
                files: vec![],
            }],
        };
        assert_eq!(s.digest(), digest::bytes(b"ab  0001-a.patch\n")[..12]);
        assert_eq!(s.label(), format!("2026-12-01, commit 0123456, series {}", s.digest()));
        // Another message, the same diff: another file, the same code.
        let mut other = s.clone();
        other.patches[0].sha256 = "ac".into();
        assert_ne!(other.digest(), s.digest());
        assert_eq!(other.code_digest(), s.code_digest());
        other.patches[0].diff = "d2".into();
        assert_ne!(other.code_digest(), s.code_digest());
    }

    #[test]
    fn a_patch_a_backend_does_not_compile_leaves_its_code_as_it_was() {
        let patch = |name: &str, diff: &str, files: &[&str]| PatchFile {
            name: name.into(),
            sha256: format!("{diff}-file"),
            diff: diff.into(),
            files: files.iter().map(|f| f.to_string()).collect(),
        };
        let series =
            |patches: Vec<PatchFile>| Series { commit: None, date: String::new(), patches };
        let cpu = patch("0001-cpu.patch", "d1", &[]);
        let then = series(vec![cpu.clone()]);
        let cuda_only = patch(
            "0002-cuda.patch",
            "d2",
            &["mlx/backend/cuda/allocator.cpp", "tests/cuda_tests.cpp"],
        );
        let now = series(vec![cpu.clone(), cuda_only]);
        assert!(then.same_code_on(&now, Backend::Cpu));
        assert!(!then.same_code_on(&now, Backend::Cuda));
        // A patch in common code, or one whose files are unknown, changes every backend.
        let common = patch("0002-common.patch", "d3", &["mlx/ops.cpp"]);
        assert!(!then.same_code_on(&series(vec![cpu.clone(), common]), Backend::Cpu));
        let unknown = patch("0002-unknown.patch", "d4", &[]);
        assert!(!then.same_code_on(&series(vec![cpu.clone(), unknown]), Backend::Cpu));
        // A changed diff is another code, whatever was added.
        let metal = patch("0002-metal.patch", "d5", &["mlx/backend/metal/x.metal"]);
        let changed = series(vec![patch("0001-cpu.patch", "d1b", &[]), metal]);
        assert!(!then.same_code_on(&changed, Backend::Cuda));
        let source = |path: &str| Source {
            path: path.into(),
            date: String::new(),
            machine: String::new(),
            series: then.clone(),
            note: None,
        };
        assert_eq!(source("reports/cpu/ops/x.json").backend(), Backend::Cpu);
        assert_eq!(source("reports/h200/e2e/x.json").backend(), Backend::Cuda);
    }

    #[test]
    fn non_square_attention_points() {
        let point = |args: &str| OpPoint {
            args: args.into(),
            measures: None,
            a_seconds: 1.0,
            b_seconds: 1.0,
            ratio: crate::stats::summarize_ratios(vec![1.0], 1),
            identical: true,
        };
        assert!(point("softmax float32 8 512 8192").non_square());
        assert!(!point("sdpa float32 8 2048 2048").non_square());
        assert!(!point("gather_qmm affine4 up 8").non_square());
    }
}
