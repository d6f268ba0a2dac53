//! Every error path: bad input gives `Err` (with MLX's own message when MLX refused), never an
//! abort. The messages checked are the ones MLX's source raises for these cases.

mod common;

use common::arr;
use mlx::fast::{self, AttentionMask};
use mlx::quantized::{self, QuantParams};
use mlx::{ops, random, Array, Device, Dtype, Error, Stream};

/// Asserts an MLX error whose message contains `needle`.
fn mlx_err<T: std::fmt::Debug>(r: mlx::Result<T>, needle: &str) {
    match r {
        Err(Error::Mlx(msg)) => {
            assert!(
                msg.to_lowercase().contains(&needle.to_lowercase()),
                "message {msg:?} lacks {needle:?}"
            )
        }
        other => panic!("expected an MLX error containing {needle:?}, got {other:?}"),
    }
}

fn m23() -> Array {
    arr(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])
}

#[test]
fn shape_mismatches() {
    let a = m23();
    mlx_err(a.reshape(&[4]), "[reshape] Cannot reshape array of size 6");
    mlx_err(a.reshape(&[-1, -1]), "[reshape]");
    mlx_err(ops::matmul(&a, &a), "[matmul]");
    mlx_err(ops::add(&a, &arr(&[1.0f32, 2.0], &[2])), "broadcast");
    mlx_err(ops::concatenate(&[&a, &arr(&[1.0f32, 2.0], &[1, 2])], 0), "[concatenate]");
    mlx_err(ops::concatenate::<Array>(&[], 0), "[concatenate]");
    mlx_err(ops::split(&a, 4, 1), "Array split does not result in sub arrays with equal size");
    mlx_err(ops::split(&a, 0, 0), "[split] num_splits must be positive");
    mlx_err(ops::broadcast_to(&a, &[3, 3]), "broadcast");
    mlx_err(ops::slice(&a, &[0], &[1, 1], &[1, 1]), "[slice]");
    mlx_err(ops::squeeze_axes(&a, &[0]), "[squeeze]");
    mlx_err(ops::unflatten(&a, 1, &[4, -1]), "[unflatten]");
    mlx_err(ops::where_(&arr(&[true, false], &[2]), &a, &a), "broadcast");
    mlx_err(ops::zeros(&[2, -3], Dtype::Float32), "Negative dimensions");
    mlx_err(ops::full(&[-1], 1.0, Dtype::Float32), "[full] Negative dimensions not allowed.");
    mlx_err(ops::arange(0.0, 1.0, 0.0, Dtype::Float32), "[arange]");
}

#[test]
fn bad_axes() {
    let a = m23();
    mlx_err(a.sum_axes(&[2], false), "axis");
    mlx_err(ops::mean_axes(&a, &[-3], false), "axis");
    mlx_err(a.argmax_axis(5, false), "axis");
    mlx_err(a.softmax_axes(&[4], true), "axis");
    mlx_err(ops::swapaxes(&a, 0, 7), "[swapaxes]");
    mlx_err(a.expand_dims(&[9]), "[expand_dims]");
    mlx_err(ops::transpose_axes(&a, &[0, 0]), "[transpose]");
    mlx_err(ops::take(&a, &arr(&[0i32], &[1]), 2), "[take]");
    mlx_err(ops::sort_axis(&a, 3), "axis");
    mlx_err(ops::argpartition(&a, 1, -5), "axis");
    mlx_err(ops::topk(&a, 4, 1), "[topk]");
    mlx_err(ops::cumsum(&a, 2, false, true), "axis");
    mlx_err(ops::flatten(&a, 1, 0), "[flatten]");
    mlx_err(ops::concatenate(&[&a, &a], 2), "[concatenate]");
    assert!(matches!(a.dim(2), Err(Error::InvalidArgument(_))));
}

#[test]
fn wrong_dtypes() {
    let ints = ops::ones(&[4, 64], Dtype::Int32).unwrap();
    mlx_err(
        quantized::quantize(&ints, QuantParams::default()),
        "[quantize] Only real floating types can be quantized",
    );
    mlx_err(ops::take(&m23(), &arr(&[0.5f32], &[1]), 0), "Indices must be integral");
    mlx_err(ops::negative(&arr(&[true], &[1])), "[negative]");
    let x = ops::ones(&[1, 1, 4, 8], Dtype::Float32).unwrap();
    mlx_err(
        fast::rope_with_offsets(&x, 8, false, Some(1e4), 1.0, &Array::scalar(1.5f32), None),
        "[rope] offset must be an integer",
    );
    mlx_err(random::randint(0, 10, &[3], Dtype::Float32, None), "[randint]");
    mlx_err(random::uniform(0.0, 1.0, &[3], Dtype::Int32, None), "[uniform]");
}

