//! Sorted gather_qmm (the mixture-of-experts expert product) must give stock MLX's outputs: the
//! gather-qmm-tiles patch on the CPU (which also tiles dense quantized_matmul, each case's
//! second output; on CUDA experiments change that one: qmm-sm90-aot.patch),
//! affine-gather-rhs and gather-qmm-tiles-cuda on CUDA change which kernel runs and how rows
//! are tiled, not what is computed. Seeded cases
//! (`mlx_tests::moe`: every mode, bit width, group size, float dtype and orientation, x with
//! NaN, +-inf and -0 in four layouts, rows routed uniformly, Zipf-like or to one hot expert,
//! some at Qwen3-30B-A3B's expert shapes) are evaluated here and by `graph-eval moe` built
//! against stock, in another process, on `mlx_tests::device()` (`MLX_TESTS_DEVICE=gpu`: the
//! GPU). An MLX error agrees only with the same error in stock.
//!
//! NaNs compare by position, not payload: on the CPU the per-row path and the tiles multiply
//! NaNs in operand orders the compiler picks (see gather_qmm_tiles.rs), so which NaN comes out
//! is not a function of the inputs. Every other bit is compared.
//!
//! On the GPU, stock's qmm_sm80 mainloop loads three K tiles before it checks how many there
//! are: below three tiles (K < 3 * max(64, group size)) it reads past x and w, and faults where
//! no page follows them (in about 1 of 8,000 cases on the H200, 2026-12-04: affine and mxfp8).
//! There a stock fault is no verdict: the case must then equal the per-row path here (the
//! unsorted call), which affine-gather-rhs and gather-qmm-tiles-cuda keep bit for bit; the
//! count of such cases is printed.
//!
//! On the GPU the dense product is left out where stock may send it to qmm_sm90: two stock
//! processes disagreed there (`moe::dense_on_stock_qmm_sm90`). Those products are checked in
//! one process instead: `dense_products_stock_sends_to_qmm_sm90`.
//!
//! `random_cases_match_stock` runs 200 cases (the short mode), or `MLX_FUZZ_CASES`.

mod stock_helper;

use mlx_tests::against_stock::{flip_a_compared_bit, Agreement, Nans, StockFault, Suite};
use mlx_tests::moe;
use stock_helper::stock_helper;

fn on_gpu() -> bool {
    mlx_tests::device().kind == mlx::DeviceType::Gpu
}

fn replay(seed: u64) -> String {
    format!(
        "replay: MLX_FUZZ_SEED={seed} MLX_FUZZ_CASES=1 cargo test -p mlx-tests --test \
         gather_qmm_vs_stock random_cases -- --nocapture"
    )
}

fn suite() -> Suite<'static> {
    Suite {
        helper: stock_helper(),
        word: Some("moe"),
        nans: Nans::AnyPayload,
        describe: |seed| moe::describe(seed, on_gpu()),
        replay,
        stock_fault: on_gpu().then_some(StockFault {
            report: "reports/upstream/cuda-qmm-sm80-prologue-past-k.md",
            reaches: moe::stock_reads_past_k,
            reference: moe::evaluate_per_row,
        }),
    }
}

/// Most cases must compute something and be compared with stock, or the agreement says little.
fn assert_mostly_compared(agreement: &Agreement, cases: usize) {
    let Agreement { refused, stock_faulted } = agreement;
    assert!(
        (refused + stock_faulted) * 10 <= cases,
        "of {cases} cases {refused} refused, {stock_faulted} faulted in stock"
    );
}

/// Cases per stock process.
const BATCH: usize = 100;

#[test]
fn random_cases_match_stock() {
    let plan = mlx_tests::fuzz::plan(200);
    let start = std::time::Instant::now();
    let seeds: Vec<u64> = (0..plan.cases).map(|i| plan.seed.wrapping_add(i)).collect();
    let mut total = Agreement::default();
    for (i, batch) in seeds.chunks(BATCH).enumerate() {
        total += suite().check(batch, moe::evaluate).unwrap();
        if (i + 1) % 10 == 0 {
            eprintln!(
                "fuzz: {} cases match, {:.0} s",
                (i + 1) * BATCH,
                start.elapsed().as_secs_f64()
            );
        }
    }
    eprintln!(
        "fuzz: {}; {} refused by both with the same error; {} faulted in stock and equal the \
         per-row path here",
        coverage(&seeds, start.elapsed()),
        total.refused,
        total.stock_faulted
    );
    assert_mostly_compared(&total, seeds.len());
}

