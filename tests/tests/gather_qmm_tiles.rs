//! gather_qmm with sorted rhs indices (the MoE expert product) against the same product
//! computed one gathered matrix at a time, bit for bit.
//!
//! With the gather-qmm-tiles patch the CPU cuts each expert's run of rows into tiles that
//! share every dequantized weight row; one matrix at a time is MLX's per-row path. Both must
//! agree on every bit of every output but NaNs, and have NaN in exactly the same places (which
//! NaN, its sign and payload, is not compared: it depends on the operand order the compiler
//! picks for a commutative operation, which C++ leaves open), for every float dtype, every
//! quantization mode, bit width and group size, transposed or not, with strided and broadcast
//! x. Without the patch both sides are stock MLX and the property still holds.

use mlx::ops::{slice, transpose_axes};
use mlx::quantized::{gather_qmm, QuantMode, QuantParams};
use mlx::{Array, Dtype};
use proptest::prelude::*;

use mlx_tests::rng::Rng;

/// Standard normal draws (Box-Muller) on top of the shared generator.
trait Normal {
    fn normal(&mut self) -> f32;
}

impl Normal for Rng {
    fn normal(&mut self) -> f32 {
        let (u, v) = (self.unit().max(1e-300), self.unit());
        ((-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()) as f32
    }
}

#[derive(Debug, Clone, Copy)]
struct Quant {
    mode: QuantMode,
    bits: i32,
    group_size: i32,
}

impl Quant {
    fn params(self) -> QuantParams {
        QuantParams { group_size: Some(self.group_size), bits: Some(self.bits), mode: self.mode }
    }
}

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

/// How x is laid out in memory.
#[derive(Debug, Clone, Copy)]
enum XLayout {
    Contiguous,
    /// Every other matrix of a larger array.
    StridedBatch,
    /// Each matrix's rows interleaved with the other matrices' rows.
    InterleavedRows,
    /// One matrix, read by every gathered row.
    Broadcast,
}

#[derive(Debug, Clone)]
struct Case {
    quant: Quant,
    dtype: Dtype,
    transpose: bool,
    /// Gathered matrices per expert; experts in order, so the rhs indices are sorted.
    runs: Vec<usize>,
    /// Rows per gathered matrix.
    m: i32,
    k: i32,
    n: i32,
    x_layout: XLayout,
    seed: u64,
}

/// Run lengths around the CPU's tile edges (4-row minimum, 64-row tiles) and beyond.
fn run_strategy() -> impl Strategy<Value = usize> {
    prop_oneof![4 => 0usize..9, 2 => 60usize..70, 1 => 126usize..132]
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
        prop::sample::select(vec![
            XLayout::Contiguous,
            XLayout::StridedBatch,
            XLayout::InterleavedRows,
            XLayout::Broadcast,
        ]),
        any::<u64>(),
    )
        .prop_map(|(quant, dtype, transpose, runs, m, groups, free, x_layout, seed)| {
            // The quantized axis (K transposed, N not) holds whole groups; the other is free.
            let (k, n) = if transpose {
                (quant.group_size * groups, free)
            } else {
                (free, quant.group_size * (groups + 1))
            };
            Case { quant, dtype, transpose, runs, m, k, n, x_layout, seed }
        })
}

/// x values: normal, and in some rows NaN, +-inf, all -0, or a value that overflows
/// half precision. Most rows stay finite so that most outputs are compared bit for bit.
fn x_values(rng: &mut Rng, rows: usize, k: usize) -> Vec<f32> {
    let mut data: Vec<f32> = (0..rows * k).map(|_| rng.normal()).collect();
    for row in data.chunks_mut(k) {
        let at = rng.below(k as u64) as usize;
        match rng.below(16) {
            0 => row[at] = f32::NAN,
            1 => row[at] = f32::INFINITY,
            2 => row[at] = f32::NEG_INFINITY,
            3 => row.iter_mut().for_each(|v| *v = -0.0),
            4 => row[at] = 6.0e4,
            _ => {}
        }
    }
    data
}

