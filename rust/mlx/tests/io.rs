//! Safetensors round trips.

mod common;

use common::arr;
use mlx::{ops, Array, Complex64, Dtype};

#[test]
fn save_and_load_round_trip_every_storable_dtype() {
    let dir = std::env::temp_dir().join(format!("mlx-io-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("all.safetensors");
    let tensors: Vec<(&str, Array)> = vec![
        ("bool", arr(&[true, false, true], &[3])),
        ("u8", arr(&[1u8, 255], &[2])),
        ("u16", arr(&[7u16], &[1])),
        ("u32", arr(&[1u32, 2, 3, 4], &[2, 2])),
        ("u64", arr(&[u64::MAX], &[1])),
        ("i8", arr(&[-8i8], &[1])),
        ("i16", arr(&[-16i16, 16], &[2])),
        ("i32", arr(&[-32i32], &[1, 1])),
        ("i64", arr(&[i64::MIN], &[1])),
        ("f16", arr(&[mlx::f16::from_f32(0.5), mlx::f16::NAN], &[2])),
        ("bf16", arr(&[mlx::bf16::from_f32(-2.0)], &[1])),
        ("f32", arr(&[1.5f32, -0.0, f32::INFINITY, 3.25, 4.0, 5.0], &[2, 3])),
        ("c64", arr(&[Complex64::new(1.0, -1.0)], &[1])),
        ("empty", Array::from_slice::<f32>(&[], &[0, 4]).unwrap()),
        // A strided view is written as its row-major values.
        ("view", arr(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).t().unwrap()),
    ];
    mlx::io::save_safetensors(
        &p,
        tensors.iter().map(|(n, a)| (*n, a)),
        [("format", "mlx"), ("note", "test")],
    )
    .unwrap();
    let loaded = mlx::io::load_safetensors(&p).unwrap();
    assert_eq!(loaded.tensors.len(), tensors.len());
    assert_eq!(loaded.metadata.get("format").map(String::as_str), Some("mlx"));
    assert_eq!(loaded.metadata.get("note").map(String::as_str), Some("test"));
    for (name, a) in &tensors {
        let b = &loaded.tensors[*name];
        assert_eq!(b.shape(), a.shape(), "{name}");
        assert_eq!(b.dtype(), a.dtype(), "{name}");
        assert!(ops::array_equal(a, b, true).unwrap().item::<bool>().unwrap(), "{name}");
    }
    assert_eq!(loaded.tensors["view"].to_vec::<f32>().unwrap(), [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
    assert_eq!(
        loaded.tensors["f16"].to_vec::<mlx::f16>().unwrap()[1].to_bits(),
        mlx::f16::NAN.to_bits()
    );
    assert_eq!(loaded.tensors["u64"].dtype(), Dtype::Uint64);
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn loaded_arrays_are_lazy_and_usable_in_ops() {
    let dir = std::env::temp_dir().join(format!("mlx-io-lazy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("w.safetensors");
    let w = arr(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2]);
    mlx::io::save_safetensors(&p, [("w", &w)], []).unwrap();
    let loaded = mlx::io::load_safetensors(&p).unwrap();
    assert!(loaded.metadata.is_empty());
    let lw = &loaded.tensors["w"];
    assert!(!lw.is_available());
    let y = lw.matmul(&arr(&[1.0f32, 1.0], &[2, 1])).unwrap();
    assert_eq!(y.to_vec::<f32>().unwrap(), [3.0, 7.0]);
    std::fs::remove_dir_all(dir).ok();
}
