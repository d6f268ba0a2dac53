//! The MLX this process loaded, and its GPU when it has one. For a shared build the library must
//! be the one built for this binary's patches (the `PATCHES` file of its install prefix), and
//! the runtime-JIT kernels of the CUDA backend must find the CCCL and CuTe headers beside it
//! (`<prefix>/include`), wherever the program itself lives. Run on the H200 by scripts/gpu/run.

use mlx::{backend, quantized, random, Device, Dtype};
use std::path::{Path, PathBuf};

fn install_prefix(library: &Path) -> PathBuf {
    library.parent().and_then(Path::parent).expect("library has a prefix").to_path_buf()
}

#[test]
fn loaded_mlx_is_built_with_this_binarys_patches() {
    let library = backend::library_path().expect("library path");
    assert!(library.is_file(), "{} is not a file", library.display());
    if mlx_sys::build_info::SHARED {
        assert!(
            library.file_name().unwrap().to_string_lossy().starts_with("libmlx.so"),
            "{}",
            library.display()
        );
    } else {
        assert_eq!(library, std::env::current_exe().unwrap().canonicalize().unwrap());
    }
    backend::check_loaded_build().unwrap();
}

#[test]
fn gpu_jit_kernels_find_their_headers() {
    if !backend::gpu_available().unwrap() {
        assert_ne!(mlx_sys::build_info::BACKEND, "cuda", "a CUDA build sees no GPU");
        assert!(Device::gpu(0).set_default().is_err(), "a build without GPU accepted the GPU");
        return;
    }
    let library = backend::library_path().unwrap();
    let include = install_prefix(&library).join("include");
    if mlx_sys::build_info::BACKEND == "cuda" {
        for header in ["cute/tensor.hpp", "cutlass/cutlass.h", "cccl/cuda/std/type_traits"] {
            assert!(
                include.join(header).is_file(),
                "{} missing beside {}",
                header,
                library.display()
            );
        }
    }
    // A 4-bit quantized matmul: on CUDA its kernel is compiled at run time and includes CuTe.
    let key = random::key(7).unwrap();
    let w = random::normal(&[256, 512], Dtype::Bfloat16, 0.0, 0.05, Some(&key)).unwrap();
    let x = random::normal(&[8, 512], Dtype::Bfloat16, 0.0, 1.0, Some(&random::key(8).unwrap()))
        .unwrap();
    // One quantization (on the CPU) for every product, so only the products differ.
    let params = quantized::QuantParams::affine(64, 4);
    Device::cpu().set_default().unwrap();
    let q = quantized::quantize(&w, params).unwrap();
    let to_vec = |y: mlx::Array| y.astype(Dtype::Float32).unwrap().to_vec::<f32>().unwrap();
    let exact = to_vec(
        x.astype(Dtype::Float32)
            .unwrap()
            .matmul(
                &quantized::dequantize(
                    &q.weights,
                    &q.scales,
                    q.biases.as_ref(),
                    params,
                    Some(Dtype::Float32),
                )
                .unwrap()
                .t()
                .unwrap(),
            )
            .unwrap(),
    );
    Device::gpu(0).set_default().unwrap();
    let gpu = to_vec(
        quantized::quantized_matmul(&x, &q.weights, &q.scales, q.biases.as_ref(), true, params)
            .unwrap_or_else(|e| panic!("quantized_matmul on the GPU: {e}")),
    );
    Device::cpu().set_default().unwrap();
    let norm = |v: &[f32]| v.iter().map(|a| f64::from(*a).powi(2)).sum::<f64>().sqrt();
    let diff: Vec<f32> = gpu.iter().zip(&exact).map(|(a, b)| a - b).collect();
    let relative = norm(&diff) / norm(&exact);
    assert!(gpu.iter().all(|v| v.is_finite()));
    // bf16 outputs of float32 sums of the same products: well under 1e-2 relative.
    assert!(relative < 1e-2, "GPU quantized matmul vs float32 products: relative error {relative}");
}
