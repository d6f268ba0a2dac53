//! `op-bench`: one arm's worker for cross-build op benchmarks (`mlx-ab ops` starts one per
//! arm, each against its own libmlx, and interleaves their requests). Inputs come from MLX's
//! keyed generator, so every arm computes on the same bits; each reply carries a digest of the
//! output bits, so the driver checks the arms agree bit for bit at every point it times.
//!
//! Requests and replies: `mlx_ab_protocol::ops` (JSON lines: `OpRequest` on stdin, `OpReply`
//! on stdout), which also documents each op. Inputs are of the dtype the op names (bf16 for a
//! quantized product that names none); quantized weights are made once per (mode, projection,
//! shape, dense, dtype).

use mlx::fast::{scaled_dot_product_attention, AttentionMask};
use mlx::ops::take;
use mlx::quantized::{
    dequantize, gather_qmm, quantize, quantized_matmul, QuantMode, QuantParams, Quantized,
};
use mlx::stream::Device;
use mlx::{memory, random, Array, Dtype, Result};
use mlx_ab_protocol::ops::{self, Attention, Op, OpReply, OpRequest, Timing};
use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::time::Instant;

const HEAD_DIM: i32 = 128;

fn params(mode: &str) -> std::result::Result<QuantParams, String> {
    let (mode, group_size, bits) = match mode {
        "affine4" => (QuantMode::Affine, 64, 4),
        "mxfp4" => (QuantMode::Mxfp4, 32, 4),
        "nvfp4" => (QuantMode::Nvfp4, 16, 4),
        "mxfp8" => (QuantMode::Mxfp8, 32, 8),
        _ => return Err(format!("unknown mode {mode:?} (affine4, mxfp4, nvfp4, mxfp8)")),
    };
    Ok(QuantParams { group_size: Some(group_size), bits: Some(bits), mode })
}

fn normal(shape: &[i32], dtype: Dtype, scale: f32, seed: u64) -> Result<Array> {
    random::normal(shape, dtype, 0.0, scale, Some(&random::key(seed)?))
}

/// FNV-1a over the output's f32 bits (every float dtype widens to f32 exactly).
fn digest(a: &Array) -> Result<u64> {
    let values = a.astype(Dtype::Float32)?.to_vec::<f32>()?;
    Ok(values
        .iter()
        .flat_map(|v| v.to_bits().to_le_bytes())
        .fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)))
}

/// Evaluates `make()` `reps` times; median seconds per call (all of it, and until `async_eval`
/// returned: the host's part), peak memory, digest of one output, and that output. One wait, as
/// a program evaluating its outputs has: `eval` waits for the outputs' streams (another wait
/// would add a round trip through MLX's completion thread to every timing).
fn time(calls: u64, reps: u64, make: impl Fn() -> Result<Array>) -> Result<(Timing, Array)> {
    let mut seconds = Vec::with_capacity(reps as usize);
    let mut host_seconds = Vec::with_capacity(reps as usize);
    let mut first = None;
    memory::reset_peak_memory();
    for _ in 0..reps.max(1) {
        let outputs = (0..calls.max(1)).map(|_| make()).collect::<Result<Vec<_>>>()?;
        let per_call = |start: Instant| start.elapsed().as_secs_f64() / outputs.len() as f64;
        let start = Instant::now();
        mlx::async_eval(&outputs)?;
        host_seconds.push(per_call(start));
        mlx::eval(&outputs)?;
        seconds.push(per_call(start));
        first.get_or_insert_with(|| outputs[0].clone());
    }
    let median = |v: &[f64]| mlx_model::median(v).expect("at least one rep, all finite");
    let first = first.expect("at least one rep");
    let timing = Timing {
        seconds_per_call: median(&seconds),
        peak_bytes: memory::peak_memory() as u64,
        digest: format!("{:016x}", digest(&first)?),
        reference_error: None,
        host_seconds_per_call: Some(median(&host_seconds)),
    };
    Ok((timing, first))
}

fn timed(result: Result<(Timing, Array)>) -> std::result::Result<OpReply, String> {
    result.map(|(timing, _)| OpReply::Timed(timing)).map_err(err)
}

