//! The patches must not change what MLX computes on whole graphs: seeded random graphs
//! (`mlx_tests::graphs`) evaluated in this process agree bit for bit with the same graphs
//! evaluated by `graph-eval` built against stock MLX, in another process. Written for a patch
//! to the eval walk (`patches/prs/05-eval-walk/`, held back from the series): to check one, add
//! it with `MLX_EXTRA_PATCHES`.
//!
//! `random_graphs_match_stock_bit_for_bit` runs 200 graphs (the short mode), or
//! `MLX_FUZZ_CASES` (the long mode), in batches, each batch evaluated here while the stock
//! helper evaluates it; with `--nocapture` it prints what the run covered.
//!
//! The stock helper: see `stock_helper/mod.rs`.

mod stock_helper;

use mlx_tests::against_stock::{first_difference, Nans, Suite};
use mlx_tests::graphs::{self, Kind, Output, Stats};
use stock_helper::stock_helper;

/// Normal builds compare every bit, NaNs included. In a sanitized build (`scripts/sanitize`)
/// the stock helper is a normal build, so the two processes' MLX are compiled with different
/// flags, and which NaN an operation yields (its sign and payload, the compiler's choice; seen:
/// -NaN under TSan, +NaN in both normal builds) may differ: there NaNs only have to be NaNs.
fn nans() -> Nans {
    if mlx_sys::build_info::SANITIZE.is_empty() {
        Nans::Exact
    } else {
        Nans::AnyPayload
    }
}

/// How to rerun one graph alone, patched against stock.
fn replay(seed: u64) -> String {
    format!(
        "replay: MLX_FUZZ_SEED={seed} MLX_FUZZ_CASES=1 cargo test -p mlx-tests --test graphs_vs_stock \
         random_graphs -- --nocapture"
    )
}

fn suite() -> Suite<'static> {
    Suite {
        helper: stock_helper(),
        word: None,
        nans: nans(),
        describe: |seed| format!("{:?} graph", graphs::kind(seed)),
        replay,
        stock_fault: None,
    }
}

/// Evaluates `seeds` with `ours` here and with the stock helper, at once; Err names the first
/// seed whose outputs differ and how to replay it. Returns each graph's stats.
fn check_against_stock(
    seeds: &[u64],
    ours: impl Fn(u64) -> mlx::Result<(Vec<Output>, Stats)>,
) -> Result<Vec<Stats>, String> {
    let mut stats = Vec::with_capacity(seeds.len());
    let refused = suite()
        .check(seeds, |seed| {
            ours(seed).map(|(outputs, graph)| {
                stats.push(graph);
                outputs
            })
        })?
        .refused;
    // The graphs are built from ops that accept their inputs: an error is a failure, even one
    // stock shares.
    if refused > 0 {
        return Err(format!("{refused} graphs failed to evaluate here and in stock"));
    }
    Ok(stats)
}

/// The seeds of `seeds` whose graphs are compared (`graphs::compared`), saying how many are
/// left out.
fn compared(seeds: impl IntoIterator<Item = u64>) -> Vec<u64> {
    let (kept, left): (Vec<u64>, Vec<u64>) = seeds.into_iter().partition(|&s| graphs::compared(s));
    if !left.is_empty() {
        eprintln!("{} seeds left out by MLX_TESTS_GRAPH_KINDS: {left:?}", left.len());
    }
    kept
}

#[test]
fn graphs_evaluate_alike_twice_in_one_process() {
    // Otherwise a difference from stock could be noise rather than the patches.
    for seed in compared(0..24) {
        let first = graphs::evaluate(seed).unwrap();
        let second = graphs::evaluate(seed).unwrap();
        assert_eq!(first_difference(&first, &second, nans()), None, "seed {seed}");
    }
}

