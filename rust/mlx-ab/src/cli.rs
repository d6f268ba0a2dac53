//! Command line: subcommands and their options.

use crate::ops_points;
use clap::builder::RangedU64ValueParser;
use clap::{Args, Parser, Subcommand};
use mlx_ab_protocol::DeviceKind;
use std::path::PathBuf;

#[derive(Parser)]
#[command(version, about = "Build, run and compare MLX builds: stock against patched, or any two.")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand)]
pub enum Command {
    /// A/B two MLX builds on one model: identical tokens and logits? how much faster?
    /// Exit status: 0 identical, 1 outputs differ, 2 error.
    Run(Box<RunArgs>),
    /// Print, as JSON, the MLX of one arm's worker: version, applied patches, source digest.
    Info(WorkerChoice),
    /// Write a synthetic checkpoint (config.json + model.safetensors) from a preset and a seed,
    /// with one arm's worker (the weights are made with MLX).
    MakeModel {
        #[command(flatten)]
        worker: WorkerChoice,
        #[command(flatten)]
        options: mlx_ab_protocol::MakeModelArgs,
    },
    /// Generate greedily with one arm's worker; print the token ids and a SHA-256 of each
    /// step's logits.
    Generate(GenerateCommand),
    /// Find the op that is not deterministic: with one arm's worker, run a prompt's forward
    /// passes several times in one process with every intermediate array recorded, print each
    /// one's bitwise comparison with the first run and name the first that differs.
    /// Exit status: 0 all identical, 1 some differ, 2 error.
    Determinism(DeterminismCommand),
    /// A/B single MLX ops between two installed builds (DIR/bin/op-bench, DIR/lib first on the
    /// library path), pairs in `run`'s order and with `run`'s statistics.
    /// Exit status: 0 identical, 1 outputs differ, 2 error, 3 stopped by SIGTERM / SIGINT
    /// (the finished points are reported).
    Ops(Box<OpsArgs>),
    /// A/B a benchmark script between two installed builds: the command runs once per arm per
    /// pair in `run`'s order with DIR/lib first on the library path (the loader must show it
    /// loaded that libmlx.so), and each `Timing NAME ... T msec` line it prints (MLX's
    /// `benchmarks/` form) gets `ops`' statistics. Outputs are not compared.
    /// Exit status: 0 measured, 2 error (no report).
    Script(Box<ScriptArgs>),
    /// Build (or reuse) the worker of an arm and print its path.
    BuildWorker {
        /// `all`, `none` or a comma-separated list of patch ids.
        #[arg(long, default_value = "all")]
        patches: String,
        /// For mlx-ab's own tests: a worker with the test-only `fault-injection` feature, which
        /// aborts or hangs at the run `MLX_AB_WORKER_ABORT_AT_RUN` / `MLX_AB_WORKER_HANG_AT_RUN`
        /// names (built beside the arm's production worker, never in its place).
        #[arg(long)]
        fault_injection: bool,
    },
    /// The sorted gather_qmm points of `ops` reports against a machine's limits (achieved TB/s
    /// over the bytes a call must move, TFLOP/s), as a table and, with --json, roofline.json
    /// naming the patch series the arms ran (from the reports' RUNS.json and
    /// reports/series.json). Defaults: the H200's measured copy bandwidth and dense bf16 rate.
    Roofline {
        /// `mlx-ab ops` reports in folders with a RUNS.json, all of one commit and machine.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[arg(long, default_value_t = 4.3)]
        bandwidth_tbps: f64,
        #[arg(long, default_value_t = 790.0)]
        bf16_tflops: f64,
        #[arg(long)]
        json: Option<PathBuf>,
        /// Repository root (default: this checkout's).
        #[arg(long, value_name = "DIR")]
        root: Option<PathBuf>,
    },
    /// Write BENCHMARKS.md from the raw files under reports/ (and their RUNS.json manifests).
    /// With --check, write nothing: exit 1 when the committed file differs from what they give.
    Book {
        #[arg(long)]
        check: bool,
        /// Repository root (default: this checkout's).
        #[arg(long, value_name = "DIR")]
        root: Option<PathBuf>,
        /// Only add COMMIT's series (its patches/ as git holds it) to reports/series.json, so
        /// that raw files of that commit can name it in their RUNS.json.
        #[arg(long, value_name = "COMMIT", conflicts_with = "check")]
        record_series: Option<String>,
    },
}

