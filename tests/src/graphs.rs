//! Seeded random graphs of MLX ops, evaluated to raw bytes.
//!
//! [`evaluate`] builds the same graph for the same seed in any process: its own PRNG and
//! host-made inputs (NaN, ±inf, -0, subnormals, empty and 1-sized dimensions, f32/f16/bf16),
//! ops spread over two streams of one device ([`device`]: the CPU unless asked otherwise),
//! non-contiguous views, multi-output ops, wide fan-in and fan-out, `gather_mm` without lhs
//! indices (repeated shapes hit the eval-walk patch's identity-index cache), and a seed-chosen
//! mix of partial `eval` / `async_eval` calls while the graph grows. It returns every output's
//! dtype, shape and bytes.
//!
//! A build with the eval-walk patch and a stock build must agree bit for bit: the patch changes
//! how MLX walks the graph and where identity indices come from, not what is computed.
//! [`encode`] / [`decode`] carry the outputs between processes as text.

use crate::rng::Rng;
use mlx::{ops, quantized, stream, Array, Device, Dtype, Result, Stream};

/// One evaluated output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    pub dtype: Dtype,
    pub shape: Vec<i32>,
    /// Row-major elements in native byte order (bool: one byte, 0 or 1).
    pub bytes: Vec<u8>,
}

/// Largest array a graph keeps (elements).
const MAX_ELEMENTS: usize = 4096;

const FLOATS: [Dtype; 3] = [Dtype::Float32, Dtype::Float16, Dtype::Bfloat16];