#[test]
fn the_fixed_seeds_cover_what_a_graph_walk_must_handle() {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    let mut count = |what, n: usize| match counts.iter_mut().find(|(w, _)| *w == what) {
        Some((_, total)) => *total += n,
        None => counts.push((what, n)),
    };
    for seed in FIXED_SEEDS {
        let (outputs, s) = graphs::evaluate_with_stats(seed).unwrap();
        assert!(s.ops >= 10, "seed {seed}: {s:?}");
        let large = s.kind != Kind::Small;
        count("graphs on two streams", usize::from(s.streams == 2));
        count("graphs with repeated gathers", usize::from(s.gathers >= 2));
        count(
            "graphs with a fan-in wider than the BFS width limit",
            usize::from(s.widest_fan_in > 20),
        );
        count("graphs with an array read by 20 ops", usize::from(s.widest_fan_out >= 20));
        count("graphs with multi-output ops", usize::from(s.multi_output > 0));
        count("graphs with partial evals", usize::from(s.partial_evals > 0));
        count("graphs with partial async evals", usize::from(s.partial_async_evals > 0));
        count("partial evals after a free", s.evals_after_free);
        count("evals of evaluated arrays", s.re_evals);
        count("evaluated subgraphs extended and evaluated", s.extended_evals);
        count("intermediate values read", s.snapshots);
        count("freed arrays read by later ops", s.freed_used);
        count("freed siblings of a multi-output op", s.freed_siblings);
        // Timing decides how many are still computing (freed_pending, in the summary).
        count("arrays freed right after their async_eval", s.freed_after_async);
        count("freed evaluated arrays", s.freed_evaluated);
        count("purges of the pool", s.purges);
        count("shared arrays whose consumers are evaluated apart", s.shared_outputs);
        count("graphs evaluated a group of outputs at a time", usize::from(s.staggered_groups > 1));
        count(
            "chains of 1,000 ops between two evals",
            usize::from(s.kind == Kind::Chain && s.most_ops_between_evals >= 1000),
        );
        count(
            "wide graphs with a 1,000-wide fan-in",
            usize::from(large && s.widest_fan_in >= 1000),
        );
        count("large graphs with partial evals", usize::from(large && s.partial_evals > 0));
        count("large graphs with frees", usize::from(large && s.freed > 0));
        count("empty outputs", outputs.iter().filter(|o| o.bytes.is_empty()).count());
        count(
            "non-finite f32 output elements",
            outputs
                .iter()
                .filter(|o| o.dtype == mlx::Dtype::Float32)
                .flat_map(|o| {
                    o.bytes.chunks_exact(4).map(|c| f32::from_ne_bytes(c.try_into().unwrap()))
                })
                .filter(|x| !x.is_finite())
                .count(),
        );
    }
    eprintln!("{counts:?}");
    for (what, n) in counts {
        assert!(n > 0, "no {what} among the fixed seeds");
    }
}

#[test]
fn outputs_survive_encode_and_decode() {
    let outputs: Vec<Output> = (0..16).flat_map(|seed| graphs::evaluate(seed).unwrap()).collect();
    assert!(outputs.iter().any(|o| o.bytes.is_empty()), "some seeds give empty outputs");
    assert_eq!(graphs::decode(&graphs::encode(&outputs)).unwrap(), outputs);
}

#[test]
fn the_comparison_sees_a_single_flipped_bit() {
    let ours = graphs::evaluate(3).unwrap();
    let i = ours.iter().position(|o| !o.bytes.is_empty()).expect("a non-empty output");
    let mut flipped = ours.clone();
    let last = flipped[i].bytes.len() - 1;
    flipped[i].bytes[last] ^= 1;
    assert!(first_difference(&ours, &flipped, Nans::Exact).is_some());
}

const FIXED_SEEDS: std::ops::Range<u64> = 0..48;

#[test]
fn fixed_seeds_match_stock_bit_for_bit() {
    check_against_stock(&compared(FIXED_SEEDS), graphs::evaluate_with_stats).unwrap();
}

#[test]
fn a_flipped_bit_in_a_large_freed_graph_fails_against_stock_naming_its_seed() {
    // Seed 6: a chain of thousands of ops with frees and a value read mid-graph (output 0).
    let (outputs, stats) = graphs::evaluate_with_stats(6).unwrap();
    assert!(stats.kind == Kind::Chain && stats.ops >= 1000, "{stats:?}");
    assert!(stats.freed_used > 0 && stats.snapshots > 0, "{stats:?}");
    let last = outputs.iter().rposition(|o| !o.bytes.is_empty()).expect("a non-empty output");
    for output in [0, last] {
        let flipped = |seed| {
            let (mut outputs, stats) = graphs::evaluate_with_stats(seed)?;
            if seed == 6 {
                let bytes = &mut outputs[output].bytes;
                let middle = bytes.len() / 2;
                bytes[middle] ^= 1;
            }
            Ok((outputs, stats))
        };
        let error = check_against_stock(&[5, 6, 7], flipped).unwrap_err();
        assert!(error.starts_with(&format!("seed 6 (Chain graph): output {output} ")), "{error}");
        assert!(error.contains("MLX_FUZZ_SEED=6 MLX_FUZZ_CASES=1"), "{error}");
        eprintln!("caught: {error}");
    }
}

