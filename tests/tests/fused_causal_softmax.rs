//! The fused-causal-softmax patch: `fast::causal_softmax` (and causal SDPA, which uses it on the
//! CPU) must give the bits of the stock chain `softmax(where(q_idx >= k_idx, scores,
//! finfo.min), -1, precise)`, built here from `mlx` ops, on fresh random scores with NaNs of
//! several payloads, +-inf, +-0, the extremes of each float type, rows of -inf and rows at
//! finfo.min, in every float dtype, for contiguous, transposed and broadcast scores.
//!
//! NaN payloads are compared bit for bit except in rows whose visible scores hold a NaN: there
//! even the stock softmax multiplies two NaNs, whose operand order the compiler picks
//! differently for its vectorized loop and its scalar remainder, so their payloads are not a
//! function of the inputs; such NaNs only have to be NaNs.
//!
//! Every test holds `SERIAL` so that the peak-memory test sees only its own allocations.

#![cfg_attr(not(feature = "fused-causal-softmax"), allow(dead_code))]

use mlx::fast::{scaled_dot_product_attention, AttentionMask};
use mlx::{bf16, f16, ops, Array, Dtype};
use proptest::prelude::*;
use std::sync::{Mutex, MutexGuard};

static SERIAL: Mutex<()> = Mutex::new(());

/// One case at a time (peak-memory checks), on the CPU device.
fn serial() -> MutexGuard<'static, ()> {
    let guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    mlx_tests::on_cpu();
    guard
}

const FLOATS: [Dtype; 4] = [Dtype::Float32, Dtype::Float16, Dtype::Bfloat16, Dtype::Float64];

use mlx_tests::rng::Rng;

/// Bits of `v` rounded to `dtype` (in the low bits of the u64).
fn bits_of_f64(v: f64, dtype: Dtype) -> u64 {
    match dtype {
        Dtype::Float32 => (v as f32).to_bits() as u64,
        Dtype::Float16 => f16::from_f64(v).to_bits() as u64,
        Dtype::Bfloat16 => bf16::from_f64(v).to_bits() as u64,
        Dtype::Float64 => v.to_bits(),
        d => panic!("float dtypes only, got {d:?}"),
    }
}

/// The lowest finite value (MLX's `finfo(dtype).min`).
fn finfo_min(dtype: Dtype) -> f64 {
    match dtype {
        Dtype::Float32 => f32::MIN as f64,
        Dtype::Float16 => f16::MIN.to_f64(),
        Dtype::Bfloat16 => bf16::MIN.to_f64(),
        Dtype::Float64 => f64::MIN,
        d => panic!("float dtypes only, got {d:?}"),
    }
}

/// Quiet and signaling NaNs of both signs with assorted payloads.
fn nan_bits(dtype: Dtype) -> [u64; 4] {
    match dtype {
        Dtype::Float32 => [0x7fc0_0000, 0xffc0_0001, 0x7fc0_abcd, 0x7f80_0001],
        Dtype::Float16 => [0x7e00, 0xfe01, 0x7e55, 0x7c01],
        Dtype::Bfloat16 => [0x7fc0, 0xffc1, 0x7fd5, 0x7f81],
        Dtype::Float64 => [
            0x7ff8_0000_0000_0000,
            0xfff8_0000_0000_0001,
            0x7ff8_0000_0000_abcd,
            0x7ff0_0000_0000_0001,
        ],
        d => panic!("float dtypes only, got {d:?}"),
    }
}

fn is_nan_bits(bits: u64, dtype: Dtype) -> bool {
    match dtype {
        Dtype::Float32 => f32::from_bits(bits as u32).is_nan(),
        Dtype::Float16 => f16::from_bits(bits as u16).is_nan(),
        Dtype::Bfloat16 => bf16::from_bits(bits as u16).is_nan(),
        Dtype::Float64 => f64::from_bits(bits).is_nan(),
        d => panic!("float dtypes only, got {d:?}"),
    }
}

