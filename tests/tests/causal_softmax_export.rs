//! Exported functions holding the fused-causal-softmax patch's `CausalSoftmax` primitive: a
//! patched build round-trips them bit for bit, and stock MLX, which has no such primitive in its
//! deserializer table (`PrimitiveFactory` in mlx/export.cpp), refuses them on import with an
//! error naming the primitive, in another process (the stock helper, `stock_helper/mod.rs`)
//! that must neither crash nor import them silently.

#![cfg_attr(not(feature = "fused-causal-softmax"), allow(dead_code))]

mod stock_helper;

use std::path::Path;
use std::process::Command;

use mlx::export::{export_function, import_function};
use mlx::fast::{scaled_dot_product_attention, AttentionMask};
use mlx::{ops, random, Array, Dtype};
use mlx_tests::graphs::{self, Output};
use stock_helper::stock_helper;

const SCALE: f32 = 0.25;

/// f32 attention inputs q, k, v: [1, 2, 6, 8] (6 queries, 6 keys: causal masks something).
fn attention_inputs() -> Vec<Array> {
    mlx_tests::on_cpu();
    let qkv: Vec<Array> = (7..10)
        .map(|seed| {
            let key = random::key(seed).unwrap();
            random::normal(&[1, 2, 6, 8], Dtype::Float32, 0.0, 1.0, Some(&key)).unwrap()
        })
        .collect();
    mlx::eval(&qkv).unwrap();
    qkv
}

fn causal_sdpa(args: &[Array]) -> mlx::Result<Vec<Array>> {
    Ok(vec![scaled_dot_product_attention(
        &args[0],
        &args[1],
        &args[2],
        SCALE,
        AttentionMask::Causal,
        None,
    )?])
}

/// The same attention with the causal mask as a bool array: the stock chain, no CausalSoftmax.
fn array_mask_sdpa(args: &[Array]) -> mlx::Result<Vec<Array>> {
    let (lq, lkv) = (args[0].shape()[2], args[1].shape()[2]);
    let q_idx = ops::arange((lkv - lq) as f64, lkv as f64, 1.0, Dtype::Int32)?.expand_dims(&[1])?;
    let k_idx = ops::arange(0.0, lkv as f64, 1.0, Dtype::Int32)?.expand_dims(&[0])?;
    let mask = ops::greater_equal(&q_idx, &k_idx)?;
    Ok(vec![scaled_dot_product_attention(
        &args[0],
        &args[1],
        &args[2],
        SCALE,
        AttentionMask::Array(&mask),
        None,
    )?])
}

fn outputs_of(arrays: &[Array]) -> Vec<Output> {
    mlx::eval(arrays).unwrap();
    arrays.iter().map(|a| graphs::output(a).unwrap()).collect()
}

/// Whether the exported file names the primitive (export writes each primitive's name).
fn file_names(path: &Path, name: &str) -> bool {
    let bytes = std::fs::read(path).unwrap();
    bytes.windows(name.len()).any(|w| w == name.as_bytes())
}