/// Runs `f` with the CPU as the default device, then restores the default.
fn on_cpu<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
    let previous = Device::default_device();
    Device::cpu().set_default()?;
    let result = f();
    previous.set_default()?;
    result
}

/// ||y - r|| / ||r|| over up to 16 rows of `y` spread evenly, r the float32 product of the same
/// rows of `x` with the dequantized weights (of each row's expert, `rhs`, for a gather), on the
/// CPU.
fn reference_error(
    y: &Array,
    x: &Array,
    q: &Quantized,
    p: QuantParams,
    rhs: Option<&Array>,
) -> Result<f64> {
    let rows = x.shape()[0];
    let picked = rows.min(16);
    let sample: Vec<u32> =
        (0..picked).map(|i| (i64::from(i) * i64::from(rows) / i64::from(picked)) as u32).collect();
    let sample = Array::from_slice(&sample, &[picked])?;
    on_cpu(|| {
        let rows_of = |a: &Array| take(a, &sample, 0);
        let experts = rhs.map(rows_of).transpose()?;
        let weights_of = |a: &Array| match &experts {
            Some(e) => take(a, e, 0),
            None => Ok(a.clone()),
        };
        let biases = q.biases.as_ref().map(weights_of).transpose()?;
        let w = dequantize(
            &weights_of(&q.weights)?,
            &weights_of(&q.scales)?,
            biases.as_ref(),
            p,
            Some(Dtype::Float32),
        )?;
        let r = rows_of(x)?.astype(Dtype::Float32)?.matmul(&w.swapaxes(-1, -2)?)?;
        let y = rows_of(y)?.astype(Dtype::Float32)?;
        let (r, y) = (r.to_vec::<f32>()?, y.to_vec::<f32>()?);
        let (mut diff, mut norm) = (0.0f64, 0.0f64);
        for (r, y) in r.iter().zip(&y) {
            diff += (f64::from(*y) - f64::from(*r)).powi(2);
            norm += f64::from(*r).powi(2);
        }
        Ok((diff / norm).sqrt())
    })
}

/// Quantized weights, made once per (mode, projection, shape, dense, dtype): every expert's for
/// gather_qmm, one expert's for qmm.
type Weights = HashMap<(String, String, [u64; 3], bool, String), (Quantized, QuantParams, i32)>;

/// What a worker keeps between requests: the quantized weights, and each quantized output's
/// distance from float32 arithmetic (by op and output digest: the same bits of the same op lie
/// at the same distance, so each is computed once, not at every timed request).
#[derive(Default)]
struct Cache {
    weights: Weights,
    distances: HashMap<String, f64>,
}

/// `gather_qmm` (`dense` false) or `qmm` (true): the same rows, sorted by expert for the gather.
fn quantized_case(
    cache: &mut Cache,
    op: &ops::Quantized,
    dense: bool,
    calls: u64,
    reps: u64,
) -> std::result::Result<OpReply, String> {
    let [experts, hidden, width] = op.shape.map(|v| v as i32);
    let (n, k) = match op.proj.as_str() {
        "up" => (width, hidden),
        "down" => (hidden, width),
        proj => return Err(format!("unknown projection {proj:?} (up, down)")),
    };
    let dtype = dtype(&op.dtype)?;
    let key = (op.mode.clone(), op.proj.clone(), op.shape, dense, op.dtype.clone());
    if !cache.weights.contains_key(&key) {
        let p = params(&op.mode)?;
        let w = if dense { vec![n, k] } else { vec![experts, n, k] };
        // Quantized from the activations' dtype, as a model of that dtype is (affine scales and
        // biases keep it).
        let w = normal(&w, dtype, 0.05, 11).map_err(err)?;
        let q = quantize(&w, p).map_err(err)?;
        let mut parts = vec![&q.weights, &q.scales];
        parts.extend(q.biases.as_ref());
        mlx::eval(&parts).map_err(err)?;
        cache.weights.insert(key.clone(), (q, p, k));
    }
    let (q, p, k) = &cache.weights[&key];
    let m = experts * op.rows_per_expert as i32;
    let (x, rhs) = if dense {
        (normal(&[m, *k], dtype, 1.0, 12).map_err(err)?, None)
    } else {
        let experts = op.routing.sorted_experts(experts as usize, op.rows_per_expert as usize);
        let rhs = Array::from_slice(&experts, &[m]).map_err(err)?;
        (normal(&[m, 1, *k], dtype, 1.0, 12).map_err(err)?, Some(rhs))
    };
    let mut inputs = vec![&x];
    inputs.extend(rhs.as_ref());
    mlx::eval(&inputs).map_err(err)?;
    let make = || match &rhs {
        None => quantized_matmul(&x, &q.weights, &q.scales, q.biases.as_ref(), true, *p),
        Some(rhs) => gather_qmm(
            &x,
            &q.weights,
            &q.scales,
            q.biases.as_ref(),
            None,
            Some(rhs),
            true,
            *p,
            true,
        ),
    };
    let (mut timing, y) = time(calls, reps, make).map_err(err)?;
    let distance_key = format!("{dense} {op:?} {}", timing.digest);
    let distance = match cache.distances.get(&distance_key) {
        Some(&d) => d,
        None => {
            let d = reference_error(&y, &x, q, *p, rhs.as_ref()).map_err(err)?;
            cache.distances.insert(distance_key, d);
            d
        }
    };
    timing.reference_error = Some(distance);
    Ok(OpReply::Timed(timing))
}