/// Which worker a forwarded subcommand runs in: one built here with `--patches`, or a prebuilt
/// layout's.
#[derive(Args)]
pub struct WorkerChoice {
    /// `all`, `none` or a comma-separated list of patch ids: build (or reuse) that arm's worker.
    #[arg(long, default_value = "all")]
    pub patches: String,
    /// Use the worker of this installed layout (DIR/bin/mlx-ab-worker, DIR/lib first on the
    /// library path) instead of building one.
    #[arg(long, value_name = "DIR", conflicts_with = "patches")]
    pub prebuilt: Option<PathBuf>,
}

#[derive(Args)]
pub struct GenerateCommand {
    #[command(flatten)]
    pub worker: WorkerChoice,
    /// Run the worker with every setting that makes MLX's CUDA path deterministic (today
    /// `MLX_CUDA_USE_CUDNN_SDPA=0`: cuDNN's attention off). No effect on the CPU.
    #[arg(long)]
    pub deterministic: bool,
    #[command(flatten)]
    pub options: mlx_ab_protocol::GenerateArgs,
}

#[derive(Args)]
pub struct DeterminismCommand {
    #[command(flatten)]
    pub worker: WorkerChoice,
    /// Run the worker with every setting that makes MLX's CUDA path deterministic (today
    /// `MLX_CUDA_USE_CUDNN_SDPA=0`: cuDNN's attention off). No effect on the CPU.
    #[arg(long)]
    pub deterministic: bool,
    #[command(flatten)]
    pub options: mlx_ab_protocol::DeterminismArgs,
}

#[derive(Args)]
pub struct RunArgs {
    /// Checkpoint directory (mlx-lm layout). Default: the synthetic `--preset` model, written
    /// once into the cache.
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// Synthetic model preset used when `--model` is not given.
    #[arg(long, default_value = "bench")]
    pub preset: String,
    /// Seed of the synthetic model and of the prompt.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Prompt tokens. Default: the preset's (bench: 1024); for `--model`, two prefill chunks.
    #[arg(long)]
    pub prompt_len: Option<usize>,
    /// Generated tokens, i.e. steps compared. Default: the preset's (bench: 32); else 32.
    #[arg(long)]
    pub gen_len: Option<usize>,
    /// Prefill chunk. Default: the preset's (bench: 512); for `--model`, the smallest chunk giving
    /// >= 512 attention rows and >= 16 rows per expert (chunk * experts_per_token / experts).
    #[arg(long)]
    pub prefill_chunk: Option<usize>,
    /// Measured pairs (each runs A once and B once, in a balanced order). At least 6 are needed
    /// for the sign test to reach p < 0.05.
    #[arg(long, default_value_t = 8)]
    pub pairs: usize,
    /// Warm-up rounds before the pairs (each arm once per round; not measured).
    #[arg(long, default_value_t = 1)]
    pub warmup: usize,
    /// Device every arm's worker runs on. Default: the GPU when the workers' MLX has one, else
    /// the CPU. `gpu` on a build without a GPU is an error.
    #[arg(long, value_enum)]
    pub device: Option<DeviceKind>,
    /// Seconds a worker may take for one reply (loading the model, or one whole generation)
    /// before it is killed and the run stops; 0: no limit.
    #[arg(long, default_value_t = 3600)]
    pub worker_timeout: u64,
    /// Run both arms with every setting that makes MLX's CUDA path deterministic (today
    /// `MLX_CUDA_USE_CUDNN_SDPA=0`: cuDNN's attention off), recorded in the report with whether
    /// each applies (none does on the CPU). Each arm must run at least twice (--pairs + --warmup
    /// >= 2) so that "identical" rests on both arms reproducing themselves.
    #[arg(long)]
    pub deterministic: bool,
    #[command(flatten)]
    pub a: ArmA,
    #[command(flatten)]
    pub b: ArmB,
    #[command(flatten)]
    pub report: ReportArgs,
}