/// Quantized weights, scales and biases for `experts` experts. Packed weights are random
/// bits (every code). Codes and scales that make NaN or inf go to the last expert only, when
/// there are several, so the other experts' outputs stay finite and are compared bit for bit.
fn weights(rng: &mut Rng, case: &Case, experts: usize) -> (Array, Array, Option<Array>) {
    let q = case.quant;
    let (rows, cols) = if case.transpose { (case.n, case.k) } else { (case.k, case.n) };
    let w_per_expert = (rows * cols * q.bits / 32) as usize;
    let s_per_expert = (rows * cols / q.group_size) as usize;
    let nasty = |i: usize, per: usize| experts > 1 && i / per == experts - 1;
    let w: Vec<u32> = (0..experts * w_per_expert)
        .map(|i| {
            let mut v = rng.next_u64() as u32;
            if q.mode == QuantMode::Mxfp8 && !nasty(i, w_per_expert) {
                // No e4m3 NaN codes (0x7f, 0xff) here.
                for byte in 0..4 {
                    if (v >> (8 * byte)) & 0x7f == 0x7f {
                        v ^= 1 << (8 * byte);
                    }
                }
            }
            v
        })
        .collect();
    let e = experts as i32;
    let w = Array::from_slice(&w, &[e, rows, cols * q.bits / 32]).unwrap();
    let s_shape = [e, rows, cols / q.group_size];
    if q.mode != QuantMode::Affine {
        let scales: Vec<u8> = (0..experts * s_per_expert)
            .map(|i| {
                if nasty(i, s_per_expert) && rng.below(8) == 0 {
                    rng.next_u64() as u8 // any encoding, NaN included
                } else if q.mode == QuantMode::Nvfp4 {
                    0x20 + rng.below(0x20) as u8 // e4m3 near 1
                } else {
                    120 + rng.below(16) as u8 // e8m0 near 1
                }
            })
            .collect();
        return (w, Array::from_slice(&scales, &s_shape).unwrap(), None);
    }
    let n_scales = experts * s_per_expert;
    let mut scales: Vec<f32> = (0..n_scales).map(|_| 0.05 * rng.normal()).collect();
    let mut biases: Vec<f32> = (0..n_scales).map(|_| 0.05 * rng.normal()).collect();
    for _ in 0..3 {
        scales[rng.below(n_scales as u64) as usize] = -0.0;
        biases[rng.below(n_scales as u64) as usize] = -0.0;
    }
    if experts > 1 {
        let last = (experts - 1) * s_per_expert;
        scales[last + rng.below(s_per_expert as u64) as usize] = f32::INFINITY;
        biases[last + rng.below(s_per_expert as u64) as usize] = f32::NAN;
    }
    let cast = |v: &[f32]| Array::from_slice(v, &s_shape).unwrap().astype(case.dtype).unwrap();
    (w, cast(&scales), Some(cast(&biases)))
}

/// x as (matrices, m, k) in the case's layout; `matrices` is 1 when broadcast.
fn x_array(rng: &mut Rng, case: &Case, batch: usize) -> Array {
    let (m, k) = (case.m, case.k);
    let b = batch as i32;
    let make = |rng: &mut Rng, shape: &[i32]| {
        let n: i32 = shape.iter().product();
        let data = x_values(rng, (n / k) as usize, k as usize);
        Array::from_slice(&data, shape).unwrap().astype(case.dtype).unwrap()
    };
    match case.x_layout {
        XLayout::Contiguous => make(rng, &[b, m, k]),
        XLayout::StridedBatch => {
            slice(&make(rng, &[2 * b, m, k]), &[1, 0, 0], &[2 * b, m, k], &[2, 1, 1]).unwrap()
        }
        XLayout::InterleavedRows => transpose_axes(&make(rng, &[m, b, k]), &[1, 0, 2]).unwrap(),
        XLayout::Broadcast => make(rng, &[1, m, k]),
    }
}

/// Bit patterns of a float array, widened to u32.
fn bits(a: &Array) -> Vec<u32> {
    match a.dtype() {
        Dtype::Float32 => a.to_vec::<f32>().unwrap().iter().map(|v| v.to_bits()).collect(),
        Dtype::Float16 => {
            a.to_vec::<mlx::f16>().unwrap().iter().map(|v| u32::from(v.to_bits())).collect()
        }
        Dtype::Bfloat16 => {
            a.to_vec::<mlx::bf16>().unwrap().iter().map(|v| u32::from(v.to_bits())).collect()
        }
        other => panic!("not a float dtype: {other:?}"),
    }
}

/// Whether the bit pattern `b` of a `dtype` value (as `bits` widens it) is a NaN.
fn is_nan_bits(dtype: Dtype, b: u32) -> bool {
    match dtype {
        Dtype::Float32 => b & 0x7fff_ffff > 0x7f80_0000,
        Dtype::Float16 => b & 0x7fff > 0x7c00,
        Dtype::Bfloat16 => b & 0x7fff > 0x7f80,
        other => panic!("not a float dtype: {other:?}"),
    }
}

/// The first element where `got` and `expected` differ: NaN on one side only, or different
/// bits where neither is NaN. Two NaNs are equal whatever their sign and payload.
fn first_mismatch(dtype: Dtype, got: &[u32], expected: &[u32]) -> Option<usize> {
    assert_eq!(got.len(), expected.len());
    got.iter().zip(expected).position(|(&g, &e)| {
        let (g_nan, e_nan) = (is_nan_bits(dtype, g), is_nan_bits(dtype, e));
        g_nan != e_nan || (!g_nan && g != e)
    })
}