/// A float: one in nine is an edge case (more would turn most results into NaN).
fn value(rng: &mut Rng) -> f32 {
    match rng.index(64) {
        0 => f32::NAN,
        1 => f32::INFINITY,
        2 => f32::NEG_INFINITY,
        3 => -0.0,
        4 => 0.0,
        5 => f32::MIN_POSITIVE / 4.0, // subnormal in f32
        6 => 1.0e30,
        _ => (rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32 * 8.0 - 4.0,
    }
}

fn leaf(rng: &mut Rng, shape: &[i32], dtype: Dtype) -> Result<Array> {
    let n: i32 = shape.iter().product();
    let values: Vec<f32> = (0..n).map(|_| value(rng)).collect();
    match dtype {
        Dtype::Float16 => {
            let v: Vec<half::f16> = values.iter().map(|&x| half::f16::from_f32(x)).collect();
            Array::from_slice(&v, shape)
        }
        Dtype::Bfloat16 => {
            let v: Vec<half::bf16> = values.iter().map(|&x| half::bf16::from_f32(x)).collect();
            Array::from_slice(&v, shape)
        }
        _ => Array::from_slice(&values, shape),
    }
}

/// The shapes a graph's arrays take: broadcast-compatible variants of one [rows, cols].
fn shapes(rows: i32, cols: i32) -> Vec<Vec<i32>> {
    vec![
        vec![rows, cols],
        vec![1, cols],
        vec![rows, 1],
        vec![1, 1],
        vec![cols],
        vec![],
        vec![cols, rows],
    ]
}

/// What the graph of a seed contains, to check that a set of seeds covers the cases.
#[derive(Debug, Default, Clone)]
pub struct Stats {
    /// Ops added to the graph.
    pub ops: usize,
    /// Streams the ops are spread over (1 or 2).
    pub streams: usize,
    /// gather_mm calls without lhs indices.
    pub gathers: usize,
    /// Most inputs of one concatenate.
    pub widest_fan_in: usize,
    /// Ops with more than one output.
    pub multi_output: usize,
    /// eval and async_eval calls on part of the graph while it grows.
    pub partial_evals: usize,
    pub partial_async_evals: usize,
}

struct Builder {
    rng: Rng,
    pool: Vec<Array>,
    streams: Vec<Stream>,
    rows: i32,
    cols: i32,
    stats: Stats,
}

impl Builder {
    fn any(&mut self) -> Array {
        // Half the time a recent array (deep chains), else anything (long edges, fan-out).
        let n = self.pool.len();
        let i =
            if self.rng.chance(2) { self.rng.index(n) } else { n - 1 - self.rng.index(n.min(6)) };
        self.pool[i].clone()
    }

    fn float32(&mut self) -> Result<Array> {
        let a = self.any();
        if a.dtype() == Dtype::Float32 {
            Ok(a)
        } else {
            ops::astype(&a, Dtype::Float32)
        }
    }

    /// One random op on pool arrays; Err when MLX rejects the combination while building
    /// (shapes, axes), which both builds do alike.
    fn step(&mut self) -> Result<Vec<Array>> {
        let (r, c) = (self.rows, self.cols);
        Ok(match self.rng.index(17) {
            0 => {
                let shape = self.rng.pick(&shapes(r, c)).clone();
                let dtype = *self.rng.pick(&FLOATS);
                vec![leaf(&mut self.rng, &shape, dtype)?]
            }
            1 | 2 => {
                let a = self.any();
                let f = *self.rng.pick(&[
                    ops::exp,
                    ops::log,
                    ops::sqrt,
                    ops::tanh,
                    ops::sigmoid,
                    ops::abs,
                    ops::negative,
                    ops::square,
                    ops::floor,
                    ops::sin,
                    ops::erf,
                    ops::reciprocal,
                ]);
                // log and sqrt of |a| mostly, so that not every chain ends in NaN.
                let a = if self.rng.chance(4) { a } else { ops::abs(&a)? };
                vec![f(&a)?]
            }
            3..=5 => {
                let (a, b) = (self.any(), self.any());
                let f = *self.rng.pick(&[
                    ops::add,
                    ops::subtract,
                    ops::multiply,
                    ops::divide,
                    ops::maximum,
                    ops::minimum,
                    ops::logaddexp,
                ]);
                vec![f(&a, &b)?]
            }
            6 => {
                let a = self.any();
                let axis = self.rng.index(2) as i32;
                if a.size() == 0 {
                    // Stock v0.32.4 sometimes loops forever on empty strided half-precision
                    // inputs (reports/upstream/empty-strided-reduce-hang.md; checked by
                    // tests/upstream_bugs.rs), patched or not.
                    return Ok(Vec::new());
                }
                let f = *self.rng.pick(&[
                    ops::sum_axes,
                    ops::max_axes,
                    ops::mean_axes,
                    ops::logsumexp_axes,
                ]);
                vec![f(&a, &[axis], true)?]
            }
            7 => vec![ops::softmax_axes(&self.any(), &[-1], true)?],
            8 => {
                // Fan-in: up to 40 arrays of one shape along an axis, wider than MLX's BFS
                // width limit (20).
                let first = self.any();
                let mut parts = vec![first.clone()];
                let width = if self.rng.chance(4) { 40 } else { 12 };
                for _ in 0..self.rng.index(width) {
                    let b = self.any();
                    parts.push(if b.shape() == first.shape() { b } else { first.clone() });
                }
                let out = ops::concatenate(&parts, self.rng.index(2) as i32)?;
                self.stats.widest_fan_in = self.stats.widest_fan_in.max(parts.len());
                vec![out]
            }
            9 => {
                // Several outputs of one primitive (siblings).
                let a = self.any();
                let parts = ops::split(&a, 1 + self.rng.index(3) as i32, self.rng.index(2) as i32)?;
                self.stats.multi_output += usize::from(parts.len() > 1);
                parts
            }
            10 => vec![ops::astype(&self.any(), *self.rng.pick(&FLOATS))?],
            11 => {
                // Non-contiguous views.
                let a = self.any();
                match self.rng.index(3) {
                    0 => vec![ops::transpose(&a)?],
                    1 => vec![ops::broadcast_to(&a, &[r, c])?],
                    _ => {
                        let shape = a.shape();
                        let stop: Vec<i32> = shape.clone();
                        let start = vec![0; shape.len()];
                        let strides: Vec<i32> =
                            shape.iter().map(|_| 1 + self.rng.index(2) as i32).collect();
                        vec![ops::slice(&a, &start, &stop, &strides)?]
                    }
                }
            }
            12 => {
                let (a, b) = (self.float32()?, self.float32()?);
                vec![ops::matmul(&a, &b)?]
            }
            13 => {
                let (a, b) = (self.any(), self.any());
                vec![ops::where_(&ops::isnan(&a)?, &b, &a)?]
            }
            14 => {
                vec![ops::cumsum(&self.any(), self.rng.index(2) as i32, self.rng.chance(2), true)?]
            }
            15 => vec![ops::copy(&self.any())?],
            _ => vec![self.gather()?],
        })
    }

    /// gather_mm without lhs indices over a few recurring shapes: [b, 1, k] x [e, k, n] picked
    /// by rhs indices, mixed with a pool value so it joins the graph.
    fn gather(&mut self) -> Result<Array> {
        let (b, k, n) = *self.rng.pick(&[(1, 2, 3), (3, 2, 2), (4, 3, 1), (3, 2, 2)]);
        let e = 3;
        let mix = ops::sum(&self.float32()?, false)?;
        let a = ops::add(&leaf(&mut self.rng, &[b, 1, k], Dtype::Float32)?, &mix)?;
        let w = leaf(&mut self.rng, &[e, k, n], Dtype::Float32)?;
        let idx: Vec<u32> = (0..b).map(|_| self.rng.index(e as usize) as u32).collect();
        let idx = Array::from_slice(&idx, &[b])?;
        let y = quantized::gather_mm(&a, &w, None, Some(&idx), false)?;
        self.stats.gathers += 1;
        ops::reshape(&y, &[b, n])
    }
}

/// The device the graphs run on: the CPU, or the GPU when `MLX_TESTS_GRAPH_DEVICE=gpu` (set by
/// scripts/gpu/run, so that the eval walk is compared with stock on GPU streams too).
pub fn device() -> Device {
    match std::env::var("MLX_TESTS_GRAPH_DEVICE").as_deref() {
        Ok("gpu") => Device::gpu(0),
        _ => Device::cpu(),
    }
}

/// A second stream of this thread on [`device`], made once: each MLX stream keeps a thread.
fn second_stream() -> Result<Stream> {
    thread_local! {
        static SECOND: std::cell::OnceCell<Stream> = const { std::cell::OnceCell::new() };
    }
    SECOND.with(|cell| match cell.get() {
        Some(s) => Ok(s.clone()),
        None => {
            let s = Stream::new(device())?;
            Ok(cell.get_or_init(|| s).clone())
        }
    })
}

fn eval_some(b: &mut Builder) -> Result<()> {
    let picked: Vec<Array> = (0..1 + b.rng.index(3)).map(|_| b.any()).collect();
    b.stats.partial_evals += 1;
    if b.rng.chance(2) {
        b.stats.partial_async_evals += 1;
        mlx::async_eval(&picked)
    } else {
        mlx::eval(&picked)
    }
}

/// Builds and evaluates the graph of `seed`; see the module documentation.
pub fn evaluate(seed: u64) -> Result<Vec<Output>> {
    evaluate_with_stats(seed).map(|(outputs, _)| outputs)
}

/// [`evaluate`], also describing the graph.
pub fn evaluate_with_stats(seed: u64) -> Result<(Vec<Output>, Stats)> {
    let mut rng = Rng(seed);
    let rows = *rng.pick(&[0, 1, 2, 3, 4, 5, 6]);
    let cols = *rng.pick(&[1, 2, 3, 4]);
    let mut streams = vec![Stream::default_for(device())?];
    if rng.chance(2) {
        streams.push(second_stream()?);
    }
    let stats = Stats { streams: streams.len(), ..Stats::default() };
    let mut b = Builder { rng, pool: Vec::new(), streams, rows, cols, stats };
    for shape in shapes(rows, cols) {
        let dtype = *b.rng.pick(&FLOATS);
        let a = leaf(&mut b.rng, &shape, dtype)?;
        b.pool.push(a);
    }

    let n_ops = 20 + b.rng.index(200);
    let partial_evals = b.rng.chance(2);
    for _ in 0..n_ops {
        let s = b.streams[b.rng.index(b.streams.len())].clone();
        if let Ok(Ok(arrays)) = stream::with_stream(&s, || b.step()) {
            // Concatenates and matmuls could grow shapes without bound; keep graphs small.
            if !arrays.is_empty() && arrays.iter().all(|a| a.size() <= MAX_ELEMENTS) {
                b.pool.extend(arrays);
                b.stats.ops += 1;
            }
        }
        if partial_evals && b.rng.chance(15) {
            eval_some(&mut b)?;
        }
    }

    let mut outputs: Vec<Array> = b.pool.iter().rev().take(3).cloned().collect();
    for _ in 0..b.rng.index(8) {
        outputs.push(b.any());
    }
    if b.rng.chance(3) {
        mlx::async_eval(&outputs)?;
    }
    mlx::eval(&outputs)?;
    let outputs = outputs.iter().map(output).collect::<Result<_>>()?;
    Ok((outputs, b.stats))
}

/// `a` evaluated, as an [`Output`].
pub fn output(a: &Array) -> Result<Output> {
    Ok(Output { dtype: a.dtype(), shape: a.shape(), bytes: bytes(a)? })
}

/// Native-endian element bytes of `a`.
pub fn bytes(a: &Array) -> Result<Vec<u8>> {
    macro_rules! plain {
        ($t:ty) => {
            a.to_vec::<$t>()?.iter().flat_map(|x| x.to_ne_bytes()).collect()
        };
    }
    Ok(match a.dtype() {
        Dtype::Bool => a.to_vec::<bool>()?.iter().map(|&x| u8::from(x)).collect(),
        Dtype::Uint8 => plain!(u8),
        Dtype::Uint16 => plain!(u16),
        Dtype::Uint32 => plain!(u32),
        Dtype::Uint64 => plain!(u64),
        Dtype::Int8 => plain!(i8),
        Dtype::Int16 => plain!(i16),
        Dtype::Int32 => plain!(i32),
        Dtype::Int64 => plain!(i64),
        Dtype::Float32 => plain!(f32),
        Dtype::Float64 => plain!(f64),
        Dtype::Float16 => {
            a.to_vec::<half::f16>()?.iter().flat_map(|x| x.to_bits().to_ne_bytes()).collect()
        }
        Dtype::Bfloat16 => {
            a.to_vec::<half::bf16>()?.iter().flat_map(|x| x.to_bits().to_ne_bytes()).collect()
        }
        Dtype::Complex64 => a
            .to_vec::<mlx::Complex64>()?
            .iter()
            .flat_map(|z| z.re.to_ne_bytes().into_iter().chain(z.im.to_ne_bytes()))
            .collect(),
    })
}

/// Position of `dtype` in [`Dtype::ALL`] (MLX's order), the dtype's code in [`encode`].
fn dtype_code(dtype: Dtype) -> usize {
    Dtype::ALL.iter().position(|&d| d == dtype).expect("every dtype is in Dtype::ALL")
}

/// One line per output: `dtype-code dims hex-bytes`, dims comma-separated (`-` for a scalar).
pub fn encode(outputs: &[Output]) -> String {
    let mut text = String::new();
    for o in outputs {
        let dims: Vec<String> = o.shape.iter().map(|d| d.to_string()).collect();
        let dims = if dims.is_empty() { "-".to_string() } else { dims.join(",") };
        let hex: String = o.bytes.iter().map(|b| format!("{b:02x}")).collect();
        text.push_str(&format!(
            "{} {} {}\n",
            dtype_code(o.dtype),
            dims,
            if hex.is_empty() { "-" } else { &hex }
        ));
    }
    text
}

/// Inverse of [`encode`]; Err names the line it cannot read.
pub fn decode(text: &str) -> std::result::Result<Vec<Output>, String> {
    text.lines()
        .filter(|l| !l.is_empty())
        .map(|line| {
            let bad = || format!("bad output line: {line:?}");
            let mut parts = line.split(' ');
            let (Some(code), Some(dims), Some(hex), None) =
                (parts.next(), parts.next(), parts.next(), parts.next())
            else {
                return Err(bad());
            };
            let code: usize = code.parse().map_err(|_| bad())?;
            let dtype = *Dtype::ALL.get(code).ok_or_else(bad)?;
            let shape = if dims == "-" {
                Vec::new()
            } else {
                dims.split(',')
                    .map(|d| d.parse().map_err(|_| bad()))
                    .collect::<std::result::Result<_, _>>()?
            };
            let hex = if hex == "-" { "" } else { hex };
            if hex.len() % 2 != 0 {
                return Err(bad());
            }
            let bytes = (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).map_err(|_| bad()))
                .collect::<std::result::Result<_, _>>()?;
            Ok(Output { dtype, shape, bytes })
        })
        .collect()
}