/// Graphs per stock process (and per batch evaluated here meanwhile).
const BATCH: usize = 100;

/// Random graphs of the short mode (CI); `MLX_FUZZ_CASES` for the long mode.
const SHORT_GRAPHS: u64 = 200;

#[test]
fn random_graphs_match_stock_bit_for_bit() {
    let plan = mlx_tests::fuzz::plan(SHORT_GRAPHS);
    let start = std::time::Instant::now();
    // `plan.cases` compared graphs: seeds whose kind is left out are skipped and counted.
    let mut left_out = 0;
    let seeds: Vec<u64> = (0..)
        .map(|i| plan.seed.wrapping_add(i))
        .filter(|&seed| {
            let compared = graphs::compared(seed);
            left_out += usize::from(!compared);
            compared
        })
        .take(plan.cases as usize)
        .collect();
    if left_out > 0 {
        eprintln!("fuzz: {left_out} seeds in the range left out by MLX_TESTS_GRAPH_KINDS");
    }
    let mut stats = Vec::with_capacity(seeds.len());
    for (i, batch) in seeds.chunks(BATCH).enumerate() {
        stats.extend(check_against_stock(batch, graphs::evaluate_with_stats).unwrap());
        if (i + 1) % 10 == 0 {
            eprintln!("fuzz: {} graphs match, {:.0} s", stats.len(), start.elapsed().as_secs_f64());
        }
    }
    eprintln!("{}", summary(&stats, start.elapsed()));
}

/// What a run covered, in one paragraph (shown with --nocapture).
fn summary(stats: &[Stats], took: std::time::Duration) -> String {
    let mut arrays: Vec<usize> = stats.iter().map(|s| s.arrays).collect();
    arrays.sort_unstable();
    let deepest = stats.iter().map(|s| s.most_ops_between_evals).max().unwrap_or(0);
    let mut large: Vec<usize> =
        stats.iter().filter(|s| s.kind != Kind::Small).map(|s| s.arrays).collect();
    large.sort_unstable();
    let kinds = [Kind::Small, Kind::Chain, Kind::Wide]
        .map(|k| format!("{k:?} {}", stats.iter().filter(|s| s.kind == k).count()));
    let sum = |f: fn(&Stats) -> usize| stats.iter().map(f).sum::<usize>();
    format!(
        "fuzz: {} graphs bit-identical to stock in {:.1} s ({}); arrays per graph min {} median \
         {} max {}, {} in all (large graphs: median {}); at most {} ops between two evals; {} partial evals ({} async), {} re-evals, {} extended, {} \
         values read; freed {} ({} read by later ops, {} siblings, {} after their async_eval, {} of them still computing, {} evaluated), \
         {} purges; {} graphs evaluated in groups",
        stats.len(),
        took.as_secs_f64(),
        kinds.join(", "),
        arrays.first().unwrap_or(&0),
        arrays.get(arrays.len() / 2).unwrap_or(&0),
        arrays.last().unwrap_or(&0),
        arrays.iter().sum::<usize>(),
        large.get(large.len() / 2).unwrap_or(&0),
        deepest,
        sum(|s| s.partial_evals),
        sum(|s| s.partial_async_evals),
        sum(|s| s.re_evals),
        sum(|s| s.extended_evals),
        sum(|s| s.snapshots),
        sum(|s| s.freed),
        sum(|s| s.freed_used),
        sum(|s| s.freed_siblings),
        sum(|s| s.freed_after_async),
        sum(|s| s.freed_pending),
        sum(|s| s.freed_evaluated),
        sum(|s| s.purges),
        stats.iter().filter(|s| s.staggered_groups > 1).count(),
    )
}