#[test]
fn host_data_errors_are_caught_before_mlx() {
    // MLX itself would read past the end of the buffer here.
    assert!(matches!(
        Array::from_slice(&[1.0f32, 2.0, 3.0], &[2, 2]),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(Array::from_slice::<f32>(&[], &[-1]), Err(Error::InvalidArgument(_))));
    // Reading as the wrong element type would reinterpret bytes.
    let a = m23();
    assert_eq!(
        a.to_vec::<i32>(),
        Err(Error::DtypeMismatch { requested: Dtype::Int32, actual: Dtype::Float32 })
    );
    assert!(matches!(a.to_vec::<mlx::f16>(), Err(Error::DtypeMismatch { .. })));
    assert!(matches!(Array::scalar(1u8).item::<bool>(), Err(Error::DtypeMismatch { .. })));
    let e = a.to_vec::<u64>().unwrap_err().to_string();
    assert!(e.contains("float32") && e.contains("uint64"), "{e}");
}

#[test]
fn item_needs_exactly_one_element() {
    mlx_err(m23().item::<f32>(), "item can only be called on arrays of size 1.");
    mlx_err(
        Array::from_slice::<f32>(&[], &[0]).unwrap().item::<f32>(),
        "item can only be called on arrays of size 1.",
    );
}

#[test]
fn attention_and_norm_errors() {
    let q = ops::ones(&[1, 2, 3, 8], Dtype::Float32).unwrap();
    let k4 = ops::ones(&[1, 2, 3, 4], Dtype::Float32).unwrap();
    mlx_err(
        fast::scaled_dot_product_attention(&q, &k4, &k4, 1.0, AttentionMask::None, None),
        "[scaled_dot_product_attention]",
    );
    let k3 = ops::ones(&[1, 3, 3, 8], Dtype::Float32).unwrap();
    mlx_err(
        fast::scaled_dot_product_attention(&q, &k3, &k3, 1.0, AttentionMask::None, None),
        "[scaled_dot_product_attention]",
    );
    let bad_mask = ops::ones(&[5, 7], Dtype::Bool).unwrap();
    let k = ops::ones(&[1, 2, 3, 8], Dtype::Float32).unwrap();
    let r =
        fast::scaled_dot_product_attention(&q, &k, &k, 1.0, AttentionMask::Array(&bad_mask), None)
            .and_then(|o| {
                o.eval()?;
                Ok(o)
            });
    assert!(matches!(r, Err(Error::Mlx(_))), "{r:?}");
    mlx_err(
        fast::rms_norm(&q, Some(&ops::ones(&[3], Dtype::Float32).unwrap()), 1e-5),
        "[rms_norm]",
    );
    mlx_err(
        fast::layer_norm(&q, Some(&ops::ones(&[2, 8], Dtype::Float32).unwrap()), None, 1e-5),
        "[layer_norm]",
    );
    mlx_err(fast::rope(&q, 0, false, Some(1e4), 1.0, 0, None), "[rope] dims must be positive");
    mlx_err(
        fast::rope(&q, 8, false, None, 1.0, 0, None),
        "[rope] Neither base nor freqs has a value.",
    );
}

#[test]
fn quantization_errors() {
    let w = ops::ones(&[4, 128], Dtype::Float32).unwrap();
    mlx_err(
        quantized::quantize(
            &ops::ones(&[4, 192], Dtype::Float32).unwrap(),
            QuantParams::affine(48, 4),
        ),
        "[quantize] The requested group size 48 is not supported.",
    );
    mlx_err(
        quantized::quantize(&w, QuantParams::affine(64, 7)),
        "[quantize] The requested number of bits 7 is not supported.",
    );
    mlx_err(
        quantized::quantize(
            &ops::ones(&[4, 100], Dtype::Float32).unwrap(),
            QuantParams::affine(64, 4),
        ),
        "needs to be divisible by the quantization group size 64",
    );
    let q = quantized::quantize(&w, QuantParams::affine(64, 4)).unwrap();
    let x = ops::ones(&[2, 64], Dtype::Float32).unwrap();
    mlx_err(
        quantized::quantized_matmul(
            &x,
            &q.weights,
            &q.scales,
            q.biases.as_ref(),
            true,
            QuantParams::affine(64, 4),
        ),
        "[quantized_matmul]",
    );
    let x = ops::ones(&[2, 1, 128], Dtype::Float32).unwrap();
    let bad_ids = arr(&[0.0f32, 1.0], &[2]);
    let r = quantized::gather_qmm(
        &x,
        &q.weights,
        &q.scales,
        q.biases.as_ref(),
        None,
        Some(&bad_ids),
        true,
        QuantParams::affine(64, 4),
        true,
    );
    mlx_err(r, "[gather_qmm]");
    mlx_err(quantized::gather_mm(&x, &x, None, Some(&bad_ids), false), "[gather_mm]");
    assert!("q4".parse::<quantized::QuantMode>().is_err());
}

#[test]
fn random_errors() {
    assert!(matches!(random::categorical_n(&m23(), -1, -2, None), Err(Error::InvalidArgument(_))));
    mlx_err(random::split(&arr(&[1.0f32, 2.0, 3.0], &[3]), 2), "");
    mlx_err(random::normal(&[2, 2], Dtype::Int32, 0.0, 1.0, None), "[normal]");
}

fn temp_dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("mlx-errors-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn bad_safetensors_files() {
    let dir = temp_dir("files");
    mlx_err(
        mlx::io::load_safetensors(dir.join("missing.safetensors")),
        "[load_safetensors] Failed to open",
    );
    let garbage = dir.join("garbage.safetensors");
    std::fs::write(&garbage, b"this is not a safetensors file at all").unwrap();
    mlx_err(mlx::io::load_safetensors(&garbage), "[load_safetensors]");
    let short = dir.join("short.safetensors");
    std::fs::write(&short, [1u8, 2, 3]).unwrap();
    assert!(matches!(mlx::io::load_safetensors(&short), Err(Error::Mlx(_))));
    // A valid length prefix followed by broken JSON.
    let bad_json = dir.join("badjson.safetensors");
    let mut bytes = 10u64.to_le_bytes().to_vec();
    bytes.extend_from_slice(b"{\"a\": [1,");
    bytes.push(b' ');
    std::fs::write(&bad_json, bytes).unwrap();
    assert!(matches!(mlx::io::load_safetensors(&bad_json), Err(Error::Mlx(_))));
    // Header says more data than the file has.
    let header = br#"{"x":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}"#;
    let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
    bytes.extend_from_slice(header);
    bytes.extend_from_slice(&[0u8; 8]);
    let cut = dir.join("cut.safetensors");
    std::fs::write(&cut, bytes).unwrap();
    mlx_err(mlx::io::load_safetensors(&cut), "exceeding the size of the file");
    // float64 cannot be stored in safetensors by MLX.
    mlx_err(
        mlx::io::save_safetensors(dir.join("f64.safetensors"), [("x", &Array::scalar(1.0f64))], []),
        "[save_safetensors] received invalid dtype.",
    );
    mlx_err(
        mlx::io::save_safetensors(dir.join("no/such/dir/x.safetensors"), [("x", &m23())], []),
        "[save_safetensors] Failed to open",
    );
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let p = dir.join(std::ffi::OsStr::from_bytes(b"bad\xff.safetensors"));
        assert!(matches!(mlx::io::load_safetensors(&p), Err(Error::InvalidArgument(_))));
    }
    std::fs::remove_dir_all(dir).ok();
}

