//! Array construction, metadata, host round trips for every dtype, item, printing, clone.

mod common;

use common::arr;
use mlx::{bf16, f16, Array, Complex64, Dtype, Element};

fn round_trip<T: Element + PartialEq + std::fmt::Debug>(data: &[T]) {
    let n = data.len() as i32;
    let a = Array::from_slice(data, &[n]).unwrap();
    assert_eq!(a.dtype(), T::DTYPE);
    assert_eq!(a.shape(), vec![n]);
    assert_eq!(a.size(), data.len());
    assert_eq!(a.itemsize(), T::DTYPE.size());
    assert_eq!(a.nbytes(), std::mem::size_of_val(data));
    assert_eq!(a.to_vec::<T>().unwrap(), data);
    if T::DTYPE != Dtype::Bool {
        // to_bytes: the same elements as raw native-order bytes (bools: the test below).
        // SAFETY: non-bool elements are plain data; the view covers exactly the slice.
        let raw = unsafe {
            std::slice::from_raw_parts(data.as_ptr().cast::<u8>(), std::mem::size_of_val(data))
        };
        assert_eq!(a.to_bytes().unwrap(), raw);
    }
}

#[test]
fn every_dtype_round_trips() {
    round_trip(&[true, false, true]);
    round_trip(&[0u8, 1, 255]);
    round_trip(&[0u16, 1, u16::MAX]);
    round_trip(&[0u32, 7, u32::MAX]);
    round_trip(&[0u64, 9, u64::MAX]);
    round_trip(&[i8::MIN, -1, 0, i8::MAX]);
    round_trip(&[i16::MIN, -1, i16::MAX]);
    round_trip(&[i32::MIN, -1, i32::MAX]);
    round_trip(&[i64::MIN, -1, i64::MAX]);
    round_trip(&[f32::MIN, -1.5, 0.0, f32::MAX, f32::INFINITY]);
    round_trip(&[f64::MIN, -2.25, 1e300]);
    round_trip(&[f16::from_f32(1.5), f16::MAX, f16::from_f32(-0.25)]);
    round_trip(&[bf16::from_f32(1.5), bf16::MAX, bf16::from_f32(-3.0)]);
    round_trip(&[Complex64::new(1.0, -2.0), Complex64::new(0.5, 4.0)]);
}

/// NaN payloads, signed zeros and infinities survive bit for bit in every float dtype.
#[test]
fn float_special_values_are_bit_exact() {
    let f32s =
        [f32::NAN, -f32::NAN, 0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::MIN_POSITIVE / 2.0];
    let back = Array::from_slice(&f32s, &[7]).unwrap().to_vec::<f32>().unwrap();
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&back), bits(&f32s));

    let f16s: Vec<f16> =
        [f16::NAN, f16::NEG_ZERO, f16::INFINITY, f16::NEG_INFINITY, f16::MIN_POSITIVE_SUBNORMAL]
            .to_vec();
    let back = Array::from_slice(&f16s, &[5]).unwrap().to_vec::<f16>().unwrap();
    assert_eq!(
        back.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        f16s.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
    );

    let bf16s: Vec<bf16> = [bf16::NAN, bf16::NEG_ZERO, bf16::INFINITY, bf16::NEG_INFINITY].to_vec();
    let back = Array::from_slice(&bf16s, &[4]).unwrap().to_vec::<bf16>().unwrap();
    assert_eq!(
        back.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        bf16s.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
    );
}

/// to_bytes: a bool is one byte, a view gives its row-major copy's bytes, an empty array none,
/// a NaN its payload.
#[test]
fn to_bytes_of_bools_views_empty_arrays_and_nan_payloads() {
    let bools = Array::from_slice(&[true, false, true], &[3]).unwrap();
    assert_eq!(bools.to_bytes().unwrap(), [1, 0, 1]);
    let a = Array::from_slice(&[1u16, 2, 3, 4, 5, 6], &[2, 3]).unwrap();
    let t = mlx::ops::transpose(&a).unwrap();
    let want: Vec<u8> = [1u16, 4, 2, 5, 3, 6].iter().flat_map(|x| x.to_ne_bytes()).collect();
    assert_eq!(t.to_bytes().unwrap(), want);
    assert!(Array::from_slice::<f32>(&[], &[0, 3]).unwrap().to_bytes().unwrap().is_empty());
    let payload = f32::from_bits(f32::NAN.to_bits() | 1);
    let b = Array::from_slice(&[payload], &[1]).unwrap().to_bytes().unwrap();
    assert_eq!(b, payload.to_bits().to_ne_bytes());
}