/// What a run covered (shown with --nocapture), counted from the cases' plans.
fn coverage(seeds: &[u64], took: std::time::Duration) -> String {
    let cases: Vec<moe::Case> = seeds.iter().map(|&s| moe::case(s, on_gpu())).collect();
    let count = |f: &dyn Fn(&moe::Case) -> bool| cases.iter().filter(|c| f(c)).count();
    let modes = [
        mlx::quantized::QuantMode::Affine,
        mlx::quantized::QuantMode::Mxfp4,
        mlx::quantized::QuantMode::Mxfp8,
        mlx::quantized::QuantMode::Nvfp4,
    ]
    .map(|m| format!("{m:?} {}", count(&|c| c.quant.mode == m)));
    format!(
        "{} cases agree with stock on the {} in {:.1} s ({}); {} with more than 64 experts, {} \
         with an expert of 8 times the mean rows or more, {} not transposed, {} with empty \
         experts; {} dense products not compared (qmm_sm90's)",
        cases.len(),
        if on_gpu() { "GPU" } else { "CPU" },
        took.as_secs_f64(),
        modes.join(", "),
        count(&|c| c.runs.len() > 64),
        count(&|c| {
            let rows: usize = c.runs.iter().sum();
            c.runs.iter().any(|&r| r * c.runs.len() >= 8 * rows.max(1) && c.runs.len() > 1)
        }),
        count(&|c| !c.transpose),
        count(&|c| c.runs.contains(&0)),
        if on_gpu() { count(&moe::dense_on_stock_qmm_sm90) } else { 0 },
    )
}

/// Where stock's dense product is no reference (`moe::dense_on_stock_qmm_sm90`), it is checked
/// in one process: the same bits again over memory a NaN array held last (a kernel that reads
/// what it did not write shows here), and, at the rows the gather routes to the first expert,
/// the gather's values within two kernels' rounding (`moe::first_disagreement`; a kernel that
/// reads wrong parameters misses by far more). On the CPU the same cases run on its kernels.
/// The second expert's rows, other weights, must mostly disagree: the check can fail. Built
/// with CUDA 13, stock's qmm_sm90 fails here (its NVRTC Params,
/// reports/upstream/cuda13-tensormap-alignment-jit-params.md): on an H100 both arms of
/// 3a4cf4c failed at seed 32, -7.8e37 for -0.0288 (reports/h200/h100-2026-12-06-3a4cf4c/).
/// Patch 0009 keeps these products off qmm_sm90, so with it this passes (an H100, a694b96:
/// reports/h200/h100-2026-12-06-a694b96/); without it (stock, or `--no-default-features`), it
/// fails on Hopper under CUDA 13.
#[test]
fn dense_products_stock_sends_to_qmm_sm90() {
    let seeds: Vec<u64> = (0..2000)
        .filter(|&s| moe::dense_on_stock_qmm_sm90(&moe::case(s, on_gpu())))
        .take(32)
        .collect();
    assert!(seeds.len() >= 8, "only {} such cases in 2,000 seeds", seeds.len());
    let (mut against_gather, mut other_expert, mut caught) = (0, 0, 0);
    for &seed in &seeds {
        let what = moe::describe(seed, on_gpu());
        let (first, second) = moe::dense_twice_over_nan(seed).unwrap();
        let differs =
            mlx_tests::against_stock::first_difference(&[second], &[first], Nans::AnyPayload);
        assert!(differs.is_none(), "seed {seed} ({what}), again over NaN (here): {differs:?}");
        let case = moe::case(seed, on_gpu());
        let row = (case.m * case.n) as usize;
        let (gather, dense) = moe::gather_and_dense(seed).unwrap();
        // Where expert e's rows' values lie.
        let of = |e: usize| {
            let start = case.runs[..e].iter().sum::<usize>() * row;
            start..start + case.runs[e] * row
        };
        if case.runs[0] > 0 {
            let differs = moe::first_disagreement(&gather[of(0)], &dense[of(0)], row);
            assert!(differs.is_none(), "seed {seed} ({what}), gather against dense: {differs:?}");
            against_gather += 1;
        }
        if case.runs.get(1).is_some_and(|&rows| rows > 0) {
            other_expert += 1;
            let differs = moe::first_disagreement(&gather[of(1)], &dense[of(1)], row);
            caught += usize::from(differs.is_some());
        }
    }
    // A row of x that is all NaN, infinite or zero gives the same outputs by any weights.
    assert!(
        against_gather >= 8 && caught * 2 > other_expert,
        "of {} cases {against_gather} had rows of the first expert; the second expert's rows \
         disagreed in {caught} of {other_expert}",
        seeds.len()
    );
}