/// `rows` rows of `cols` scores: mostly random, with special values sprinkled in, some rows of
/// -inf and some rows made of finfo.min and its three nearest neighbours (where exp(min - max)
/// is not 0).
fn nasty_bits(rng: &mut Rng, rows: usize, cols: usize, dtype: Dtype) -> Vec<u64> {
    let min = bits_of_f64(finfo_min(dtype), dtype);
    let specials: Vec<u64> = nan_bits(dtype)
        .into_iter()
        .chain(
            [f64::INFINITY, f64::NEG_INFINITY, 0.0, -0.0, 1.0, -1e4].map(|v| bits_of_f64(v, dtype)),
        )
        .chain([min, bits_of_f64(-finfo_min(dtype), dtype)])
        .collect();
    let mut out = Vec::with_capacity(rows * cols);
    for _ in 0..rows {
        let kind = rng.below(20);
        for _ in 0..cols {
            let bits = match kind {
                0 => bits_of_f64(f64::NEG_INFINITY, dtype),
                // Lower magnitude bits of a negative number: towards zero.
                1 | 2 => min - rng.below(4),
                _ if rng.below(20) == 0 => specials[rng.below(specials.len() as u64) as usize],
                _ if dtype == Dtype::Float64 => {
                    // Use the whole f64 mantissa.
                    let v = 4.0 * rng.normal();
                    bits_of_f64(v + 1e-9 * rng.normal(), dtype)
                }
                _ => bits_of_f64(4.0 * rng.normal(), dtype),
            };
            out.push(bits);
        }
    }
    out
}

fn array_from_bits(bits: &[u64], shape: &[i32], dtype: Dtype) -> Array {
    let a = match dtype {
        Dtype::Float32 => Array::from_slice(
            &bits.iter().map(|&b| f32::from_bits(b as u32)).collect::<Vec<_>>(),
            shape,
        ),
        Dtype::Float16 => Array::from_slice(
            &bits.iter().map(|&b| f16::from_bits(b as u16)).collect::<Vec<_>>(),
            shape,
        ),
        Dtype::Bfloat16 => Array::from_slice(
            &bits.iter().map(|&b| bf16::from_bits(b as u16)).collect::<Vec<_>>(),
            shape,
        ),
        Dtype::Float64 => {
            Array::from_slice(&bits.iter().map(|&b| f64::from_bits(b)).collect::<Vec<_>>(), shape)
        }
        d => panic!("float dtypes only, got {d:?}"),
    };
    a.expect("host data fills the shape")
}

/// Row-major bits of `a` (evaluates it).
fn bits_of(a: &Array) -> Vec<u64> {
    match a.dtype() {
        Dtype::Float32 => a.to_vec::<f32>().unwrap().iter().map(|v| v.to_bits() as u64).collect(),
        Dtype::Float16 => a.to_vec::<f16>().unwrap().iter().map(|v| v.to_bits() as u64).collect(),
        Dtype::Bfloat16 => a.to_vec::<bf16>().unwrap().iter().map(|v| v.to_bits() as u64).collect(),
        Dtype::Float64 => a.to_vec::<f64>().unwrap().iter().map(|v| v.to_bits()).collect(),
        d => panic!("float dtypes only, got {d:?}"),
    }
}

/// The stock chain, as the SDPA fallback of unpatched MLX builds it.
fn stock_chain(x: &Array, precise: bool) -> mlx::Result<Array> {
    let shape = x.shape();
    let (lq, lkv) = (shape[shape.len() - 2], shape[shape.len() - 1]);
    let offset = lkv - lq;
    let q_idx =
        ops::arange(offset as f64, (lq + offset) as f64, 1.0, Dtype::Int32)?.expand_dims(&[1])?;
    let k_idx = ops::arange(0.0, lkv as f64, 1.0, Dtype::Int32)?.expand_dims(&[0])?;
    let mask = ops::greater_equal(&q_idx, &k_idx)?;
    let fill = Array::scalar_as(finfo_min(x.dtype()), x.dtype())?;
    ops::where_(&mask, x, &fill)?.softmax_axes(&[-1], precise)
}