#[test]
fn shapes_including_empty_and_scalar() {
    let s = Array::scalar(3i32);
    assert_eq!(s.ndim(), 0);
    assert_eq!(s.shape(), Vec::<i32>::new());
    assert_eq!(s.size(), 1);
    assert_eq!(s.item::<i32>().unwrap(), 3);

    let e = Array::from_slice::<f32>(&[], &[0, 3]).unwrap();
    assert_eq!(e.shape(), vec![0, 3]);
    assert_eq!(e.size(), 0);
    assert_eq!(e.to_vec::<f32>().unwrap(), Vec::<f32>::new());

    let m = arr(&[1i64, 2, 3, 4, 5, 6], &[2, 1, 3]);
    assert_eq!(m.ndim(), 3);
    assert_eq!(m.dim(-1).unwrap(), 3);
    assert_eq!(m.dim(1).unwrap(), 1);
    assert!(m.dim(3).is_err());
    assert_eq!(Array::from_vec1(&[1u8, 2]).unwrap().shape(), vec![2]);
}

#[test]
fn item_reads_one_element_of_each_kind() {
    assert!(Array::scalar(true).item::<bool>().unwrap());
    assert_eq!(Array::scalar(-7i8).item::<i8>().unwrap(), -7);
    assert_eq!(Array::scalar(2.5f64).item::<f64>().unwrap(), 2.5);
    assert_eq!(Array::scalar(bf16::from_f32(0.5)).item::<bf16>().unwrap(), bf16::from_f32(0.5));
    assert_eq!(
        Array::scalar(Complex64::new(1.0, 2.0)).item::<Complex64>().unwrap(),
        Complex64::new(1.0, 2.0)
    );
    // One element in a higher-rank shape is fine too.
    assert_eq!(arr(&[9u32], &[1, 1]).item::<u32>().unwrap(), 9);
    // Lazy result: item evaluates.
    let a = arr(&[2.0f32], &[1]);
    let b = mlx::ops::multiply(&a, &a).unwrap();
    assert!(!b.is_available());
    assert_eq!(b.item::<f32>().unwrap(), 4.0);
    assert!(b.is_available());
}

#[test]
fn scalar_as_converts_like_mlx() {
    let a = Array::scalar_as(2.75, Dtype::Int32).unwrap();
    assert_eq!(a.dtype(), Dtype::Int32);
    assert_eq!(a.item::<i32>().unwrap(), 2);
    let h = Array::scalar_as(0.1, Dtype::Float16).unwrap();
    assert_eq!(h.item::<f16>().unwrap(), f16::from_f64(0.1));
}

#[test]
fn clone_is_shallow_and_drop_keeps_others_alive() {
    let a = arr(&[1.0f32, 2.0], &[2]);
    let b = a.clone();
    assert_eq!(a.id(), b.id());
    let c = mlx::ops::add(&a, &b).unwrap();
    drop(a);
    drop(b);
    assert_eq!(c.to_vec::<f32>().unwrap(), vec![2.0, 4.0]);
}

#[test]
fn display_and_debug_show_values_shape_and_dtype() {
    let a = arr(&[1i32, 2, 3, 4], &[2, 2]);
    let shown = format!("{a}");
    for needle in ["1", "2", "3", "4", "int32"] {
        assert!(shown.contains(needle), "{shown:?} lacks {needle}");
    }
    let dbg = format!("{a:?}");
    assert!(dbg.contains("shape: [2, 2]"), "{dbg}");
    assert!(dbg.contains("Int32"), "{dbg}");
    assert!(dbg.contains(&shown), "{dbg}");
}

#[test]
fn raw_handle_round_trip() {
    let a = arr(&[5i16], &[1]);
    let raw = a.into_raw();
    let back = Array::from_raw(raw).unwrap();
    assert_eq!(back.item::<i16>().unwrap(), 5);
    assert!(Array::from_raw(cxx::UniquePtr::null()).is_err());
}

#[test]
fn dtype_table_matches_mlx() {
    for d in Dtype::ALL {
        let z = mlx::ops::zeros(&[3], d).unwrap();
        assert_eq!(z.dtype(), d);
        assert_eq!(z.itemsize(), d.size(), "{d}");
    }
}
