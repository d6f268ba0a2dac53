//! `op-bench`: one arm's worker for cross-build op benchmarks (`mlx-ab ops` starts one per
//! arm, each against its own libmlx, and interleaves their requests). Inputs come from MLX's
//! keyed generator, so every arm computes on the same bits; each reply carries a digest of the
//! output bits, so the driver checks the arms agree bit for bit at every point it times.
//!
//! Requests, one per line on stdin (replies, one line each on stdout):
//!   gather_qmm MODE PROJ ROWS_PER_EXPERT [EXPERTS HIDDEN WIDTH [ROUTING]] CALLS REPS
//!       sorted-rhs gather_qmm, by default with Qwen3-30B-A3B expert shapes (128 experts,
//!       hidden 2048, expert width 768): PROJ `up` is HIDDEN -> WIDTH, `down` WIDTH -> HIDDEN;
//!       MODE `affine4` (g64), `mxfp4`, `nvfp4`, `mxfp8`; bf16 activations;
//!       EXPERTS * ROWS_PER_EXPERT rows, spread over the experts as ROUTING says
//!       (`uniform`, the default, `zipf` or `hot`: mlx_ab_protocol::routing).
//!   qmm MODE PROJ ROWS_PER_EXPERT [EXPERTS HIDDEN WIDTH] CALLS REPS
//!       dense quantized_matmul of the same EXPERTS * ROWS_PER_EXPERT rows with one expert's
//!       weights: the same flops as that gather_qmm (upstream issue #4339's equal-flop
//!       comparison), so its rate is what MLX reaches on these shapes without the gather.
//!   sdpa DTYPE HEADS Q_LEN KV_LEN CALLS REPS
//!       causal scaled_dot_product_attention, head dim 128, on `float32` / `float16` / `bfloat16`.
//!   softmax DTYPE HEADS Q_LEN KV_LEN CALLS REPS
//!       the causal softmax stage of that attention's fallback on held scores: stock MLX's
//!       greater_equal / where / softmax chain, or with the fused-causal-softmax patch its kernel.
//!   graph SHAPE NODES CALLS REPS
//!       the cost per node of building and evaluating a graph on the CPU (`chain`, `fanin`,
//!       `multiout`, `streams` of NODES scalar nodes, or `decode`: NODES decode-shaped layers),
//!       the path the eval-walk patch changes; CALLS is ignored (one graph per timing).
//!   sdpa_grad MASK HEADS LEN HEAD_DIM CALLS REPS
//!       one causal-attention training step on the CPU (float32, loss = sum(sdpa^2), gradients
//!       of q, k and v): MASK `causal` (the mode string: the fused-causal-softmax patch's
//!       backward) or `array` (the same mask as a bool array: stock's chain in any build);
//!       CALLS is ignored.
//!   quit
//! Each timed request evaluates CALLS independent calls as one graph, REPS times; the reply is
//! `ok SECONDS_PER_CALL PEAK_BYTES DIGEST` (median over the reps) or `error MESSAGE`.

use mlx::fast::{scaled_dot_product_attention, AttentionMask};
use mlx::quantized::{gather_qmm, quantize, quantized_matmul, QuantMode, QuantParams, Quantized};
use mlx::{memory, random, Array, Dtype, Result};
use mlx_ab_protocol::routing::Routing;
use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::time::Instant;

/// Qwen3-30B-A3B's experts: count, hidden size, expert width.
const QWEN3_30B_A3B_EXPERTS: [usize; 3] = [128, 2048, 768];
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

/// Evaluates `make()` `reps` times; median seconds per call, peak memory, digest of one output.
fn time(calls: usize, reps: usize, make: impl Fn() -> Result<Array>) -> Result<String> {
    let mut seconds = Vec::with_capacity(reps);
    let mut first = None;
    memory::reset_peak_memory();
    for _ in 0..reps.max(1) {
        let outputs = (0..calls.max(1)).map(|_| make()).collect::<Result<Vec<_>>>()?;
        let start = Instant::now();
        mlx::eval(&outputs)?;
        mlx::stream::synchronize()?;
        seconds.push(start.elapsed().as_secs_f64() / outputs.len() as f64);
        first.get_or_insert_with(|| outputs[0].clone());
    }
    let median = mlx_model::median(&seconds).expect("at least one rep, all finite");
    let digest = digest(first.as_ref().expect("at least one rep"))?;
    Ok(format!("ok {median:.9e} {} {digest:016x}", memory::peak_memory()))
}