fn check(case: &Case) -> Result<(), String> {
    mlx_tests::on_cpu();
    let mut rng = Rng(case.seed);
    let experts = case.runs.len();
    let rows: usize = case.runs.iter().sum();
    let (w, scales, biases) = weights(&mut rng, case, experts);
    let x = x_array(&mut rng, case, rows);
    let rhs: Vec<u32> =
        case.runs.iter().enumerate().flat_map(|(e, &n)| std::iter::repeat_n(e as u32, n)).collect();
    let rhs_all = Array::from_slice(&rhs, &[rows as i32]).unwrap();
    let params = case.quant.params();
    let product = |x: &Array, rhs: &Array, sorted: bool| {
        gather_qmm(x, &w, &scales, biases.as_ref(), None, Some(rhs), case.transpose, params, sorted)
            .map_err(|e| format!("gather_qmm failed: {e}"))
    };

    let tiled = product(&x, &rhs_all, true)?;
    let expected_shape = vec![rows as i32, case.m, case.n];
    if tiled.shape() != expected_shape {
        return Err(format!("shape {:?}, expected {expected_shape:?}", tiled.shape()));
    }
    if tiled.dtype() != case.dtype {
        return Err(format!("dtype {:?}, expected {:?}", tiled.dtype(), case.dtype));
    }
    let tiled_bits = bits(&tiled);
    let per_matrix = (case.m * case.n) as usize;
    for (i, &e) in rhs.iter().enumerate() {
        let xi = match case.x_layout {
            XLayout::Broadcast => x.clone(),
            _ => slice(&x, &[i as i32, 0, 0], &[i as i32 + 1, case.m, case.k], &[1, 1, 1]).unwrap(),
        };
        let one = Array::from_slice(&[e], &[1]).unwrap();
        let expected = bits(&product(&xi, &one, false)?);
        let got = &tiled_bits[i * per_matrix..(i + 1) * per_matrix];
        if let Some(j) = first_mismatch(case.dtype, got, &expected) {
            return Err(format!(
                "matrix {i} (expert {e}) element {j}: tiled bits {:#010x}, per-row bits {:#010x}",
                got[j], expected[j]
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

/// The comparison passes NaNs of any sign and payload in the same places and fails on one
/// differing bit, a NaN elsewhere, or a NaN against a number (inf, -0 included).
#[test]
fn comparison_is_nan_position_aware() {
    let f32s = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<u32>>();
    let nan = f32::NAN;
    let other_nan = f32::from_bits(0xffc0_0001);
    let a = f32s(&[1.0, nan, -0.0, f32::INFINITY]);
    let fp32 = |b: &[f32]| first_mismatch(Dtype::Float32, &a, &f32s(b));
    assert_eq!(fp32(&[1.0, other_nan, -0.0, f32::INFINITY]), None);
    assert_eq!(fp32(&[f32::from_bits(1.0f32.to_bits() ^ 1), nan, -0.0, f32::INFINITY]), Some(0));
    assert_eq!(fp32(&[1.0, nan, 0.0, f32::INFINITY]), Some(2));
    assert_eq!(fp32(&[nan, 1.0, -0.0, f32::INFINITY]), Some(0));
    assert_eq!(fp32(&[1.0, f32::INFINITY, -0.0, f32::INFINITY]), Some(1));
    assert_eq!(fp32(&[1.0, nan, -0.0, nan]), Some(3));
    // 16-bit: 0x7c00 (f16) and 0x7f80 (bf16) are inf, anything above them, of either sign, NaN.
    let h = [0x3c00, 0x7e00, 0x7c00];
    assert_eq!(first_mismatch(Dtype::Float16, &h, &[0x3c00, 0xfc01, 0x7c00]), None);
    assert_eq!(first_mismatch(Dtype::Float16, &h, &[0x3c00, 0x7e00, 0xfc00]), Some(2));
    assert_eq!(first_mismatch(Dtype::Float16, &h, &[0x3c01, 0x7e00, 0x7c00]), Some(0));
    let b = [0x3f80, 0x7fc0, 0x7f80];
    assert_eq!(first_mismatch(Dtype::Bfloat16, &b, &[0x3f80, 0xff81, 0x7f80]), None);
    assert_eq!(first_mismatch(Dtype::Bfloat16, &b, &[0x3f80, 0x7fc0, 0x7f81]), Some(2));
    assert_eq!(first_mismatch(Dtype::Bfloat16, &b, &[0x3f80, 0x7f80, 0x7f80]), Some(1));
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
