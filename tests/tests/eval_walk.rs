//! The eval-walk patch (a flat degree table and per-stream hoisting in `eval_impl`, cached
//! identity indices for `gather_mm`) must not change what MLX computes: seeded random graphs
//! (`mlx_tests::graphs`) evaluated in this process agree bit for bit with the same graphs
//! evaluated by `graph-eval` built against stock MLX, in another process.
//!
//! The stock helper: see `stock_helper/mod.rs`.

mod stock_helper;

use mlx_tests::graphs::{self, Output};
use proptest::prelude::*;
use std::collections::HashMap;
use std::process::Command;
use stock_helper::stock_helper;

/// Outputs of each seed as evaluated by the stock helper, and the patches it reports.
fn stock_outputs(seeds: &[u64]) -> (String, HashMap<u64, Result<Vec<Output>, String>>) {
    let out = Command::new(stock_helper())
        .args(seeds.iter().map(u64::to_string))
        .output()
        .expect("running the stock graph-eval");
    assert!(
        out.status.success(),
        "stock graph-eval failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("graph-eval prints text");
    let mut lines = text.split_inclusive('\n');
    let patches =
        lines.next().and_then(|l| l.strip_prefix("patches ")).expect("patches line").trim_end();
    let mut results = HashMap::new();
    let mut current: Option<(u64, String)> = None;
    let finish = |current: Option<(u64, String)>, results: &mut HashMap<_, _>| {
        if let Some((seed, body)) = current {
            results.insert(seed, graphs::decode(&body));
        }
    };
    for line in lines {
        if let Some(rest) = line.trim_end().strip_prefix("seed ") {
            finish(current.take(), &mut results);
            let (seed, error) =
                rest.split_once(" error ").map_or((rest, None), |(s, e)| (s, Some(e)));
            let seed: u64 = seed.parse().expect("seed number");
            match error {
                Some(e) => {
                    results.insert(seed, Err(format!("stock evaluation failed: {e}")));
                }
                None => current = Some((seed, String::new())),
            }
        } else if let Some((_, body)) = current.as_mut() {
            body.push_str(line);
        }
    }
    finish(current, &mut results);
    (patches.to_string(), results)
}

/// Where two output lists first differ, in words; None if they are equal bit for bit.
fn first_difference(ours: &[Output], stock: &[Output]) -> Option<String> {
    if ours.len() != stock.len() {
        return Some(format!("{} outputs here, {} in stock", ours.len(), stock.len()));
    }
    for (i, (a, b)) in ours.iter().zip(stock).enumerate() {
        if (a.dtype, &a.shape) != (b.dtype, &b.shape) {
            return Some(format!(
                "output {i}: {:?} {:?} here, {:?} {:?} in stock",
                a.dtype, a.shape, b.dtype, b.shape
            ));
        }
        if let Some(at) = a.bytes.iter().zip(&b.bytes).position(|(x, y)| x != y) {
            let element = at / a.dtype.size();
            if sanitized_nans_agree(a, b) {
                continue;
            }
            return Some(format!(
                "output {i} ({:?} {:?}): element {element} differs",
                a.dtype, a.shape
            ));
        }
        if a.bytes.len() != b.bytes.len() {
            return Some(format!(
                "output {i}: {} bytes here, {} in stock",
                a.bytes.len(),
                b.bytes.len()
            ));
        }
    }
    None
}

/// In a sanitized build (`scripts/sanitize`) the stock helper is a normal build, so the two
/// processes' MLX are compiled with different flags, and which NaN an operation yields (its sign
/// and payload, the compiler's choice; seen: -NaN under TSan, +NaN in both normal builds) may
/// differ. There, outputs that differ only where both hold a NaN agree; every other bit is still
/// compared. Normal builds compare every bit, NaNs included.
fn sanitized_nans_agree(a: &Output, b: &Output) -> bool {
    use mlx::Dtype::*;
    if mlx_sys::build_info::SANITIZE.is_empty() || a.bytes.len() != b.bytes.len() {
        return false;
    }
    // Lane width and NaN test on the lane's bits (complex64: two f32 lanes per element).
    let (width, is_nan): (usize, fn(u64) -> bool) = match a.dtype {
        Float16 => (2, |x| x & 0x7fff > 0x7c00),
        Bfloat16 => (2, |x| x & 0x7fff > 0x7f80),
        Float32 | Complex64 => (4, |x| x & 0x7fff_ffff > 0x7f80_0000),
        Float64 => (8, |x| x & 0x7fff_ffff_ffff_ffff > 0x7ff0_0000_0000_0000),
        _ => return false,
    };
    // Native byte order, as `Output` holds them.
    let lane = |bytes: &[u8]| match width {
        2 => u16::from_ne_bytes(bytes.try_into().unwrap()) as u64,
        4 => u32::from_ne_bytes(bytes.try_into().unwrap()) as u64,
        _ => u64::from_ne_bytes(bytes.try_into().unwrap()),
    };
    a.bytes.chunks(width).zip(b.bytes.chunks(width)).all(|(x, y)| {
        let (x, y) = (lane(x), lane(y));
        x == y || (is_nan(x) && is_nan(y))
    })
}

fn check_against_stock(seeds: &[u64]) -> Result<(), String> {
    let (stock_patches, stock) = stock_outputs(seeds);
    if !stock_patches.is_empty() {
        return Err(format!("the stock helper reports patches {stock_patches:?}"));
    }
    for &seed in seeds {
        let ours = graphs::evaluate(seed)
            .map_err(|e| format!("seed {seed}: evaluation failed here: {e}"))?;
        let theirs = stock[&seed].clone().map_err(|e| format!("seed {seed}: {e}"))?;
        if let Some(what) = first_difference(&ours, &theirs) {
            return Err(format!("seed {seed}: {what}"));
        }
    }
    Ok(())
}

#[test]
#[cfg(feature = "eval-walk")]
fn this_process_runs_the_patched_walk() {
    assert!(mlx::build_info().patches.contains(&"eval-walk"), "{:?}", mlx::build_info());
}

#[test]
fn graphs_evaluate_alike_twice_in_one_process() {
    // Otherwise a difference from stock could be noise rather than the patch.
    for seed in 0..24 {
        let first = graphs::evaluate(seed).unwrap();
        let second = graphs::evaluate(seed).unwrap();
        assert_eq!(first_difference(&first, &second), None, "seed {seed}");
    }
}

#[test]
fn the_fixed_seeds_cover_what_the_walk_and_the_cache_handle() {
    let (mut two_streams, mut repeated_gathers, mut wide_fan_in, mut siblings) = (0, 0, 0, 0);
    let (mut partial, mut partial_async, mut empty, mut non_finite) = (0, 0, 0, 0);
    for seed in FIXED_SEEDS {
        let (outputs, stats) = graphs::evaluate_with_stats(seed).unwrap();
        assert!(stats.ops >= 10, "seed {seed}: {stats:?}");
        two_streams += usize::from(stats.streams == 2);
        repeated_gathers += usize::from(stats.gathers >= 2);
        wide_fan_in += usize::from(stats.widest_fan_in > 20);
        siblings += usize::from(stats.multi_output > 0);
        partial += usize::from(stats.partial_evals > 0);
        partial_async += usize::from(stats.partial_async_evals > 0);
        empty += outputs.iter().filter(|o| o.bytes.is_empty()).count();
        non_finite += outputs
            .iter()
            .filter(|o| o.dtype == mlx::Dtype::Float32)
            .flat_map(|o| {
                o.bytes.chunks_exact(4).map(|c| f32::from_ne_bytes(c.try_into().unwrap()))
            })
            .filter(|x| !x.is_finite())
            .count();
    }
    for (what, count) in [
        ("graphs on two streams", two_streams),
        ("graphs with repeated gathers", repeated_gathers),
        ("graphs with a fan-in wider than the BFS width limit", wide_fan_in),
        ("graphs with multi-output ops", siblings),
        ("graphs with partial evals", partial),
        ("graphs with partial async evals", partial_async),
        ("empty outputs", empty),
        ("non-finite f32 output elements", non_finite),
    ] {
        assert!(count > 0, "no {what} among the fixed seeds");
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
    assert!(first_difference(&ours, &flipped).is_some());
}

const FIXED_SEEDS: std::ops::Range<u64> = 0..48;

#[test]
fn fixed_seeds_match_stock_bit_for_bit() {
    let seeds: Vec<u64> = FIXED_SEEDS.collect();
    check_against_stock(&seeds).unwrap();
}

proptest! {
    #![proptest_config(mlx_tests::fuzz::config(16))]

    #[test]
    fn random_seeds_match_stock_bit_for_bit(seeds in prop::collection::vec(any::<u64>(), 1..24)) {
        check_against_stock(&seeds).map_err(TestCaseError::fail)?;
    }
}