/// Quantized weights, made once per (mode, projection, shape, dense): every expert's for
/// gather_qmm, one expert's for qmm.
type Weights = HashMap<(String, String, [usize; 3], bool), (Quantized, QuantParams, i32)>;

/// `gather_qmm` (`dense` false) or `qmm` (true): the same rows, sorted by expert for the gather.
fn quantized_case(
    weights: &mut Weights,
    args: &[&str],
    dense: bool,
) -> std::result::Result<String, String> {
    let usage = "gather_qmm and qmm want MODE PROJ ROWS_PER_EXPERT [EXPERTS HIDDEN WIDTH \
                 [ROUTING]] CALLS REPS (qmm: no ROUTING)";
    let (mode, proj, rows, shape, routing, calls, reps) = match args {
        [mode, proj, rows, calls, reps] => {
            (mode, proj, rows, QWEN3_30B_A3B_EXPERTS, Routing::Uniform, calls, reps)
        }
        [mode, proj, rows, experts, hidden, width, rest @ ..] => {
            let shape = [number(experts)?, number(hidden)?, number(width)?];
            match rest {
                [calls, reps] => (mode, proj, rows, shape, Routing::Uniform, calls, reps),
                [routing, calls, reps] if !dense => {
                    (mode, proj, rows, shape, Routing::parse(routing)?, calls, reps)
                }
                _ => return Err(usage.into()),
            }
        }
        _ => return Err(usage.into()),
    };
    let (rows, calls, reps) = (number(rows)?, number(calls)?, number(reps)?);
    let [experts, hidden, width] = shape.map(|v| v as i32);
    let (n, k) = match *proj {
        "up" => (width, hidden),
        "down" => (hidden, width),
        _ => return Err(format!("unknown projection {proj:?} (up, down)")),
    };
    let key = (mode.to_string(), proj.to_string(), shape, dense);
    if !weights.contains_key(&key) {
        let p = params(mode)?;
        let w = if dense { vec![n, k] } else { vec![experts, n, k] };
        let w = normal(&w, Dtype::Bfloat16, 0.05, 11).map_err(err)?;
        let q = quantize(&w, p).map_err(err)?;
        let mut parts = vec![&q.weights, &q.scales];
        parts.extend(q.biases.as_ref());
        mlx::eval(&parts).map_err(err)?;
        weights.insert(key.clone(), (q, p, k));
    }
    let (q, p, k) = &weights[&key];
    let m = experts * rows as i32;
    if dense {
        let x = normal(&[m, *k], Dtype::Bfloat16, 1.0, 12).map_err(err)?;
        mlx::eval(&[&x]).map_err(err)?;
        let make = || quantized_matmul(&x, &q.weights, &q.scales, q.biases.as_ref(), true, *p);
        return time(calls, reps, make).map_err(err);
    }
    let x = normal(&[m, 1, *k], Dtype::Bfloat16, 1.0, 12).map_err(err)?;
    let experts = routing.sorted_experts(experts as usize, rows);
    let rhs = Array::from_slice(&experts, &[m]).map_err(err)?;
    mlx::eval(&[&x, &rhs]).map_err(err)?;
    let make = || {
        gather_qmm(&x, &q.weights, &q.scales, q.biases.as_ref(), None, Some(&rhs), true, *p, true)
    };
    time(calls, reps, make).map_err(err)
}

/// An attention request's DTYPE HEADS Q_LEN KV_LEN CALLS REPS.
struct AttentionArgs {
    dtype: Dtype,
    heads: i32,
    q_len: i32,
    kv_len: i32,
    calls: usize,
    reps: usize,
}