#[derive(Args)]
pub struct OpsArgs {
    /// Arm A's installed layout (the baseline): DIR/bin/op-bench and DIR/lib with libmlx.so.
    #[arg(long, value_name = "DIR")]
    pub a: PathBuf,
    /// Arm B's installed layout.
    #[arg(long, value_name = "DIR")]
    pub b: PathBuf,
    /// Sweeps to run, comma separated, in this order.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "all")]
    pub sweep: Vec<ops_points::Sweep>,
    /// gather_qmm quantization modes, comma separated (default: mxfp4,nvfp4,mxfp8,affine4).
    #[arg(long, value_name = "MODE,...", value_delimiter = ',')]
    pub modes: Vec<String>,
    /// Measured pairs per point (each runs A once and B once, in `run`'s balanced order).
    #[arg(long, default_value_t = 6, value_parser = RangedU64ValueParser::<usize>::new().range(1..))]
    pub pairs: usize,
    /// Evaluations per timed request (the worker replies with their median).
    #[arg(long, default_value_t = 3, value_parser = RangedU64ValueParser::<usize>::new().range(1..))]
    pub reps: usize,
    /// Time each pair in worker processes started for it (each with its own warm-up), not in
    /// one process per arm for the whole run: what differs between two processes of one build
    /// (where the heap lands) then varies from pair to pair, where the interval sees it,
    /// instead of staying in every pair. Slower: two starts and warm-ups per pair.
    #[arg(long)]
    pub fresh_workers: bool,
    /// Before timing, send every point's warm-up once to N extra workers per arm, side by side:
    /// MLX compiles a CUDA build's kernels at run time, one after another within a process, so
    /// a sweep's compilation otherwise runs point after point (0: no such step). Untimed.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub precompile: usize,
    /// MLX_PTX_CACHE_DIR of arm A's worker.
    #[arg(long, value_name = "DIR")]
    pub a_ptx_cache: Option<PathBuf>,
    /// MLX_PTX_CACHE_DIR of arm B's worker.
    #[arg(long, value_name = "DIR")]
    pub b_ptx_cache: Option<PathBuf>,
    /// An environment variable for arm A's workers alone (repeatable). With `--a` and `--b` one
    /// build, this times a run-time switch (an experiment's) against the build's default, where
    /// nothing else differs; the report names it.
    #[arg(long = "a-env", value_name = "KEY=VALUE", value_parser = crate::ops_worker::parse_env_assignment)]
    pub a_env: Vec<(String, String)>,
    /// An environment variable for arm B's workers alone (repeatable).
    #[arg(long = "b-env", value_name = "KEY=VALUE", value_parser = crate::ops_worker::parse_env_assignment)]
    pub b_env: Vec<(String, String)>,
    /// Seconds after which no new point starts (0: no limit); the report says how many ran.
    #[arg(long, value_name = "S")]
    pub budget: Option<f64>,
    /// Run just the points whose label contains this text.
    #[arg(long, value_name = "TEXT")]
    pub only: Option<String>,
    /// Softmax sweep shapes HEADS:Q_LEN:KV_LEN, comma separated, for a smaller sweep on slow
    /// machines (default: 8:2048:2048,8:8192:8192,1:32768:32768,8:512:8192,8:512:32768).
    #[arg(long, value_name = "H:Q:KV,...", value_delimiter = ',', value_parser = ops_points::parse_triple)]
    pub softmax_shapes: Vec<[u64; 3]>,
    /// gather_qmm sweep EXPERTS:HIDDEN:WIDTH (default: Qwen3-30B-A3B's, 128:2048:768).
    #[arg(long, value_name = "E:H:W", value_parser = ops_points::parse_triple)]
    pub gather_shape: Option<[u64; 3]>,
    /// gather_qmm sweep rows per expert, comma separated (default: 1,2,4,8,16,32,64,128,256).
    #[arg(long, value_name = "R,...", value_delimiter = ',', value_parser = ops_points::parse_rows)]
    pub rows: Vec<u64>,
    /// gather_qmm's and qmm's calls per timed graph: as many independent calls as make R rows
    /// per expert in all, at least one. A larger R times large points back to back too, where
    /// one evaluation and synchronization per call (tens of microseconds on a GPU) otherwise
    /// counts in each call's time.
    #[arg(long, value_name = "R", default_value_t = ops_points::ROWS_PER_GRAPH, value_parser = RangedU64ValueParser::<u64>::new().range(1..))]
    pub rows_per_graph: u64,
    /// gather_qmm's expert loads, comma separated: uniform (every expert the same rows), zipf
    /// (expert i's share as 1 / (i + 1)), hot (expert 0 gets 8x the mean); each a point of its
    /// own at every rows per expert, which is then the mean. qmm: uniform only.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "uniform")]
    pub routing: Vec<mlx_ab_protocol::routing::Routing>,
    /// gather_qmm's and qmm's activation dtypes, comma separated: bfloat16, float32, float16
    /// (the weights are quantized from the same dtype); each a point of its own, whose args and
    /// label end with the dtype when it is not bfloat16.
    #[arg(
        long,
        value_name = "DTYPE,...",
        value_delimiter = ',',
        default_value = "bfloat16",
        value_parser = clap::builder::PossibleValuesParser::new(mlx_ab_protocol::ops::DTYPES)
    )]
    pub dtypes: Vec<String>,
    #[command(flatten)]
    pub report: ReportArgs,
}

