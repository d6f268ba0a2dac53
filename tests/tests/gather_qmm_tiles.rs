//! gather_qmm with sorted rhs indices (the MoE expert product) against the same product
//! computed one gathered matrix at a time, bit for bit.
//!
//! With the gather-qmm-tiles patch the CPU cuts each expert's run of rows into tiles that
//! share every dequantized weight row; one matrix at a time is MLX's per-row path. Both must
//! agree on every bit of every output but NaNs, and have NaN in exactly the same places (which
//! NaN, its sign and payload, is not compared: it depends on the operand order the compiler
//! picks for a commutative operation, which C++ leaves open), for every float dtype, every
//! quantization mode, bit width and group size, transposed or not, with strided and broadcast
//! x. Without the patch both sides are stock MLX and the property still holds. The cases and
//! their inputs: `mlx_tests::moe`.

use mlx::ops::slice;
use mlx::quantized::{gather_qmm, QuantMode};
use mlx::{Array, Dtype};
use mlx_tests::against_stock::{first_differing_element, Nans};
use mlx_tests::graphs::output;
use mlx_tests::moe::{k_n, Case, Quant, XLayout, X_LAYOUTS};
use proptest::prelude::*;

fn quant_strategy() -> impl Strategy<Value = Quant> {
    let affine =
        (prop::sample::select(vec![1, 2, 3, 4, 5, 6, 8]), prop::sample::select(vec![32, 64, 128]))
            .prop_map(|(bits, group_size)| Quant { mode: QuantMode::Affine, bits, group_size });
    prop_oneof![
        3 => affine,
        1 => Just(Quant { mode: QuantMode::Mxfp4, bits: 4, group_size: 32 }),
        1 => Just(Quant { mode: QuantMode::Mxfp8, bits: 8, group_size: 32 }),
        1 => Just(Quant { mode: QuantMode::Nvfp4, bits: 4, group_size: 16 }),
    ]
}

/// Run lengths around the CPU's tile edges (the fp modes' 2-row minimum, 128-row tiles) and
/// beyond.
fn run_strategy() -> impl Strategy<Value = usize> {
    prop_oneof![4 => 0usize..9, 2 => 124usize..134, 1 => 250usize..262]
}

fn case_strategy() -> impl Strategy<Value = Case> {
    (
        quant_strategy(),
        prop::sample::select(vec![Dtype::Float32, Dtype::Float16, Dtype::Bfloat16]),
        any::<bool>(),
        prop::collection::vec(run_strategy(), 1..6),
        1i32..3,
        1i32..3,
        1i32..48,
        prop::sample::select(X_LAYOUTS.to_vec()),
        any::<u64>(),
    )
        .prop_map(|(quant, dtype, transpose, runs, m, groups, free, x_layout, seed)| {
            let (k, n) = k_n(quant, transpose, groups + i32::from(!transpose), free);
            Case { quant, dtype, transpose, runs, m, k, n, x_layout, seed }
        })
}