/// Errors raised while evaluating (here: by the Load kernel on MLX's stream thread) come
/// back from eval, and the process keeps working afterwards.
#[test]
fn evaluation_errors_are_returned() {
    let dir = temp_dir("eval");
    let p = dir.join("t.safetensors");
    let big = ops::ones(&[1000], Dtype::Float32).unwrap();
    mlx::io::save_safetensors(&p, [("x", &big)], []).unwrap();
    let loaded = mlx::io::load_safetensors(&p).unwrap();
    // Cut the file after the header was read and validated.
    std::fs::OpenOptions::new().write(true).open(&p).unwrap().set_len(100).unwrap();
    let x = ops::multiply(&loaded.tensors["x"], &Array::scalar(2.0f32)).unwrap();
    mlx_err(x.eval(), "[read] Unable to read from file.");
    let fresh = ops::add(&big, &big).unwrap();
    assert_eq!(fresh.to_vec::<f32>().unwrap(), vec![2.0; 1000]);
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn printing_an_array_that_fails_to_evaluate_shows_the_error() {
    let dir = temp_dir("print");
    let p = dir.join("t.safetensors");
    mlx::io::save_safetensors(&p, [("x", &ops::ones(&[64], Dtype::Float32).unwrap())], []).unwrap();
    let loaded = mlx::io::load_safetensors(&p).unwrap();
    std::fs::OpenOptions::new().write(true).open(&p).unwrap().set_len(90).unwrap();
    let shown = format!("{}", loaded.tensors["x"]);
    assert!(
        shown.contains("could not be evaluated") && shown.contains("Unable to read"),
        "{shown}"
    );
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn devices_this_build_lacks() {
    // A GPU stream can be made exactly when the build has a GPU backend (never on this
    // project's Linux CPU build, where these are errors, not aborts).
    let gpu = Device::gpu(0);
    assert_eq!(Stream::new(gpu).is_ok(), gpu.is_available());
    assert_eq!(Stream::default_for(gpu).is_ok(), gpu.is_available());
    if !gpu.is_available() {
        assert!(matches!(gpu.set_default(), Err(Error::Mlx(_))));
        assert_eq!(Device::default_device(), Device::cpu());
    }
}

#[test]
#[should_panic(expected = "broadcast")]
fn operator_panics_with_mlx_message_on_bad_shapes() {
    let _ = &m23() + &arr(&[1.0f32, 2.0], &[2]);
}

#[test]
#[should_panic(expected = "[negative]")]
fn negation_operator_panics_on_bool() {
    let _ = -&arr(&[true], &[1]);
}