#[cfg(feature = "fused-causal-softmax")]
fn fused(x: &Array, precise: bool) -> mlx::Result<Array> {
    use mlx_ext::fused_causal_softmax::ffi;
    Ok(Array::from_raw(ffi::causal_softmax(x.as_raw(), precise)?).expect("non-null on success"))
}

/// Where `got` first differs from `want` (row-major L_q x L_kv matrices of the scores
/// `x_bits`), or None. NaNs in rows whose visible scores hold a NaN only have to be NaNs.
fn first_difference(
    got: &[u64],
    want: &[u64],
    x_bits: &[u64],
    lq: usize,
    lkv: usize,
    dtype: Dtype,
) -> Option<String> {
    if got.len() != want.len() {
        return Some(format!("{} elements, expected {}", got.len(), want.len()));
    }
    for (row, ((g, w), x)) in
        got.chunks(lkv).zip(want.chunks(lkv)).zip(x_bits.chunks(lkv)).enumerate()
    {
        let visible =
            ((row % lq) as i64 + (lkv as i64 - lq as i64) + 1).clamp(0, lkv as i64) as usize;
        let nan_row = x[..visible].iter().any(|&b| is_nan_bits(b, dtype));
        for (col, (&g, &w)) in g.iter().zip(w).enumerate() {
            if g != w && !(nan_row && is_nan_bits(g, dtype) && is_nan_bits(w, dtype)) {
                return Some(format!(
                    "row {row} (visible keys {visible}) col {col}: got {g:#x}, expected {w:#x}; row scores {x:x?}"
                ));
            }
        }
    }
    None
}

#[derive(Debug, Clone, Copy)]
enum Layout {
    Contiguous,
    /// Built as [.., L_kv, L_q] and swapped: not row-contiguous.
    Transposed,
    /// One [L_q, L_kv] matrix broadcast over the batch.
    Broadcast,
}

/// Scores of shape `batch + [lq, lkv]` laid out as `layout`, and their logical row-major bits.
fn scores(
    seed: u64,
    batch: &[i32],
    lq: i32,
    lkv: i32,
    dtype: Dtype,
    layout: Layout,
) -> (Array, Vec<u64>) {
    let mut rng = Rng(seed);
    let n_batch = batch.iter().product::<i32>() as usize;
    let (lq_u, lkv_u) = (lq as usize, lkv as usize);
    let mut shape = batch.to_vec();
    shape.extend([lq, lkv]);
    match layout {
        Layout::Contiguous => {
            let bits = nasty_bits(&mut rng, n_batch * lq_u, lkv_u, dtype);
            (array_from_bits(&bits, &shape, dtype), bits)
        }
        Layout::Transposed => {
            let bits = nasty_bits(&mut rng, n_batch * lq_u, lkv_u, dtype);
            let mut t = vec![0u64; bits.len()];
            for b in 0..n_batch {
                for i in 0..lq_u {
                    for j in 0..lkv_u {
                        t[(b * lkv_u + j) * lq_u + i] = bits[(b * lq_u + i) * lkv_u + j];
                    }
                }
            }
            let mut t_shape = batch.to_vec();
            t_shape.extend([lkv, lq]);
            (array_from_bits(&t, &t_shape, dtype).swapaxes(-1, -2).unwrap(), bits)
        }
        Layout::Broadcast => {
            let one = nasty_bits(&mut rng, lq_u, lkv_u, dtype);
            let a = ops::broadcast_to(&array_from_bits(&one, &[lq, lkv], dtype), &shape).unwrap();
            let bits = (0..n_batch).flat_map(|_| one.iter().copied()).collect();
            (a, bits)
        }
    }
}

fn layout() -> impl Strategy<Value = Layout> {
    prop_oneof![4 => Just(Layout::Contiguous), 1 => Just(Layout::Transposed), 1 => Just(Layout::Broadcast)]
}

fn dtype() -> impl Strategy<Value = Dtype> {
    prop::sample::select(FLOATS.to_vec())
}

