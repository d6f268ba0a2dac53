//! The graph builder: a pool of live arrays and one random op at a time on them.

use super::Stats;
use crate::rng::Rng;
use mlx::{ops, quantized, Array, Dtype, Result, Stream};

/// Largest array a graph keeps (elements).
pub(super) const MAX_ELEMENTS: usize = 4096;

pub(super) const FLOATS: [Dtype; 3] = [Dtype::Float32, Dtype::Float16, Dtype::Bfloat16];

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

pub(super) fn leaf(rng: &mut Rng, shape: &[i32], dtype: Dtype) -> Result<Array> {
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
pub(super) fn shapes(rows: i32, cols: i32) -> Vec<Vec<i32>> {
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

/// A live array of the graph being built.
pub(super) struct Entry {
    pub array: Array,
    /// The multi-output op it came from, shared with its siblings.
    pub group: Option<usize>,
    /// Ops that read it so far.
    pub uses: usize,
    /// Passed to eval or async_eval while the graph grew.
    pub evaluated: bool,
}

/// How a seed's graph is shaped: most are small; a few are large, where the walk's traversal
/// (its DFS and BFS over thousands of nodes, the degree table growing) is what is tested.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Tens to hundreds of ops, inputs anywhere in the pool.
    #[default]
    Small,
    /// Thousands of ops each mostly reading the previous one: a graph thousands deep.
    Chain,
    /// Thousands of ops reading anywhere, fan-ins hundreds wide.
    Wide,
}

pub(super) struct Builder {
    pub rng: Rng,
    pub pool: Vec<Entry>,
    pub streams: Vec<Stream>,
    pub rows: i32,
    pub cols: i32,
    pub kind: Kind,
    pub stats: Stats,
    /// An array was freed since the last partial eval.
    pub freed_since_eval: bool,
    groups: usize,
}

impl Builder {
    pub fn new(rng: Rng, streams: Vec<Stream>, rows: i32, cols: i32, kind: Kind) -> Builder {
        let stats = Stats { streams: streams.len(), kind, ..Stats::default() };
        Builder {
            rng,
            pool: Vec::new(),
            streams,
            rows,
            cols,
            kind,
            stats,
            freed_since_eval: false,
            groups: 0,
        }
    }

    /// Adds the outputs of one op to the pool (siblings when there are several).
    pub fn push(&mut self, arrays: Vec<Array>) {
        let group = (arrays.len() > 1).then(|| {
            self.groups += 1;
            self.groups
        });
        self.stats.arrays += arrays.len();
        self.pool.extend(arrays.into_iter().map(|array| Entry {
            array,
            group,
            uses: 0,
            evaluated: false,
        }));
    }

    /// Index of a pool array to read.
    pub fn pick_index(&mut self) -> usize {
        let n = self.pool.len();
        let recent = |rng: &mut Rng| n - 1 - rng.index(n.min(6));
        match self.kind {
            // Half the time a recent array (deep chains), else anything (long edges, fan-out).
            Kind::Small | Kind::Wide if self.rng.chance(2) => self.rng.index(n),
            Kind::Small | Kind::Wide => recent(&mut self.rng),
            // Mostly the newest array, so the depth grows with the op count.
            Kind::Chain if self.rng.chance(16) => self.rng.index(n),
            Kind::Chain if self.rng.chance(8) => recent(&mut self.rng),
            Kind::Chain => n - 1,
        }
    }

    pub fn any(&mut self) -> Array {
        let i = self.pick_index();
        self.pool[i].uses += 1;
        self.pool[i].array.clone()
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
    pub fn step(&mut self) -> Result<Vec<Array>> {
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
                // width limit (20); in wide graphs up to 400.
                let first = self.any();
                let mut parts = vec![first.clone()];
                let width = match (self.kind, self.rng.chance(4)) {
                    (Kind::Wide, true) => 400,
                    (_, true) => 40,
                    _ => 12,
                };
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

    /// One op reading every non-empty pool array (through its sum): a fan-in thousands wide.
    pub fn fan_in_all(&mut self) -> Result<Array> {
        let mut parts = Vec::new();
        for e in &mut self.pool {
            // Empty arrays skipped: see step's reductions.
            if e.array.size() > 0 {
                e.uses += 1;
                let total = ops::astype(&ops::sum(&e.array, false)?, Dtype::Float32)?;
                parts.push(ops::reshape(&total, &[1])?);
            }
        }
        self.stats.widest_fan_in = self.stats.widest_fan_in.max(parts.len());
        if parts.is_empty() {
            return ops::zeros(&[0], Dtype::Float32);
        }
        ops::concatenate(&parts, 0)
    }
}