/// An op's dtype word (`mlx_ab_protocol::ops::DTYPES`).
fn dtype(word: &str) -> std::result::Result<Dtype, String> {
    match word {
        "float32" => Ok(Dtype::Float32),
        "float16" => Ok(Dtype::Float16),
        "bfloat16" => Ok(Dtype::Bfloat16),
        other => Err(format!("unknown dtype {other:?} (float32, float16, bfloat16)")),
    }
}

/// finfo(dtype).min, what the stock chain writes at masked keys.
#[cfg(not(feature = "fused-causal-softmax"))]
fn finfo_min(dtype: Dtype) -> f64 {
    match dtype {
        Dtype::Float16 => -65504.0,
        Dtype::Bfloat16 => -3.389_531_389_251_535_5e38,
        _ => f32::MIN as f64,
    }
}

/// The causal softmax stage as stock MLX's SDPA fallback runs it.
#[cfg(not(feature = "fused-causal-softmax"))]
fn causal_softmax(x: &Array) -> Result<Array> {
    use mlx::ops;
    let shape = x.shape();
    let (q_len, kv_len) = (shape[shape.len() - 2], shape[shape.len() - 1]);
    let offset = (kv_len - q_len) as f64;
    let q_idx = ops::arange(offset, q_len as f64 + offset, 1.0, Dtype::Int32)?.expand_dims(&[1])?;
    let k_idx = ops::arange(0.0, kv_len as f64, 1.0, Dtype::Int32)?.expand_dims(&[0])?;
    let mask = ops::greater_equal(&q_idx, &k_idx)?;
    let fill = Array::scalar_as(finfo_min(x.dtype()), x.dtype())?;
    ops::where_(&mask, x, &fill)?.softmax_axes(&[-1], true)
}

/// The patch's fused kernel in place of that chain (same bits).
#[cfg(feature = "fused-causal-softmax")]
fn causal_softmax(x: &Array) -> Result<Array> {
    use mlx_ext::fused_causal_softmax::ffi;
    Ok(Array::from_raw(ffi::causal_softmax(x.as_raw(), true)?).expect("non-null on success"))
}

fn softmax_case(a: &Attention, calls: u64, reps: u64) -> std::result::Result<OpReply, String> {
    let shape = [1, a.heads as i32, a.q_len as i32, a.kv_len as i32];
    let scores = normal(&shape, dtype(&a.dtype)?, 3.0, 24).map_err(err)?;
    mlx::eval(&[&scores]).map_err(err)?;
    timed(time(calls, reps, || causal_softmax(&scores)))
}

fn sdpa_case(a: &Attention, calls: u64, reps: u64) -> std::result::Result<OpReply, String> {
    let dtype = dtype(&a.dtype)?;
    let (heads, q_len, kv_len) = (a.heads as i32, a.q_len as i32, a.kv_len as i32);
    let q = normal(&[1, heads, q_len, HEAD_DIM], dtype, 1.0, 21).map_err(err)?;
    let k = normal(&[1, heads, kv_len, HEAD_DIM], dtype, 1.0, 22).map_err(err)?;
    let v = normal(&[1, heads, kv_len, HEAD_DIM], dtype, 1.0, 23).map_err(err)?;
    mlx::eval(&[&q, &k, &v]).map_err(err)?;
    let scale = 1.0 / (HEAD_DIM as f32).sqrt();
    let make = || scaled_dot_product_attention(&q, &k, &v, scale, AttentionMask::Causal, None);
    timed(time(calls, reps, make))
}