/// What the stock helper reports for importing `function` and calling it on `inputs`:
/// Ok(outputs) or Err(MLX's message). Panics if it crashed or is not stock.
fn stock_import(function: &Path, inputs: &[Array]) -> Result<Vec<Output>, String> {
    let dir = function.parent().unwrap();
    let inputs_path =
        dir.join(format!("{}.inputs.safetensors", function.file_stem().unwrap().to_str().unwrap()));
    let names: Vec<String> = (0..inputs.len()).map(|i| i.to_string()).collect();
    mlx::io::save_safetensors(
        &inputs_path,
        names.iter().map(String::as_str).zip(inputs.iter()),
        std::iter::empty(),
    )
    .unwrap();
    let out = Command::new(stock_helper())
        .arg("import")
        .arg(function)
        .arg(&inputs_path)
        .output()
        .expect("running the stock graph-eval");
    // A C++ exception escaping to std::terminate (abort) or any other crash ends up here.
    assert!(
        out.status.success(),
        "the stock helper did not exit cleanly ({}):\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("graph-eval prints text");
    let (patches, rest) = text.split_once('\n').expect("patches line");
    assert_eq!(patches, "patches ", "the stock helper must be built without patches");
    if let Some(body) = rest.strip_prefix("import ok\n") {
        Ok(graphs::decode(body).expect("encoded outputs"))
    } else if let Some(message) = rest.strip_prefix("import error ") {
        Err(message.trim_end().to_string())
    } else {
        panic!("unexpected stock helper output: {text:?}")
    }
}

#[test]
fn export_returns_the_functions_error() {
    mlx_tests::on_mlx_thread(|| {
        let dir = tempfile::tempdir().unwrap();
        let x = Array::from_slice(&[1.0f32, 2.0], &[2]).unwrap();
        let e = export_function(
            dir.path().join("bad.mlxfn"),
            |args: &[Array]| Ok(vec![args[0].reshape(&[3])?]),
            &[&x],
            false,
        )
        .unwrap_err();
        assert!(e.to_string().contains("reshape"), "{e}");
        // And MLX's own import error for a missing file.
        let e = import_function(dir.path().join("missing.mlxfn")).unwrap_err();
        assert!(e.to_string().contains("import_function"), "{e}");
    })
}

/// A panic in the traced function crosses no C++ frame: it is caught in the callback, MLX
/// unwinds with an error, and the panic resumes in the caller of export_function.
#[test]
#[should_panic(expected = "panics while traced")]
fn a_panic_in_the_exported_function_resumes_after_the_export() {
    mlx_tests::on_mlx_thread(|| {
        let dir = tempfile::tempdir().unwrap();
        let x = Array::from_slice(&[1.0f32, 2.0], &[2]).unwrap();
        let _ = export_function(
            dir.path().join("panics.mlxfn"),
            |_: &[Array]| -> mlx::Result<Vec<Array>> { panic!("panics while traced") },
            &[&x],
            false,
        );
    })
}

#[cfg(feature = "fused-causal-softmax")]
fn fused_causal_softmax(args: &[Array]) -> mlx::Result<Vec<Array>> {
    use mlx_ext::fused_causal_softmax::ffi;
    Ok(vec![Array::from_raw(ffi::causal_softmax(args[0].as_raw(), true)?)?])
}

/// Export, then import in this (patched) process, then evaluate: the bits of the direct call.
#[cfg(feature = "fused-causal-softmax")]
type Case = fn(&[Array]) -> mlx::Result<Vec<Array>>;

/// The two functions holding CausalSoftmax: causal SDPA's fallback and the primitive alone.
#[cfg(feature = "fused-causal-softmax")]
fn causal_cases(qkv: &[Array]) -> [(&'static str, Case, Vec<Array>); 2] {
    let scores = ops::matmul(&qkv[0], &qkv[1].swapaxes(-1, -2).unwrap()).unwrap();
    [
        ("causal_sdpa", causal_sdpa, qkv.to_vec()),
        ("causal_softmax", fused_causal_softmax, vec![scores]),
    ]
}

/// Exports `f` to `path`, checking the file holds the primitive.
#[cfg(feature = "fused-causal-softmax")]
fn export_causal(path: &Path, f: Case, inputs: &[Array], name: &str) {
    export_function(path, f, inputs, false).unwrap();
    assert!(file_names(path, "CausalSoftmax"), "{name}: the exported graph has no CausalSoftmax");
}

#[cfg(feature = "fused-causal-softmax")]
#[test]
fn patched_build_round_trips_causal_softmax_bitwise() {
    mlx_tests::on_mlx_thread(|| {
        let dir = tempfile::tempdir().unwrap();
        let qkv = attention_inputs();
        for (name, f, inputs) in causal_cases(&qkv) {
            let path = dir.path().join(format!("{name}.mlxfn"));
            export_causal(&path, f, &inputs, name);
            let imported = import_function(&path).unwrap().call(&inputs).unwrap();
            assert_eq!(outputs_of(&imported), outputs_of(&f(&inputs).unwrap()), "{name}");
        }
    })
}

/// Stock MLX refuses a function holding CausalSoftmax at import, naming the primitive, while the
/// same attention exported with an array mask (no CausalSoftmax) imports there and gives the
/// bits this process computes: the helper's import path works, and only the primitive fails.
#[cfg(feature = "fused-causal-softmax")]
#[test]
fn stock_build_refuses_causal_softmax_on_import_with_a_clear_error() {
    mlx_tests::on_mlx_thread(|| {
        let dir = tempfile::tempdir().unwrap();
        let qkv = attention_inputs();

        let control = dir.path().join("array_mask_sdpa.mlxfn");
        export_function(&control, array_mask_sdpa, &qkv, false).unwrap();
        assert!(!file_names(&control, "CausalSoftmax"));
        let stock = stock_import(&control, &qkv).expect("stock imports the array-mask attention");
        assert_eq!(stock, outputs_of(&causal_sdpa(&qkv).unwrap()), "stock vs patched attention");

        for (name, f, inputs) in causal_cases(&qkv) {
            let path = dir.path().join(format!("{name}.mlxfn"));
            export_causal(&path, f, &inputs, name);
            match stock_import(&path, &inputs) {
                Ok(_) => panic!("{name}: stock MLX imported a function holding CausalSoftmax"),
                Err(message) => {
                    println!("{name}: stock MLX: {message}");
                    assert!(
                        message.contains("import_function") && message.contains("CausalSoftmax"),
                        "{name}: stock's error does not name the primitive: {message}"
                    )
                }
            }
        }
    })
}