/// Lengths: decode-like 1, short and long rows.
fn length() -> impl Strategy<Value = i32> {
    prop_oneof![Just(1), 1..=24i32, 25..=90i32]
}

#[cfg(feature = "fused-causal-softmax")]
proptest! {
    #![proptest_config(mlx_tests::fuzz::config(400))]

    #[test]
    fn causal_softmax_matches_stock_chain_bitwise(
        seed in any::<u64>(),
        batch in prop::collection::vec(1..=3i32, 0..=2),
        lq in length(),
        lkv in length(),
        dtype in dtype(),
        precise in any::<bool>(),
        layout in layout(),
    ) {
        let _serial = serial();
        let (x, x_bits) = scores(seed, &batch, lq, lkv, dtype, layout);
        let y = fused(&x, precise).unwrap();
        // On the CPU the primitive runs its own kernel, not the fallback chain.
        prop_assert!(mlx_ext::fused_causal_softmax::ffi::is_fused_causal_softmax(y.as_raw()));
        let want = stock_chain(&x, precise).unwrap();
        prop_assert_eq!(y.shape(), want.shape());
        prop_assert_eq!(y.dtype(), dtype);
        let diff = first_difference(&bits_of(&y), &bits_of(&want), &x_bits, lq as usize, lkv as usize, dtype);
        prop_assert!(diff.is_none(), "{:?} precise={} {:?}: {}", dtype, precise, layout, diff.unwrap());
    }
}

/// Attention input of `shape` with roughly normal values.
fn normal_array(rng: &mut Rng, shape: [i32; 4], dtype: Dtype) -> Array {
    let n = shape.iter().product::<i32>();
    let bits: Vec<u64> = (0..n).map(|_| bits_of_f64(rng.normal(), dtype)).collect();
    array_from_bits(&bits, &shape, dtype)
}

proptest! {
    #![proptest_config(mlx_tests::fuzz::config(120))]

    /// SDPA with mask "causal" (fused on patched CPU builds) against SDPA with the same mask as
    /// a bool array (the stock where/softmax chain): the same bits, NaNs compared as NaNs.
    /// Holds for stock builds too.
    #[test]
    fn causal_sdpa_matches_array_mask_bitwise(
        seed in any::<u64>(),
        b in 1..=2i32,
        kv_heads in 1..=2i32,
        repeats in 1..=3i32,
        lq in prop_oneof![Just(1), 1..=33i32],
        lkv in 1..=33i32,
        d in prop::sample::select(vec![1, 4, 8, 16]),
        dtype in dtype(),
        nasty in any::<bool>(),
    ) {
        let _serial = serial();
        let mut rng = Rng(seed);
        let mut q = normal_array(&mut rng, [b, kv_heads * repeats, lq, d], dtype);
        let mut k = normal_array(&mut rng, [b, kv_heads, lkv, d], dtype);
        let v = normal_array(&mut rng, [b, kv_heads, lkv, d], dtype);
        if nasty {
            // A NaN query element and an infinite key element.
            let ones = [1, 1, 1, 1];
            let nan = Array::scalar_as(f64::NAN, dtype).unwrap().reshape(&ones).unwrap();
            let inf = Array::scalar_as(f64::INFINITY, dtype).unwrap().reshape(&ones).unwrap();
            q = ops::slice_update(&q, &nan, &[0, 0, 0, 0], &ones, &ones).unwrap();
            k = ops::slice_update(&k, &inf, &[0, 0, lkv - 1, 0], &[1, 1, lkv, 1], &ones).unwrap();
        }
        let offset = lkv - lq;
        let mask = ops::greater_equal(
            &ops::arange(offset as f64, (lq + offset) as f64, 1.0, Dtype::Int32).unwrap().expand_dims(&[1]).unwrap(),
            &ops::arange(0.0, lkv as f64, 1.0, Dtype::Int32).unwrap().expand_dims(&[0]).unwrap(),
        ).unwrap();
        let scale = 1.0 / (d as f32).sqrt();
        let got = scaled_dot_product_attention(&q, &k, &v, scale, AttentionMask::Causal, None).unwrap();
        let want = scaled_dot_product_attention(&q, &k, &v, scale, AttentionMask::Array(&mask), None).unwrap();
        prop_assert_eq!(got.shape(), want.shape());
        let (g, w) = (bits_of(&got), bits_of(&want));
        let bad = g.iter().zip(&w).position(|(&g, &w)| g != w && !(is_nan_bits(g, dtype) && is_nan_bits(w, dtype)));
        prop_assert!(bad.is_none(), "{:?}: first differing output element {:?}", dtype, bad);
    }
}