/// A case with one flipped bit in its output fails, naming the seed and how to replay it. The
/// flipped case is the first seed from 2 with a bit the comparison sees: an empty or all-NaN
/// output has none, and which seeds give one depends on the device (on the H200, 2026-12-03,
/// seed 2's did not).
#[test]
fn a_flipped_bit_fails_naming_its_seed() {
    // The search keeps the flipped case's outputs, so the check does not evaluate it again.
    let (target, outputs) = (2..64)
        .find_map(|seed| {
            let mut outputs = moe::evaluate(seed).unwrap();
            let flipped = outputs.iter_mut().any(|o| flip_a_compared_bit(o, Nans::AnyPayload));
            flipped.then_some((seed, outputs))
        })
        .expect("no case from 2 to 63 can be flipped");
    let mut outputs = Some(outputs);
    let flipped = |seed| match outputs.take_if(|_| seed == target) {
        Some(outputs) => Ok(outputs),
        None => moe::evaluate(seed),
    };
    let error = suite().check(&[1, target, target + 1], flipped).unwrap_err();
    assert!(error.starts_with(&format!("seed {target} (")), "{error}");
    assert!(error.contains(&format!("MLX_FUZZ_SEED={target} MLX_FUZZ_CASES=1")), "{error}");
}

/// Random seeds that once failed on the GPU, kept: 2026-12-04 on the H200, an illegal memory
/// access (8-bit affine, K = 64: qmm_sm80's prologue loaded K tiles past w's end; since then
/// affine-gather-rhs bounds it). A load past a buffer faults only where no page follows it,
/// so this case can pass with the fault still there; compute-sanitizer's memcheck sees it.
const GPU_REGRESSIONS: [u64; 1] = [3326763638];

/// The same cases in every run (the random test's seeds change from run to run): 64 seeds and
/// the regressions.
#[test]
fn fixed_seeds_match_stock() {
    let seeds: Vec<u64> = (0..64).chain(GPU_REGRESSIONS).collect();
    assert_mostly_compared(&suite().check(&seeds, moe::evaluate).unwrap(), seeds.len());
}

/// The GPU warm-up's groups (`graph-eval moe-groups`) split the seeds by quantization: every
/// seed in one group, one quantization per group, none in two groups; on the GPU the five
/// configurations its cases draw.
#[test]
fn seeds_group_by_quantization() {
    for gpu in [false, true] {
        let groups = moe::seeds_by_quant(0..300, gpu);
        let mut seeds = groups.concat();
        seeds.sort_unstable();
        assert_eq!(seeds, (0..300).collect::<Vec<u64>>());
        let quant = |seed| moe::case(seed, gpu).quant;
        let quants: Vec<moe::Quant> = groups.iter().map(|group| quant(group[0])).collect();
        for (group, q) in groups.iter().zip(&quants) {
            assert!(group.iter().all(|&seed| quant(seed) == *q), "{q:?}");
        }
        for (i, q) in quants.iter().enumerate() {
            assert!(!quants[i + 1..].contains(q), "{q:?} in two groups");
        }
        if gpu {
            assert_eq!(groups.len(), 5, "{quants:?}");
        }
    }
}