#[derive(Args)]
pub struct ScriptArgs {
    /// Arm A's installed MLX (the baseline), with a shared DIR/lib/libmlx.so
    /// (`mlx-build build --shared`); its PATCHES and SERIES files name its patches.
    #[arg(long, value_name = "DIR")]
    pub a: PathBuf,
    /// Arm B's installed MLX.
    #[arg(long, value_name = "DIR")]
    pub b: PathBuf,
    /// Measured pairs (each runs the command once per arm, in `run`'s balanced order).
    #[arg(long, default_value_t = 6, value_parser = RangedU64ValueParser::<usize>::new().range(1..))]
    pub pairs: usize,
    /// Untimed rounds first, each running the command once per arm.
    #[arg(long, default_value_t = 1)]
    pub warmup_rounds: usize,
    /// MLX_PTX_CACHE_DIR of arm A's runs (MLX's CUDA JIT cache is keyed by version and kernel
    /// name only: two arms sharing one would run each other's kernels).
    #[arg(long, value_name = "DIR")]
    pub a_ptx_cache: Option<PathBuf>,
    /// MLX_PTX_CACHE_DIR of arm B's runs.
    #[arg(long, value_name = "DIR")]
    pub b_ptx_cache: Option<PathBuf>,
    #[command(flatten)]
    pub report: ReportArgs,
    /// The command, after `--`: e.g. `python3 gather_qmm_bench.py`.
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// Where `run`, `ops` and `script` write their report, and their bootstrap's seed.
#[derive(Args)]
pub struct ReportArgs {
    /// Write the report (every pair's or sample's values) as JSON here.
    #[arg(long, value_name = "F")]
    pub json: Option<PathBuf>,
    /// Write the Markdown table here (it is also printed on stdout).
    #[arg(long, value_name = "F")]
    pub md: Option<PathBuf>,
    /// Seed of the bootstrap resampling.
    #[arg(long, default_value_t = 0x5eed)]
    pub bootstrap_seed: u64,
}

impl ReportArgs {
    /// Writes `report` as JSON and `md` where asked, both or neither (as `run`'s report).
    pub fn write(&self, report: &impl serde::Serialize, md: &str) -> Result<(), String> {
        crate::run_report::write_json_and_markdown(
            report,
            self.json.as_deref(),
            self.md.as_deref(),
            md,
        )
    }
}

/// Arm A: the baseline.
#[derive(Args)]
pub struct ArmA {
    /// Patches of arm A: all, none, or ids separated by commas.
    #[arg(id = "a_patches", value_name = "LIST", long = "a-patches", default_value = "none")]
    pub patches: String,
    /// MLX checkout to build arm A from instead of the pinned v0.32.4 source.
    #[arg(id = "a_src", value_name = "PATH", long = "a-src")]
    pub src: Option<PathBuf>,
    /// Extra patch file applied to arm A's MLX after the series (repeatable).
    #[arg(id = "a_extra_patch", value_name = "FILE", long = "a-extra-patch")]
    pub extra_patch: Vec<PathBuf>,
    /// Run arm A from a prebuilt installed layout instead of building it: DIR/bin/mlx-ab-worker
    /// as the worker, DIR/lib (libmlx) first on the library path. No cargo, no workspace needed.
    #[arg(
        id = "a_prebuilt",
        value_name = "DIR",
        long = "a-prebuilt",
        conflicts_with_all = ["a_src", "a_extra_patch"]
    )]
    pub prebuilt: Option<PathBuf>,
    /// An environment variable for arm A's worker alone (repeatable): with both arms one
    /// build, this times a run-time switch (an experiment's) end to end; the report names it.
    #[arg(
        id = "a_env",
        value_name = "KEY=VALUE",
        long = "a-env",
        value_parser = crate::ops_worker::parse_env_assignment
    )]
    pub env: Vec<(String, String)>,
}

