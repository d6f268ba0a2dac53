//! `take(a, indices, 0)`: output row r is the source row `indices[r]` names, bit for bit (a copy:
//! NaN payloads, -0 and infinities stay as they are). The reference is the source's own bytes,
//! rearranged here. On the GPU of a CUDA build with
//! `scripts/repro/experiments/gather-rows-vectorized.patch`, whole rows of a row-contiguous
//! source, 16-byte rows and 16-byte-aligned ends take its `gather_rows` kernel and every other
//! case MLX's general gather: the cases below sit on both sides of each of those conditions. A
//! build without a GPU checks MLX's CPU gather the same way.

use mlx::{backend, ops, Array, Complex64, Device, Dtype, Element, Result};
use mlx_tests::rng::Rng;

fn device() {
    if backend::gpu_available().unwrap() {
        Device::gpu(0).set_default().unwrap();
    }
}

/// `n` elements of `dtype` from random bits (every float bit pattern: NaNs with payloads,
/// infinities, subnormals), with -0, +inf, -inf and a NaN first where the type has them.
fn values(dtype: Dtype, n: usize, rng: &mut Rng) -> Result<Array> {
    let mut bits = |width: u32| rng.next_u64() >> (64 - width);
    match dtype {
        Dtype::Bool => from((0..n).map(|_| bits(1) == 1)),
        Dtype::Uint8 => from((0..n).map(|_| bits(8) as u8)),
        Dtype::Int64 => from((0..n).map(|_| bits(64) as i64)),
        Dtype::Float16 => floats(n, 16, [0x8000, 0x7c00, 0xfc00, 0x7e01], bits, |b| {
            half::f16::from_bits(b as u16)
        }),
        Dtype::Bfloat16 => floats(n, 16, [0x8000, 0x7f80, 0xff80, 0x7fc1], bits, |b| {
            half::bf16::from_bits(b as u16)
        }),
        Dtype::Float32 => {
            floats(n, 32, [0x8000_0000, 0x7f80_0000, 0xff80_0000, 0x7fc0_0001], bits, |b| {
                f32::from_bits(b as u32)
            })
        }
        Dtype::Complex64 => from((0..n).map(|_| Complex64 {
            re: f32::from_bits(bits(32) as u32),
            im: f32::from_bits(bits(32) as u32),
        })),
        other => panic!("no values for {other:?}"),
    }
}

fn from<T: Element>(values: impl Iterator<Item = T>) -> Result<Array> {
    let v: Vec<T> = values.collect();
    Array::from_slice(&v, &[v.len() as i32])
}

/// `n` floats of `width` bits: the `special` patterns, then random bits.
fn floats<T: Element>(
    n: usize,
    width: u32,
    special: [u64; 4],
    mut bits: impl FnMut(u32) -> u64,
    from_bits: impl Fn(u64) -> T,
) -> Result<Array> {
    from((0..n).map(|i| from_bits(special.get(i).copied().unwrap_or_else(|| bits(width)))))
}

/// Takes `indices` (normalized into 0..rows where negative) along axis 0 of `src` and checks
/// every byte against the source's own rows.
fn check(src: &Array, indices: &[i32], index_shape: &[i32], what: &str) {
    let rows = src.dim(0).unwrap() as i64;
    let idx = Array::from_slice(indices, index_shape).unwrap();
    let out = ops::take(src, &idx, 0).unwrap();
    let mut shape = index_shape.to_vec();
    shape.extend_from_slice(&src.shape()[1..]);
    assert_eq!(out.shape(), shape, "{what}: shape");
    let source = src.to_bytes().unwrap();
    let row_bytes = if rows == 0 { 0 } else { source.len() / rows as usize };
    let mut expected = Vec::with_capacity(indices.len() * row_bytes);
    for &i in indices {
        let r = if i < 0 { i as i64 + rows } else { i as i64 } as usize;
        expected.extend_from_slice(&source[r * row_bytes..(r + 1) * row_bytes]);
    }
    let got = out.to_bytes().unwrap();
    let first = got.iter().zip(&expected).position(|(a, b)| a != b);
    assert!(got == expected, "{what}: {} bytes, first difference at byte {first:?}", got.len());
}