fn attention_args(what: &str, args: &[&str]) -> std::result::Result<AttentionArgs, String> {
    let [dtype, heads, q_len, kv_len, calls, reps] = args else {
        return Err(format!("{what} wants DTYPE HEADS Q_LEN KV_LEN CALLS REPS"));
    };
    let dtype = match *dtype {
        "float32" => Dtype::Float32,
        "float16" => Dtype::Float16,
        "bfloat16" => Dtype::Bfloat16,
        _ => return Err(format!("unknown dtype {dtype:?} (float32, float16, bfloat16)")),
    };
    let [heads, q_len, kv_len] =
        [number(heads)?, number(q_len)?, number(kv_len)?].map(|v| v as i32);
    Ok(AttentionArgs { dtype, heads, q_len, kv_len, calls: number(calls)?, reps: number(reps)? })
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

fn softmax_case(args: &[&str]) -> std::result::Result<String, String> {
    let a = attention_args("softmax", args)?;
    let scores = normal(&[1, a.heads, a.q_len, a.kv_len], a.dtype, 3.0, 24).map_err(err)?;
    mlx::eval(&[&scores]).map_err(err)?;
    time(a.calls, a.reps, || causal_softmax(&scores)).map_err(err)
}

fn sdpa_case(args: &[&str]) -> std::result::Result<String, String> {
    let AttentionArgs { dtype, heads, q_len, kv_len, calls, reps } = attention_args("sdpa", args)?;
    let q = normal(&[1, heads, q_len, HEAD_DIM], dtype, 1.0, 21).map_err(err)?;
    let k = normal(&[1, heads, kv_len, HEAD_DIM], dtype, 1.0, 22).map_err(err)?;
    let v = normal(&[1, heads, kv_len, HEAD_DIM], dtype, 1.0, 23).map_err(err)?;
    mlx::eval(&[&q, &k, &v]).map_err(err)?;
    let scale = 1.0 / (HEAD_DIM as f32).sqrt();
    let make = || scaled_dot_product_attention(&q, &k, &v, scale, AttentionMask::Causal, None);
    time(calls, reps, make).map_err(err)
}

/// The reply to a request that mlx-ext's C++ benchmarks timed.
fn timing_reply(
    timing: std::result::Result<
        mlx_ext::ffi::bench_graphs::ffi::BenchTiming,
        impl std::fmt::Display,
    >,
) -> std::result::Result<String, String> {
    let t = timing.map_err(|e| e.to_string().replace('\n', " "))?;
    let output = Array::from_raw(t.output).map_err(err)?;
    Ok(format!("ok {:.9e} {} {:016x}", t.seconds, t.peak_bytes, digest(&output).map_err(err)?))
}

fn graph_case(args: &[&str]) -> std::result::Result<String, String> {
    let [shape, nodes, _calls, reps] = args else {
        return Err("graph wants SHAPE NODES CALLS REPS".into());
    };
    let (nodes, reps) = (count(nodes)?, count(reps)?);
    // SAFETY: op-bench is single-threaded: nothing else uses MLX during the call.
    timing_reply(unsafe { mlx_ext::ffi::bench_graphs::ffi::eval_graph_bench(shape, nodes, reps) })
}

fn sdpa_grad_case(args: &[&str]) -> std::result::Result<String, String> {
    let [mask, heads, len, head_dim, _calls, reps] = args else {
        return Err("sdpa_grad wants MASK HEADS LEN HEAD_DIM CALLS REPS".into());
    };
    let array_mask = match *mask {
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

/// A positive count that fits C++'s 32-bit parameters.
fn count(s: &str) -> std::result::Result<u32, String> {
    number(s)?.try_into().map_err(|_| format!("{s} is too large"))
}

fn number(s: &str) -> std::result::Result<usize, String> {
    s.parse::<usize>()
        .ok()
        .filter(|&v| v > 0)
        .ok_or_else(|| format!("not a positive integer: {s:?}"))
}

fn err(e: mlx::Error) -> String {
    e.to_string().replace('\n', " ")
}

fn main() {
    let mut out = std::io::stdout().lock();
    if let Err(e) = mlx::backend::check_loaded_build() {
        let _ = writeln!(out, "error {}", err(e));
        std::process::exit(2);
    }
    let mut weights = Weights::new();
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        let words: Vec<&str> = line.split_whitespace().collect();
        let reply = match words.split_first() {
            None => continue,
            Some((&"quit", _)) => break,
            Some((&"gather_qmm", args)) => quantized_case(&mut weights, args, false),
            Some((&"qmm", args)) => quantized_case(&mut weights, args, true),
            Some((&"sdpa", args)) => sdpa_case(args),
            Some((&"softmax", args)) => softmax_case(args),
            Some((&"graph", args)) => graph_case(args),
            Some((&"sdpa_grad", args)) => sdpa_grad_case(args),
            Some((what, _)) => Err(format!("unknown request {what:?}")),
        };
        let line = reply.unwrap_or_else(|e| format!("error {e}"));
        // A closed pipe means the driver is gone.
        if writeln!(out, "{line}").and_then(|()| out.flush()).is_err() {
            break;
        }
    }
}