/// Arm B: the candidate.
#[derive(Args)]
pub struct ArmB {
    /// Patches of arm B: all, none, or ids separated by commas.
    #[arg(id = "b_patches", value_name = "LIST", long = "b-patches", default_value = "all")]
    pub patches: String,
    /// MLX checkout to build arm B from instead of the pinned v0.32.4 source.
    #[arg(id = "b_src", value_name = "PATH", long = "b-src")]
    pub src: Option<PathBuf>,
    /// Extra patch file applied to arm B's MLX after the series (repeatable).
    #[arg(id = "b_extra_patch", value_name = "FILE", long = "b-extra-patch")]
    pub extra_patch: Vec<PathBuf>,
    /// Run arm B from a prebuilt installed layout instead of building it: DIR/bin/mlx-ab-worker
    /// as the worker, DIR/lib (libmlx) first on the library path. No cargo, no workspace needed.
    #[arg(
        id = "b_prebuilt",
        value_name = "DIR",
        long = "b-prebuilt",
        conflicts_with_all = ["b_src", "b_extra_patch"]
    )]
    pub prebuilt: Option<PathBuf>,
    /// An environment variable for arm B's worker alone (repeatable): with both arms one
    /// build, this times a run-time switch (an experiment's) end to end; the report names it.
    #[arg(
        id = "b_env",
        value_name = "KEY=VALUE",
        long = "b-env",
        value_parser = crate::ops_worker::parse_env_assignment
    )]
    pub env: Vec<(String, String)>,
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// clap's own checks (unique argument and group names, ...), which otherwise run only when a
    /// debug build parses the subcommand in question.
    #[test]
    fn the_command_line_is_well_formed() {
        super::Cli::command().debug_assert();
    }

    #[test]
    fn deterministic_is_a_flag_of_run_generate_and_determinism() {
        use super::{Cli, Command};
        use clap::Parser;
        let parse = |args: &[&str]| Cli::try_parse_from(args).map(|c| c.command);
        let Ok(Command::Run(run)) = parse(&["mlx-ab", "run", "--deterministic"]) else {
            panic!("run --deterministic")
        };
        assert!(run.deterministic);
        let Ok(Command::Run(run)) = parse(&["mlx-ab", "run"]) else { panic!("run") };
        assert!(!run.deterministic);
        let prompt = ["--model", "m", "--tokens", "1,2"];
        let generate =
            [&["mlx-ab", "generate", "--deterministic", "--max-tokens", "2"], &prompt[..]];
        let Ok(Command::Generate(g)) = parse(&generate.concat()) else { panic!("generate") };
        assert!(g.deterministic && g.options.max_tokens == 2);
        let determinism = [&["mlx-ab", "determinism", "--deterministic"], &prompt[..]];
        let Ok(Command::Determinism(d)) = parse(&determinism.concat()) else {
            panic!("determinism")
        };
        assert!(d.deterministic);
        let Ok(Command::Determinism(d)) =
            parse(&[&["mlx-ab", "determinism"], &prompt[..]].concat())
        else {
            panic!("determinism without the flag")
        };
        assert!(!d.deterministic);
        // Not an option of the commands that run no model.
        assert!(parse(&["mlx-ab", "info", "--deterministic"]).is_err());
    }
}