#[cfg(feature = "fused-causal-softmax")]
#[test]
fn causal_softmax_edge_inputs() {
    let _serial = serial();
    // Empty inputs pass through unchanged.
    for shape in [[2, 0, 5], [2, 5, 0], [0, 3, 3]] {
        let x = ops::zeros(&shape, Dtype::Float32).unwrap();
        let y = fused(&x, true).unwrap();
        assert_eq!(y.shape(), shape.to_vec());
        y.eval().unwrap();
    }
    // One element: the only key is visible, so the softmax is exactly 1.
    let one = fused(&Array::from_slice(&[3.5f32], &[1, 1]).unwrap(), true).unwrap();
    assert_eq!(one.to_vec::<f32>().unwrap(), vec![1.0]);
    // MLX's own errors arrive as Err with its message.
    let e = fused(&Array::from_slice(&[1.0f32, 2.0], &[2]).unwrap(), true).unwrap_err();
    assert!(e.to_string().contains("[causal_softmax]"), "{e}");
    let e = fused(&ops::zeros(&[2, 2], Dtype::Int32).unwrap(), true).unwrap_err();
    assert!(e.to_string().contains("[causal_softmax]"), "{e}");
}

/// Peak memory of evaluating `f`'s result, above what was allocated before.
fn peak_of(f: impl FnOnce() -> Array) -> usize {
    mlx::synchronize().unwrap();
    let before = mlx::memory::active_memory();
    mlx::memory::reset_peak_memory();
    let out = f();
    out.eval().unwrap();
    mlx::memory::peak_memory() - before
}

/// Causal SDPA allocates no L_q x L_kv bool mask and no masked copy of the scores: its peak
/// is the scores plus the small arrays, while the stock chain adds at least the mask.
#[cfg(feature = "fused-causal-softmax")]
#[test]
fn causal_sdpa_allocates_no_mask() {
    let _serial = serial();
    let (b, h, l, d) = (1, 4, 512, 8);
    let mut rng = Rng(0x5eed);
    let q = normal_array(&mut rng, [b, h, l, d], Dtype::Float32);
    let k = normal_array(&mut rng, [b, h, l, d], Dtype::Float32);
    let v = normal_array(&mut rng, [b, h, l, d], Dtype::Float32);
    mlx::eval(&[&q, &k, &v]).unwrap();
    let scores_bytes = (b * h * l * l) as usize * 4;
    let mask_bytes = (l * l) as usize;
    // The scaled queries and the output.
    let small_bytes = 2 * (b * h * l * d) as usize * 4;
    let scale = 0.2f32;

    let fused_peak = peak_of(|| {
        scaled_dot_product_attention(&q, &k, &v, scale, AttentionMask::Causal, None).unwrap()
    });
    let chain_peak = peak_of(|| {
        let scaled = ops::multiply(&Array::scalar(scale), &q).unwrap();
        let scores = ops::matmul(&scaled, &k.swapaxes(-1, -2).unwrap()).unwrap();
        ops::matmul(&stock_chain(&scores, true).unwrap(), &v).unwrap()
    });
    assert!(
        fused_peak < scores_bytes + small_bytes + mask_bytes / 4,
        "fused peak {fused_peak} B; scores {scores_bytes} B, small arrays {small_bytes} B"
    );
    assert!(
        chain_peak >= fused_peak + mask_bytes,
        "chain peak {chain_peak} B, fused peak {fused_peak} B"
    );
}
