//! The A/B report: every sample, the paired ratios with their statistics, the correctness
//! verdict and provenance. Written as JSON; `markdown` renders the summary.

use crate::arm::ArmSpec;
use crate::compare::{AgainstNoise, Comparison, Divergence, DivergenceSummary};
use crate::provenance::Provenance;
use crate::stats::{median, RatioSummary};
use crate::workload::Workload;
use mlx_ab_protocol::DeviceKind;
use mlx_ab_protocol::Info;
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub pairs: usize,
    pub warmup_rounds: usize,
    /// Measured slots in run order, e.g. `ABBABAAB`.
    pub order: String,
    /// `identical` (bit for bit, both arms deterministic), `different` (deterministic arms whose
    /// outputs differ), or `nondeterministic` (an arm does not reproduce itself bit for bit, so
    /// bit identity cannot be claimed either way: read `ab_divergence` against each arm's
    /// `self_divergence` instead).
    pub verdict: Verdict,
    /// Arms (`A`, `B`) whose runs did not all reproduce their first run bit for bit.
    pub nondeterministic_arms: Vec<String>,
    /// A vs B over every pair: KL divergence, top-1 agreement, largest logit difference.
    pub ab_divergence: DivergenceSummary,
    /// Only when `verdict` is `nondeterministic`: `ab_divergence` next to the self-divergence of
    /// the arms that did not reproduce themselves: `within` (no measure further apart),
    /// `beyond` (some measure further apart: noise does not explain it) or `undecided`.
    pub ab_against_noise: Option<AgainstNoise>,
    /// Every pair generated the same tokens in both arms.
    pub token_identical: bool,
    /// Every pair's logits are bit-identical in both arms, at every step.
    pub logits_bitwise_identical: bool,
    /// Each arm reproduced its own first run's tokens and logits bit for bit in every run
    /// (warm-up included). When false, an A/B difference cannot be pinned on the patches.
    pub arms_deterministic: bool,
    /// The first pair (in pair order) whose outputs differ, and where.
    pub first_divergence: Option<PairDivergence>,
    pub per_pair: Vec<PairReport>,
    pub arms: Arms,
    /// B/A per pair: above 1 means B is faster (tokens/s) or uses more memory.
    pub ratio: Ratios,
    pub workload: Workload,
    pub bootstrap: Bootstrap,
    pub provenance: Provenance,
    /// Things the reader must know (unexercised paths, patches that were requested but absent).
    pub warnings: Vec<String>,
    /// 0 identical, 1 outputs differ or an arm is not deterministic.
    pub exit_status: u8,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Identical,
    Different,
    Nondeterministic,
}

impl Verdict {
    pub fn of(bitwise_identical: bool, arms_deterministic: bool) -> Verdict {
        match (arms_deterministic, bitwise_identical) {
            (false, _) => Verdict::Nondeterministic,
            (true, true) => Verdict::Identical,
            (true, false) => Verdict::Different,
        }
    }

    pub fn exit_status(self) -> u8 {
        if self == Verdict::Identical {
            0
        } else {
            1
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct PairDivergence {
    pub pair: usize,
    #[serde(flatten)]
    pub at: Divergence,
    /// KL(A || B) and top-1 agreement over this pair's same-context steps.
    pub kl_mean: Option<f64>,
    pub top1_agreement: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct PairReport {
    pub pair: usize,
    /// `AB` or `BA`: which arm ran first.
    pub order: String,
    #[serde(flatten)]
    pub comparison: Comparison,
}

#[derive(Debug, Clone, Serialize)]
pub struct Arms {
    #[serde(rename = "A")]
    pub a: ArmReport,
    #[serde(rename = "B")]
    pub b: ArmReport,
}

#[derive(Debug, Clone, Serialize)]
pub struct ArmReport {
    pub label: String,
    pub spec: ArmSpec,
    /// What the arm's worker reports it links.
    pub mlx: Info,
    /// The device this arm's numbers come from.
    pub device: DeviceKind,
    /// The worker binary that ran.
    pub worker: String,
    /// Built here by cargo (`build_dir` is its target directory) or prebuilt (`build_dir` is the
    /// installed layout given with `--a-prebuilt` / `--b-prebuilt`).
    pub prebuilt: bool,
    pub build_dir: String,
    pub load_seconds: f64,
    /// This arm's runs all matched its first run bit for bit.
    pub deterministic: bool,
    /// The first of its own runs that did not (run index, counting warm-ups).
    pub first_nondeterministic_run: Option<usize>,
    /// Its runs (warm-up included) against its first run: run-to-run noise.
    pub self_divergence: DivergenceSummary,
    pub prefill_tps: Samples,
    pub decode_tps: Samples,
    pub peak_memory_bytes: Samples,
    pub prefill_seconds: Samples,
    pub decode_seconds: Samples,
}

/// Per-pair values in pair order, and their median.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Samples {
    pub samples: Vec<f64>,
    pub median: Option<f64>,
}

impl Samples {
    pub fn new(samples: Vec<f64>) -> Self {
        Samples { median: median(&samples), samples }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Ratios {
    pub prefill_tps: RatioSummary,
    pub decode_tps: RatioSummary,
    pub peak_memory_bytes: RatioSummary,
}

#[derive(Debug, Clone, Serialize)]
pub struct Bootstrap {
    pub method: &'static str,
    pub iterations: usize,
    pub seed: u64,
}
