//! Inputs the rows share: small arrays, quantized weights, arrays whose evaluation fails.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use mlx::quantized::{self, QuantParams, Quantized};
use mlx::{ops, Array, Complex64, Dtype};

use crate::common::arr;

/// 2x3 float32.
pub fn m23() -> Array {
    arr(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])
}

pub fn v2() -> Array {
    arr(&[1.0f32, 2.0], &[2])
}

/// Does not broadcast with [`v2`].
pub fn v3() -> Array {
    arr(&[1.0f32, 2.0, 3.0], &[3])
}

pub fn bools() -> Array {
    arr(&[true, false], &[2])
}

pub fn complex() -> Array {
    arr(&[Complex64::new(1.0, 2.0), Complex64::new(0.0, 1.0)], &[2])
}

pub fn empty() -> Array {
    arr::<f32>(&[], &[0])
}

pub fn ones(shape: &[i32], dtype: Dtype) -> Array {
    ops::ones(shape, dtype).expect("ones")
}

pub fn float_index() -> Array {
    arr(&[0.5f32], &[1])
}

/// A 4x64 float32 matrix quantized affine, group 64, 4 bits.
pub fn q4() -> Quantized {
    quantized::quantize(&ones(&[4, 64], Dtype::Float32), QuantParams::affine(64, 4)).expect("q4")
}

/// `r`, evaluated: for errors MLX raises only while computing.
pub fn ev(r: mlx::Result<Array>) -> mlx::Result<Array> {
    let a = r?;
    a.eval()?;
    Ok(a)
}

/// A lazy array built on another (finished) thread: MLX's streams are per thread, so this
/// thread cannot evaluate it.
pub fn foreign() -> Array {
    std::thread::spawn(|| ops::add(&v2(), &v2()).expect("add")).join().expect("thread")
}

fn dir() -> PathBuf {
    std::env::temp_dir().join(format!("mlx-bad-input-{}", std::process::id()))
}

/// A fresh path in this process's scratch folder.
pub fn path(name: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    std::fs::create_dir_all(dir()).expect("scratch folder");
    dir().join(format!("{}-{name}", N.fetch_add(1, Ordering::Relaxed)))
}

/// A tensor loaded from a safetensors file that was cut after its header was read: reading
/// its data fails while evaluating.
pub fn truncated() -> Array {
    let p = path("cut.safetensors");
    mlx::io::save_safetensors(&p, [("x", &ones(&[1000], Dtype::Float32))], []).expect("save");
    let loaded = mlx::io::load_safetensors(&p).expect("load");
    std::fs::OpenOptions::new().write(true).open(&p).unwrap().set_len(100).unwrap();
    loaded.tensors["x"].clone()
}

pub fn cleanup() {
    std::fs::remove_dir_all(dir()).ok();
}