fn check(case: &Case) -> Result<(), String> {
    mlx_tests::on_cpu();
    let inputs = case.inputs().map_err(|e| e.to_string())?;
    let rows = inputs.rhs.len();
    let product = |x: &Array, rhs: &[u32], sorted: bool| {
        let rhs = Array::from_slice(rhs, &[rhs.len() as i32]).unwrap();
        case.product(&inputs, x, &rhs, sorted)
            .and_then(|y| output(&y))
            .map_err(|e| format!("gather_qmm failed: {e}"))
    };

    let tiled = product(&inputs.x, &inputs.rhs, true)?;
    let expected_shape = vec![rows as i32, case.m, case.n];
    if tiled.shape != expected_shape {
        return Err(format!("shape {:?}, expected {expected_shape:?}", tiled.shape));
    }
    if tiled.dtype != case.dtype {
        return Err(format!("dtype {:?}, expected {:?}", tiled.dtype, case.dtype));
    }
    let per_matrix = (case.m * case.n) as usize * case.dtype.size();
    for (i, &e) in inputs.rhs.iter().enumerate() {
        let xi = match case.x_layout {
            XLayout::Broadcast => inputs.x.clone(),
            _ => slice(&inputs.x, &[i as i32, 0, 0], &[i as i32 + 1, case.m, case.k], &[1, 1, 1])
                .unwrap(),
        };
        let expected = product(&xi, &[e], false)?.bytes;
        let got = &tiled.bytes[i * per_matrix..(i + 1) * per_matrix];
        if let Some(j) = first_differing_element(case.dtype, got, &expected, Nans::AnyPayload) {
            let element = |bytes: &[u8]| {
                let size = case.dtype.size();
                bytes[j * size..(j + 1) * size].to_vec()
            };
            return Err(format!(
                "matrix {i} (expert {e}) element {j}: tiled bytes {:02x?}, per-row bytes {:02x?}",
                element(got),
                element(&expected)
            ));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(mlx_tests::fuzz::config(96))]

    #[test]
    fn sorted_gather_qmm_matches_per_row_bit_for_bit(case in case_strategy()) {
        check(&case).map_err(TestCaseError::fail)?;
    }
}

/// Every mode, dtype and orientation once, with runs that cross the tile edges.
#[test]
fn every_mode_dtype_and_orientation() {
    let quants = [
        Quant { mode: QuantMode::Affine, bits: 4, group_size: 64 },
        Quant { mode: QuantMode::Affine, bits: 3, group_size: 32 },
        Quant { mode: QuantMode::Affine, bits: 8, group_size: 128 },
        Quant { mode: QuantMode::Mxfp4, bits: 4, group_size: 32 },
        Quant { mode: QuantMode::Mxfp8, bits: 8, group_size: 32 },
        Quant { mode: QuantMode::Nvfp4, bits: 4, group_size: 16 },
    ];
    let mut seed = 1;
    for quant in quants {
        for dtype in [Dtype::Float32, Dtype::Float16, Dtype::Bfloat16] {
            for transpose in [true, false] {
                seed += 1;
                let (k, n) =
                    if transpose { (2 * quant.group_size, 24) } else { (24, 3 * quant.group_size) };
                let case = Case {
                    quant,
                    dtype,
                    transpose,
                    runs: vec![1, 3, 4, 65, 0, 7],
                    m: 1,
                    k,
                    n,
                    x_layout: XLayout::Contiguous,
                    seed,
                };
                if let Err(msg) = check(&case) {
                    panic!("{case:?}: {msg}");
                }
            }
        }
    }
}

/// The linked MLX carries the patch exactly when this crate's feature asks for it, so the
/// tests above exercise the build they claim to.
#[test]
fn linked_mlx_is_the_requested_build() {
    let patched = mlx::build_info().patches.contains(&"gather-qmm-tiles");
    assert_eq!(patched, cfg!(feature = "gather-qmm-tiles"));
}

/// No rows at all.
#[test]
fn empty_gather() {
    let case = Case {
        quant: Quant { mode: QuantMode::Affine, bits: 4, group_size: 64 },
        dtype: Dtype::Float32,
        transpose: true,
        runs: vec![0, 0],
        m: 1,
        k: 64,
        n: 8,
        x_layout: XLayout::Contiguous,
        seed: 7,
    };
    check(&case).unwrap();
}

/// float64 has no quantized CPU kernel: sorted and unsorted both fail, with MLX's message.
#[test]
fn float64_is_refused_the_same_way() {
    mlx_tests::on_cpu();
    let q = Quant { mode: QuantMode::Affine, bits: 4, group_size: 64 };
    let w = Array::from_slice(&[0x1234_5678u32; 2 * 8 * 8], &[2, 8, 8]).unwrap();
    let s = Array::from_slice(&[0.5f64; 2 * 8], &[2, 8, 1]).unwrap();
    let x = Array::from_slice(&[1.0f64; 8 * 64], &[8, 1, 64]).unwrap();
    let rhs = Array::from_slice(&[0u32, 0, 0, 0, 1, 1, 1, 1], &[8]).unwrap();
    let run = |sorted: bool| {
        gather_qmm(&x, &w, &s, Some(&s), None, Some(&rhs), true, q.params(), sorted)
            .and_then(|out| out.to_vec::<f64>())
            .map_err(|e| e.to_string())
    };
    let (sorted, unsorted) = (run(true), run(false));
    assert!(sorted.is_err(), "sorted float64 gather_qmm succeeded: {sorted:?}");
    assert_eq!(sorted, unsorted);
}