/// The reply to a request that mlx-ext's C++ benchmarks timed.
fn timing_reply(
    timing: std::result::Result<
        mlx_ext::ffi::bench_graphs::ffi::BenchTiming,
        impl std::fmt::Display,
    >,
) -> std::result::Result<OpReply, String> {
    let t = timing.map_err(|e| e.to_string().replace('\n', " "))?;
    let output = Array::from_raw(t.output).map_err(err)?;
    Ok(OpReply::Timed(Timing {
        seconds_per_call: t.seconds,
        peak_bytes: t.peak_bytes,
        digest: format!("{:016x}", digest(&output).map_err(err)?),
        reference_error: None,
        // Timed in C++ around a synchronous eval: no host part.
        host_seconds_per_call: None,
    }))
}

fn graph_case(graph: &str, nodes: u64, reps: u64) -> std::result::Result<OpReply, String> {
    let (nodes, reps) = (count(nodes)?, count(reps)?);
    // SAFETY: op-bench is single-threaded: nothing else uses MLX during the call.
    timing_reply(unsafe { mlx_ext::ffi::bench_graphs::ffi::eval_graph_bench(graph, nodes, reps) })
}

fn sdpa_grad_case(
    mask: &str,
    [heads, len, head_dim, reps]: [u64; 4],
) -> std::result::Result<OpReply, String> {
    let array_mask = match mask {
        "causal" => false,
        "array" => true,
        _ => return Err(format!("unknown mask {mask:?} (causal, array)")),
    };
    let [heads, len, head_dim, reps] = [count(heads)?, count(len)?, count(head_dim)?, count(reps)?];
    // SAFETY: as in graph_case.
    timing_reply(unsafe {
        mlx_ext::ffi::bench_graphs::ffi::causal_sdpa_train_step_bench(
            heads, len, head_dim, reps, array_mask,
        )
    })
}

/// A count that fits C++'s 32-bit parameters.
fn count(v: u64) -> std::result::Result<u32, String> {
    v.try_into().map_err(|_| format!("{v} is too large"))
}

fn err(e: mlx::Error) -> String {
    e.to_string().replace('\n', " ")
}

fn reply(
    cache: &mut Cache,
    op: &Op,
    calls: u64,
    reps: u64,
) -> std::result::Result<OpReply, String> {
    match op {
        Op::GatherQmm(q) => quantized_case(cache, q, false, calls, reps),
        Op::Qmm(q) => quantized_case(cache, q, true, calls, reps),
        Op::Sdpa(a) => sdpa_case(a, calls, reps),
        Op::Softmax(a) => softmax_case(a, calls, reps),
        Op::Graph { graph, nodes } => graph_case(graph, *nodes, reps),
        Op::SdpaGrad { mask, heads, len, head_dim } => {
            sdpa_grad_case(mask, [*heads, *len, *head_dim, reps])
        }
    }
}

fn main() {
    let mut out = std::io::stdout().lock();
    let mut send = |reply: &OpReply| {
        let line = serde_json::to_string(reply).expect("replies serialize");
        // A closed pipe means the driver is gone.
        writeln!(out, "{line}").and_then(|()| out.flush()).is_ok()
    };
    if let Err(e) = mlx::backend::check_loaded_build() {
        send(&OpReply::Error { message: err(e) });
        std::process::exit(2);
    }
    let mut cache = Cache::default();
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        if line.trim().is_empty() {
            continue;
        }
        let answer = match serde_json::from_str::<OpRequest>(&line) {
            Ok(OpRequest::Quit) => break,
            Ok(OpRequest::Time { op, calls, reps }) => reply(&mut cache, &op, calls, reps),
            Err(e) => Err(format!("not a request ({e}): {line}")),
        };
        if !send(&answer.unwrap_or_else(|message| OpReply::Error { message })) {
            break;
        }
    }
}
