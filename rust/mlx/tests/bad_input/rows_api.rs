//! Rows for the hand-written safe API: `Array`, `ops`, `fast`, `quantized`, `random`, `io`,
//! `stream`, `backend`, evaluation.
//!
//! Not here because MLX v0.32.4 does not check them and crashes: index values out of range
//! (`take` with index 10^6 is a SIGSEGV on CPU; values are known only once evaluated).

use mlx::fast::{self, AttentionMask};
use mlx::quantized::{self, QuantMode, QuantParams};
use mlx::stream::{Device, DeviceType, Stream};
use mlx::{ops, random, Array, Dtype};

use crate::common::arr;
use crate::fixtures::*;
use crate::{rows, Row};

/// CPU device 5: this build has one CPU device.
fn cpu5() -> Device {
    Device { kind: DeviceType::Cpu, index: 5 }
}

/// A function to export: its input doubled.
fn double(inputs: &[Array]) -> mlx::Result<Vec<Array>> {
    Ok(vec![ops::add(&inputs[0], &inputs[0])?])
}

fn affine(group_size: i32, bits: i32) -> QuantParams {
    QuantParams::affine(group_size, bits)
}

pub fn rows() -> Vec<Row> {
    rows! {
        // Array: host data and reads are checked in Rust, the rest by MLX.
        "Array::from_raw" => Array::from_raw(cxx::UniquePtr::null()), ["returned no array"];
        "Array::from_slice" => Array::from_slice(&[1.0f32, 2.0, 3.0], &[2, 2]), ["do not fill", "[2, 2]"];
        "Array::from_slice" => Array::from_slice::<f32>(&[], &[-1]), ["negative dimension"];
        "Array::dim" => m23().dim(2), ["axis 2", "out of bounds"];
        "Array::eval" => truncated().eval(), ["unable to read"];
        "Array::eval" => foreign().eval(), ["no stream"];
        "Array::item" => m23().item::<f32>(), ["size 1"];
        "Array::to_vec" => m23().to_vec::<i32>(), ["dtype mismatch", "float32", "int32"];
        "Array::to_vec" => truncated().to_vec::<f32>(), ["unable to read"];
        "Array::to_bytes" => truncated().to_bytes(), ["unable to read"];
        "Array::try_to_string" => foreign().try_to_string(), ["no stream"];
        "Array::reshape" => m23().reshape(&[4]), ["[reshape]", "size 6"];
        "Array::transpose_axes" => m23().transpose_axes(&[0, 0]), ["[transpose]", "repeat"];
        "Array::swapaxes" => m23().swapaxes(0, 7), ["[swapaxes]"];
        "Array::expand_dims" => m23().expand_dims(&[0, 0]), ["[expand_dims]", "duplicate"];
        "Array::flatten" => m23().flatten(1, 0), ["[flatten]", "start_axis"];
        "Array::add" => v2().add(&v3()), ["broadcast"];
        "Array::subtract" => v2().subtract(&v3()), ["broadcast"];
        "Array::multiply" => v2().multiply(&v3()), ["broadcast"];
        "Array::divide" => v2().divide(&v3()), ["broadcast"];
        "Array::matmul" => m23().matmul(&m23()), ["[matmul]"];
        "Array::sum_axes" => m23().sum_axes(&[0, 0], false), ["duplicate axes"];
        "Array::mean_axes" => m23().mean_axes(&[-3], false), ["axis -3"];
        "Array::max_axes" => m23().max_axes(&[5], true), ["axis 5"];
        "Array::argmax_axis" => m23().argmax_axis(5, false), ["axis 5"];
        "Array::softmax_axes" => m23().softmax_axes(&[4], true), ["axis 4"];

        // Evaluation.
        "eval" => mlx::eval(&[truncated()]), ["unable to read"];
        "async_eval" => mlx::async_eval(&[foreign()]), ["no stream"];

        // Creation.
        "ops::arange" => ops::arange(0.0, 1.0, 0.0, Dtype::Float32), ["[arange]", "step"];
        "ops::zeros" => ops::zeros(&[2, -3], Dtype::Float32), ["negative dimensions"];
        "ops::ones" => ops::ones(&[-1], Dtype::Complex64), ["negative dimensions"];
        "ops::full" => ops::full(&[-1], 1.0, Dtype::Float32), ["[full]", "negative dimensions"];
        "ops::full_array" => ops::full_array(&[3], &v2(), Dtype::Float32), ["broadcast"];
        "ops::tril" => ops::tril(&v2(), 0), ["[tril]", "2-d"];
        "ops::triu" => ops::triu(&v2(), 0), ["[triu]", "2-d"];

        // Element-wise, comparisons, dtype.
        "ops::silu" => ops::silu(&complex()), ["[sigmoid]", "complex64"];
        "ops::where_" => ops::where_(&bools(), &m23(), &m23()), ["broadcast"];

        // Indexing.
        "ops::take" => ops::take(&m23(), &float_index(), 0), ["[gather]", "integral"];
        "ops::take" => ops::take(&m23(), &arr(&[0i32], &[1]), 2), ["[take]", "axis"];
        "ops::take_flat" => ops::take_flat(&empty(), &Array::scalar(0i32)), ["[take]", "empty"];
        "ops::take_along_axis" => ops::take_along_axis(&v2(), &ones(&[1, 1], Dtype::Int32), 0), ["[take_along_axis]", "dimension"];
        "ops::take_along_axis" => ev(ops::take_along_axis(&v2(), &float_index(), 0)), ["indices type"];
        "ops::put_along_axis" => ops::put_along_axis(&v2(), &ones(&[1, 1], Dtype::Int32), &v2(), 0), ["[put_along_axis]", "dimension"];

        // Linear algebra.
        "ops::matmul" => ops::matmul(&ones(&[2, 2], Dtype::Int32), &ones(&[2, 2], Dtype::Int32)), ["[matmul]", "inexact"];
        "ops::matmul" => ops::matmul(&Array::scalar(1.0f32), &Array::scalar(1.0f32)), ["[matmul]", "0 dimension"];
        "ops::addmm" => ops::addmm(&v2(), &m23(), &m23(), 1.0, 1.0), ["[addmm]", "(2,3)"];

        // Softmax and scans.
        "ops::softmax_axes" => ops::softmax_axes(&Array::scalar(1.0f32), &[0], false), ["[softmax]", "0 dimensions"];
        "ops::cumsum" => ops::cumsum(&v2(), 1, false, true), ["[cumsum]", "axis 1"];

        // Shapes.
        "ops::reshape" => ops::reshape(&m23(), &[-1, -1]), ["[reshape]", "one dimension"];
        "ops::reshape" => ops::reshape(&v2(), &[65536, 65536]), ["[reshape]", "size 2"];
        "ops::transpose_axes" => ops::transpose_axes(&m23(), &[1]), ["[transpose]"];
        "ops::swapaxes" => ops::swapaxes(&m23(), -3, 0), ["[swapaxes]"];
        "ops::moveaxis" => ops::moveaxis(&v2(), 0, 3), ["[moveaxis]", "axis 3"];
        "ops::expand_dims" => ops::expand_dims(&m23(), &[9]), ["[expand_dims]"];
        "ops::squeeze_axes" => ops::squeeze_axes(&m23(), &[0]), ["[squeeze]"];
        "ops::flatten" => ops::flatten(&m23(), -1, 0), ["[flatten]", "start_axis"];
        "ops::unflatten" => ops::unflatten(&m23(), 1, &[4, -1]), ["[unflatten]", "size 3"];
        // Ours: MLX divides by the 0 (SIGFPE).
        "ops::unflatten" => ops::unflatten(&m23(), 1, &[0, -1]), ["invalid argument", "[unflatten]", "beside a 0"];
        "ops::broadcast_to" => ops::broadcast_to(&m23(), &[3, 3]), ["broadcast"];
        "ops::slice" => ops::slice(&m23(), &[0], &[1, 1], &[1, 1]), ["[slice]", "invalid number"];
        // Ours: MLX divides by a zero stride (SIGFPE).
        "ops::slice" => ops::slice(&m23(), &[0, 0], &[2, 3], &[1, 0]), ["invalid argument", "[slice]", "stride 0 on axis 1"];
        "ops::slice_update" => ops::slice_update(&m23(), &v2(), &[0], &[1], &[1]), ["[slice_update]", "invalid number"];
        "ops::slice_update" => ops::slice_update(&v2(), &v2(), &[0], &[2], &[0]), ["invalid argument", "[slice_update]", "stride 0 on axis 0"];
        "ops::concatenate" => ops::concatenate::<Array>(&[], 0), ["[concatenate]", "no arrays"];
        "ops::concatenate" => ops::concatenate(&[m23(), v2()], 0), ["[concatenate]"];
        "ops::stack" => ops::stack(&[v2(), v3()], 0), ["[stack]", "same shape"];
        "ops::split" => ops::split(&m23(), 4, 1), ["split", "equal size"];
        "ops::split" => ops::split(&m23(), 0, 0), ["[split]", "positive"];
        "ops::split_at" => ops::split_at(&v2(), &[1], 3), ["[split]", "axis 3"];

        // Fused ops.
        "fast::rms_norm" => fast::rms_norm(&ones(&[2, 4], Dtype::Int32), None, 1e-5), ["[rms_norm]", "int32"];
        "fast::rms_norm" => fast::rms_norm(&Array::scalar(1.0f32), None, 1e-5), ["[rms_norm]", "0 dimensions"];
        "fast::layer_norm" => fast::layer_norm(&ones(&[2, 4], Dtype::Float32), None, Some(&v3()), 1e-5), ["[layer_norm]", "bias", "3 elements"];
        "fast::rope" => fast::rope(&ones(&[1, 1, 4, 8], Dtype::Float32), 7, false, Some(1e4), 1.0, 0, None), ["[rope]", "even"];
        "fast::rope" => fast::rope(&ones(&[1, 1, 4, 8], Dtype::Int32), 8, false, Some(1e4), 1.0, 0, None), ["[rope]", "floating"];
        "fast::rope" => fast::rope(&ones(&[8], Dtype::Float32), 8, false, Some(1e4), 1.0, 0, None), ["[rope]", "3 dimensions"];
        "fast::rope" => fast::rope(&ones(&[1, 1, 4, 8], Dtype::Float32), 8, false, None, 1.0, 0, None), ["[rope]", "neither base nor freqs"];
        "fast::rope_with_offsets" => fast::rope_with_offsets(&ones(&[1, 1, 4, 8], Dtype::Float32), 8, false, Some(1e4), 1.0, &Array::scalar(1.5f32), None), ["[rope]", "offset must be an integer"];
        "fast::scaled_dot_product_attention" => fast::scaled_dot_product_attention(&m23(), &m23(), &m23(), 1.0, AttentionMask::None, None), ["[scaled_dot_product_attention]", "rank 4"];
        "fast::scaled_dot_product_attention" => {
            let q = ones(&[1, 2, 2, 8], Dtype::Float32);
            fast::scaled_dot_product_attention(&q, &q, &q, 1.0, AttentionMask::Causal, Some(&ones(&[5], Dtype::Float32)))
        }, ["[scaled_dot_product_attention]", "sinks"];

        // Quantization.
        "quantized::quantize" => quantized::quantize(&ones(&[4, 64], Dtype::Int32), QuantParams::default()), ["[quantize]", "real floating"];
        "quantized::quantize" => quantized::quantize(&ones(&[4, 192], Dtype::Float32), affine(48, 4)), ["[quantize]", "group size 48"];
        "quantized::quantize" => quantized::quantize(&ones(&[4, 64], Dtype::Float32), affine(64, 7)), ["[quantize]", "bits 7"];
        "quantized::quantize" => quantized::quantize(&ones(&[64], Dtype::Float32), QuantParams::default()), ["[quantize]", "at least 2"];
        "quantized::quantize" => {
            let mx = QuantParams { group_size: Some(64), bits: None, mode: QuantMode::Mxfp4 };
            quantized::quantize(&ones(&[4, 64], Dtype::Float32), mx)
        }, ["[quantize]", "mxfp4", "group size 32"];
        // Ours: MLX divides by a group size of 0 (SIGFPE).
        "quantized::quantize" => quantized::quantize(&ones(&[4, 64], Dtype::Float32), affine(0, 4)), ["invalid argument", "group size 0"];
        "quantized::quantize" => quantized::quantize(&ones(&[4, 64], Dtype::Float32), affine(64, -2)), ["invalid argument", "bits -2"];
        "quantized::dequantize" => {
            let q = q4();
            quantized::dequantize(&ones(&[4, 8], Dtype::Float32), &q.scales, q.biases.as_ref(), affine(64, 4), None)
        }, ["[dequantize]", "uint32"];
        "quantized::dequantize" => {
            let q = q4();
            quantized::dequantize(&q.weights, &q.scales, None, affine(64, 4), None)
        }, ["[dequantize]", "biases"];
        "quantized::dequantize" => {
            let q = q4();
            quantized::dequantize(&q.weights, &q.scales, q.biases.as_ref(), affine(64, 4), Some(Dtype::Int32))
        }, ["[dequantize]", "int32"];
        "quantized::quantized_matmul" => {
            let q = q4();
            quantized::quantized_matmul(&ones(&[2, 64], Dtype::Float32), &q.weights, &q.scales, q.biases.as_ref(), true, affine(64, 8))
        }, ["[quantized_matmul]", "bits=8"];
        "quantized::quantized_matmul" => {
            let q = q4();
            quantized::quantized_matmul(&ones(&[2, 32], Dtype::Float32), &q.weights, &q.scales, q.biases.as_ref(), true, affine(64, 4))
        }, ["[quantized_matmul]"];
        "quantized::gather_qmm" => {
            let q = q4();
            let x = ones(&[2, 1, 64], Dtype::Float32);
            quantized::gather_qmm(&x, &q.weights, &q.scales, q.biases.as_ref(), None, Some(&float_index()), true, affine(64, 4), true)
        }, ["[gather_qmm]", "integral"];
        "quantized::gather_mm" => quantized::gather_mm(&m23(), &ones(&[3, 2], Dtype::Float32), Some(&float_index()), None, false), ["[gather_mm]", "integral"];

        // Random.
        "random::split" => random::split(&v3(), 2), ["key"];
        "random::split" => random::split(&random::key(1)?, -1), ["negative dimensions"];
        "random::uniform" => random::uniform(0.0, 1.0, &[3], Dtype::Int32, None), ["[uniform]"];
        "random::uniform" => random::uniform(0.0, 1.0, &[2], Dtype::Float32, Some(&bools())), ["key type uint32", "bool"];
        "random::normal" => random::normal(&[2, 2], Dtype::Int32, 0.0, 1.0, None), ["[normal]"];
        "random::randint" => random::randint(0, 10, &[3], Dtype::Float32, None), ["[randint]"];
        "random::bernoulli" => random::bernoulli(&Array::scalar(1i32), &[3], None), ["[bernoulli]", "float"];
        "random::bernoulli" => random::bernoulli(&v2(), &[3], None), ["broadcast"];
        "random::categorical" => random::categorical(&v2(), 3, None), ["[categorical]", "axis 3"];
        "random::categorical_n" => random::categorical_n(&m23(), -1, -2, None), ["invalid argument", "negative"];
        "random::categorical_n" => random::categorical_n(&m23(), 5, 2, None), ["[categorical]", "axis 5"];

        // Files.
        "io::load_safetensors" => mlx::io::load_safetensors(path("missing.safetensors")), ["[load_safetensors]", "failed to open"];
        "io::load_safetensors" => {
            let p = path("garbage.safetensors");
            std::fs::write(&p, b"not a safetensors file").unwrap();
            mlx::io::load_safetensors(p)
        }, ["[load_safetensors]"];
        "io::save_safetensors" => mlx::io::save_safetensors(path("f64.safetensors"), [("x", &Array::scalar(1.0f64))], []), ["[save_safetensors]", "dtype"];
        "io::save_safetensors" => mlx::io::save_safetensors(path("no/such/dir.safetensors"), [("x", &m23())], []), ["[save_safetensors]", "failed to open"];

        // Exported functions.
        "export::export_function" => mlx::export::export_function(path("no/such/dir.mlxfn"), double, &[v2()], false), ["[export_function]", "failed to open"];
        "export::export_function" => mlx::export::export_function(path("failing.mlxfn"), |_: &[Array]| ops::reshape(&m23(), &[4]).map(|a| vec![a]), &[v2()], false), ["[reshape]"];
        "export::import_function" => mlx::export::import_function(path("missing.mlxfn")), ["[import_function]", "failed to open"];
        "ImportedFunction::call" => {
            let p = path("double.mlxfn");
            mlx::export::export_function(&p, double, &[v2()], false).unwrap();
            mlx::export::import_function(&p).unwrap().call(&[v3()])
        }, ["[import_function::call]", "no imported function"];

        // Devices and streams: this build has one CPU device and, on Linux CPU, no GPU.
        "Device::set_default" => cpu5().set_default(), ["not available"];
        "Stream::new" => Stream::new(cpu5()), ["not available"];
        "Stream::default_for" => Stream::default_for(cpu5()), ["range", "5"];
        "backend::gpu_device_info" => mlx::backend::gpu_device_info(usize::MAX), ["invalid argument", "out of range"];
    }
}