fn random_indices(rows: i32, n: usize, signed: bool, rng: &mut Rng) -> Vec<i32> {
    (0..n)
        .map(|_| {
            let i = rng.index(rows as usize) as i32;
            if signed && rng.chance(2) {
                i - rows
            } else {
                i
            }
        })
        .collect()
}

#[test]
fn whole_rows_of_every_width_are_copied_bit_for_bit() {
    device();
    let mut rng = Rng(0x7a6e_5eed);
    // (dtype, row shape): rows of 16-byte multiples (the vector path) and of other sizes.
    let cases: &[(Dtype, &[i32])] = &[
        (Dtype::Bfloat16, &[1, 256]),
        (Dtype::Bfloat16, &[12]),
        (Dtype::Float16, &[2, 8]),
        (Dtype::Float32, &[4]),
        (Dtype::Float32, &[3]),
        (Dtype::Bool, &[32]),
        (Dtype::Bool, &[5]),
        (Dtype::Uint8, &[48]),
        (Dtype::Int64, &[2]),
        (Dtype::Int64, &[3]),
        (Dtype::Complex64, &[4]),
    ];
    for &(dtype, row) in cases {
        let rows = 37;
        let per_row: i32 = row.iter().product();
        let mut shape = vec![rows];
        shape.extend_from_slice(row);
        let src =
            values(dtype, (rows * per_row) as usize, &mut rng).unwrap().reshape(&shape).unwrap();
        let what = format!("{dtype:?} rows {row:?}");
        check(&src, &random_indices(rows, 300, true, &mut rng), &[300], &what);
        check(
            &src,
            &random_indices(rows, 20, false, &mut rng),
            &[4, 5],
            &format!("{what}, 2-D indices"),
        );
        check(&src, &[], &[0], &format!("{what}, no indices"));
    }
}

#[test]
fn views_take_the_general_path_and_give_the_same_bits() {
    device();
    let mut rng = Rng(0x51_1ce5);
    let flat = values(Dtype::Bfloat16, 1 + 40 * 16, &mut rng).unwrap();
    // Row-contiguous, but its data starts 2 bytes into the allocation: not 16-byte aligned.
    let shifted =
        ops::slice(&flat, &[1], &[1 + 40 * 16], &[1]).unwrap().reshape(&[40, 16]).unwrap();
    check(&shifted, &random_indices(40, 100, true, &mut rng), &[100], "unaligned view");
    // Rows from the second on: row-contiguous, 32 bytes into the allocation (aligned).
    let whole = values(Dtype::Bfloat16, 40 * 16, &mut rng).unwrap().reshape(&[40, 16]).unwrap();
    let tail = ops::slice(&whole, &[1, 0], &[40, 16], &[1, 1]).unwrap();
    check(&tail, &random_indices(39, 100, true, &mut rng), &[100], "rows from the second on");
    // Not row-contiguous: a transpose, and every other column.
    let square = values(Dtype::Float32, 16 * 24, &mut rng).unwrap().reshape(&[16, 24]).unwrap();
    let transposed = ops::transpose(&square).unwrap();
    check(&transposed, &random_indices(24, 50, true, &mut rng), &[50], "transposed");
    let strided = ops::slice(&square, &[0, 0], &[16, 24], &[1, 2]).unwrap();
    check(&strided, &random_indices(16, 50, false, &mut rng), &[50], "every other column");
}

#[test]
fn a_middle_axis_is_not_taken_as_rows() {
    device();
    let mut rng = Rng(0xa415);
    let src = values(Dtype::Bfloat16, 4 * 6 * 8, &mut rng).unwrap().reshape(&[4, 6, 8]).unwrap();
    let idx = Array::from_slice(&[5i32, 0, -1, 2], &[4]).unwrap();
    let got = ops::take(&src, &idx, 1).unwrap().to_bytes().unwrap();
    // Along axis 1: each [4, 8] block is src[:, j, :].
    let source = src.to_bytes().unwrap();
    let mut expected = Vec::new();
    for a in 0..4usize {
        for j in [5usize, 0, 5, 2] {
            let start = (a * 6 + j) * 8 * 2;
            expected.extend_from_slice(&source[start..start + 16]);
        }
    }
    assert_eq!(got, expected);
}
