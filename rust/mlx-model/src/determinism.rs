//! Repeat-and-compare: the same prompt run several times in one process with every tap
//! recorded ([`crate::trace`]), each tap compared bit for bit with the first run, and the first
//! tap in graph order that differs named (its inputs were identical, so the op before it is
//! the nondeterministic one).

use std::fmt;

use mlx::{bf16, f16, ops, Array, Dtype};

use crate::model::Model;
use crate::trace::{capture, scope};
use crate::{Error, Result};

/// A tap evaluated and copied to the host.
#[derive(Debug, Clone, PartialEq)]
pub struct HostTap {
    pub name: String,
    pub dtype: Dtype,
    pub shape: Vec<i32>,
    /// The elements in row-major order, in native byte order (`Array::to_bytes`).
    pub bytes: Vec<u8>,
}

/// Evaluates every tap together with `also` (one `eval`), then copies each tap to the host.
pub fn to_host(taps: &[(String, Array)], also: &[&Array]) -> Result<Vec<HostTap>> {
    let all: Vec<&Array> = taps.iter().map(|(_, a)| a).chain(also.iter().copied()).collect();
    mlx::eval(&all)?;
    taps.iter()
        .map(|(name, a)| {
            Ok(HostTap {
                name: name.clone(),
                dtype: a.dtype(),
                shape: a.shape(),
                bytes: a.to_bytes()?,
            })
        })
        .collect()
}

/// FNV-1a (64 bits) of `bytes`.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// The element (real, imaginary) values of little-endian bytes of `dtype`, as f64.
fn element(dtype: Dtype, e: &[u8]) -> (f64, f64) {
    let u = |n: usize| e[..n].iter().rev().fold(0u64, |v, &b| (v << 8) | u64::from(b));
    let f32_at = |i: usize| f64::from(f32::from_le_bytes(e[i..i + 4].try_into().expect("4 bytes")));
    let re = match dtype {
        Dtype::Bool | Dtype::Uint8 | Dtype::Uint16 | Dtype::Uint32 | Dtype::Uint64 => {
            u(dtype.size()) as f64
        }
        Dtype::Int8 => f64::from(e[0] as i8),
        Dtype::Int16 => f64::from(u(2) as u16 as i16),
        Dtype::Int32 => f64::from(u(4) as u32 as i32),
        Dtype::Int64 => u(8) as i64 as f64,
        Dtype::Float16 => f16::from_bits(u(2) as u16).to_f64(),
        Dtype::Bfloat16 => bf16::from_bits(u(2) as u16).to_f64(),
        Dtype::Float32 | Dtype::Complex64 => f32_at(0),
        Dtype::Float64 => f64::from_bits(u(8)),
    };
    (re, if dtype == Dtype::Complex64 { f32_at(4) } else { 0.0 })
}

/// One tap over all repeats: its first repeat's digest and how the others differ from it.
#[derive(Debug, Clone, PartialEq)]
pub struct TapSummary {
    pub name: String,
    pub dtype: Dtype,
    pub shape: Vec<i32>,
    /// FNV-1a of the first repeat's bytes (compare processes by diffing these).
    pub digest: u64,
    /// Repeats after the first whose bytes are not those of the first.
    pub repeats_differing: usize,
    /// Elements whose bits differ, in the repeat with the most of them.
    pub worst_differing_elements: usize,
    /// The largest |difference| of a differing element over all repeats: NaN when a NaN differs
    /// (its payload, or NaN against a number), infinite when the shapes or dtypes differ.
    pub max_abs_diff: f64,
}

impl TapSummary {
    fn elements(&self) -> usize {
        self.shape.iter().map(|&d| d.max(0) as usize).product()
    }
}

impl fmt::Display for TapSummary {
    /// `name dtype shape differ R elements E/N max_abs D fnv1a H`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shape: Vec<String> = self.shape.iter().map(i32::to_string).collect();
        write!(
            f,
            "{} {} [{}] differ {} elements {}/{} max_abs {:e} fnv1a {:016x}",
            self.name,
            self.dtype,
            shape.join(","),
            self.repeats_differing,
            self.worst_differing_elements,
            self.elements(),
            self.max_abs_diff,
            self.digest
        )
    }
}

/// Every tap of a first run, and how each later run compared with it.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// Runs compared so far, the first included.
    pub repeats: usize,
    /// In graph order.
    pub taps: Vec<TapSummary>,
}

impl Comparison {
    /// Starts from the first run's taps.
    pub fn new(first: &[HostTap]) -> Comparison {
        let taps = first
            .iter()
            .map(|t| TapSummary {
                name: t.name.clone(),
                dtype: t.dtype,
                shape: t.shape.clone(),
                digest: fnv1a(&t.bytes),
                repeats_differing: 0,
                worst_differing_elements: 0,
                max_abs_diff: 0.0,
            })
            .collect();
        Comparison { repeats: 1, taps }
    }

    /// Compares a later run, bit for bit, with the first run (`first`, the taps [`Self::new`]
    /// was given). Errors if the runs did not record the same taps in the same order.
    pub fn add(&mut self, first: &[HostTap], run: &[HostTap]) -> Result<()> {
        if first.len() != self.taps.len() || run.len() != first.len() {
            return Err(Error::InvalidArgument(format!(
                "a repeat recorded {} taps, the first {}",
                run.len(),
                first.len()
            )));
        }
        for ((summary, a), b) in self.taps.iter_mut().zip(first).zip(run) {
            if a.name != b.name {
                return Err(Error::InvalidArgument(format!(
                    "a repeat recorded tap {:?} where the first recorded {:?}",
                    b.name, a.name
                )));
            }
            if a.bytes == b.bytes && a.dtype == b.dtype && a.shape == b.shape {
                continue;
            }
            summary.repeats_differing += 1;
            let (count, max) = if a.dtype != b.dtype || a.shape != b.shape {
                (summary.elements(), f64::INFINITY)
            } else {
                differences(a.dtype, &a.bytes, &b.bytes)
            };
            summary.worst_differing_elements = summary.worst_differing_elements.max(count);
            summary.max_abs_diff = nan_max(summary.max_abs_diff, max);
        }
        self.repeats += 1;
        Ok(())
    }

    /// The first tap, in graph order, that differs in some repeat.
    pub fn first_difference(&self) -> Option<&TapSummary> {
        self.taps.iter().find(|t| t.repeats_differing > 0)
    }

    /// One line: the first differing tap and the op before it, or that every tap is identical.
    pub fn summary(&self) -> String {
        let Some(i) = self.taps.iter().position(|t| t.repeats_differing > 0) else {
            return format!(
                "all {} taps bit-identical over {} repeats",
                self.taps.len(),
                self.repeats
            );
        };
        let t = &self.taps[i];
        let after = match i {
            0 => "the start of the pass".to_string(),
            _ => format!("tap {} (identical in every repeat)", self.taps[i - 1].name),
        };
        format!(
            "first difference: tap {} ({} of {} repeats differ from the first, up to {}/{} \
             elements, max |diff| {:e}): the ops between {after} and it are nondeterministic",
            t.name,
            t.repeats_differing,
            self.repeats - 1,
            t.worst_differing_elements,
            t.elements(),
            t.max_abs_diff
        )
    }
}

/// The maximum, NaN winning.
fn nan_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}

/// How many elements differ bitwise, and the largest |difference| among them.
fn differences(dtype: Dtype, a: &[u8], b: &[u8]) -> (usize, f64) {
    let size = dtype.size();
    let (mut count, mut max) = (0, 0.0);
    for (x, y) in a.chunks_exact(size).zip(b.chunks_exact(size)) {
        if x == y {
            continue;
        }
        count += 1;
        let ((xr, xi), (yr, yi)) = (element(dtype, x), element(dtype, y));
        max = nan_max(max, nan_max((xr - yr).abs(), (xi - yi).abs()));
    }
    (count, max)
}

/// Runs the prompt (in chunks of `prefill_chunk`, then `decode_steps` single tokens) through the
/// model from an empty cache with every tap recorded; evaluates each pass's taps together with
/// its cache (one `eval` per pass) and returns them, named `prefillN.` / `decodeN.` + the tap.
///
/// Each decode step feeds `decode_tokens[step]`, or, where the list ends, appends and feeds the
/// argmax of the previous pass's last logits: a first run fills the list, later runs replay it,
/// so every run sees the same inputs.
pub fn record(
    model: &Model,
    prompt: &[u32],
    prefill_chunk: usize,
    decode_steps: usize,
    decode_tokens: &mut Vec<u32>,
) -> Result<Vec<HostTap>> {
    if prompt.is_empty() {
        return Err(Error::InvalidArgument("the prompt is empty".into()));
    }
    if prefill_chunk == 0 {
        return Err(Error::InvalidArgument("prefill_chunk must be positive".into()));
    }
    let mut cache = model.new_cache();
    let mut all = Vec::new();
    let mut pass = |name: fmt::Arguments<'_>, tokens: &[u32]| -> Result<u32> {
        let (logits, taps) = capture(|| {
            let _scope = scope(name);
            model.forward(tokens, &mut cache)
        });
        let logits = logits?;
        let s = logits.shape();
        let last = ops::slice(&logits, &[0, s[1] - 1, 0], &s, &[1, 1, 1])?;
        let next = ops::argmax_axis(&last.reshape(&[-1])?, 0, false)?;
        let state: Vec<&Array> = cache.layers.iter().flat_map(|l| l.state()).collect();
        all.extend(to_host(&taps, &[&[&next][..], &state].concat())?);
        drop(taps);
        mlx::memory::clear_cache();
        Ok(next.item::<u32>()?)
    };
    let mut next = 0;
    for (i, chunk) in prompt.chunks(prefill_chunk).enumerate() {
        next = pass(format_args!("prefill{i}"), chunk)?;
    }
    for step in 0..decode_steps {
        if decode_tokens.len() <= step {
            decode_tokens.push(next);
        }
        next = pass(format_args!("decode{step}"), &[decode_tokens[step]])?;
    }
    Ok(all)
}

/// Records `repeats` runs of the same prompt in this process ([`record`]) and compares every
/// tap of runs 2.. with run 1, bit for bit.
pub fn run(
    model: &Model,
    prompt: &[u32],
    repeats: usize,
    prefill_chunk: usize,
    decode_steps: usize,
) -> Result<Comparison> {
    if repeats < 2 {
        return Err(Error::InvalidArgument("repeats must be at least 2".into()));
    }
    let mut tokens = Vec::new();
    let first = record(model, prompt, prefill_chunk, decode_steps, &mut tokens)?;
    let mut comparison = Comparison::new(&first);
    for _ in 1..repeats {
        let run = record(model, prompt, prefill_chunk, decode_steps, &mut tokens)?;
        comparison.add(&first, &run)?;
    }
    Ok(comparison)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(name: &str, dtype: Dtype, bytes: Vec<u8>) -> HostTap {
        let n = (bytes.len() / dtype.size()) as i32;
        HostTap { name: name.into(), dtype, shape: vec![n], bytes }
    }

    fn f32s(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    fn run() -> Vec<HostTap> {
        vec![
            host("prefill0.embed", Dtype::Float32, f32s(&[1.0, 2.0, 3.0])),
            host("prefill0.layer0.attn.q_proj", Dtype::Bfloat16, vec![0x80, 0x3f, 0x00, 0x40]),
            host("prefill0.layer0.moe.inds", Dtype::Uint32, vec![1, 0, 0, 0, 2, 0, 0, 0]),
            host("prefill0.logits", Dtype::Float32, f32s(&[0.5, f32::NAN])),
        ]
    }

    #[test]
    fn identical_runs_report_no_difference() {
        let first = run();
        let mut c = Comparison::new(&first);
        c.add(&first, &run()).unwrap();
        c.add(&first, &run()).unwrap();
        assert_eq!(c.repeats, 3);
        assert_eq!(c.first_difference(), None);
        assert_eq!(c.summary(), "all 4 taps bit-identical over 3 repeats");
        assert!(c.taps.iter().all(|t| t.max_abs_diff == 0.0 && t.worst_differing_elements == 0));
        assert_eq!(c.taps[0].digest, fnv1a(&first[0].bytes));
    }

    #[test]
    fn one_flipped_bit_is_found_and_named_first() {
        let first = run();
        let mut c = Comparison::new(&first);
        c.add(&first, &run()).unwrap();
        let mut flipped = run();
        flipped[1].bytes[0] ^= 1; // bf16 1.0 -> 1.0078125
        flipped[3].bytes[0] ^= 1; // a later tap differs too: the first one is named
        c.add(&first, &flipped).unwrap();
        let t = c.first_difference().unwrap();
        assert_eq!(t.name, "prefill0.layer0.attn.q_proj");
        assert_eq!((t.repeats_differing, t.worst_differing_elements), (1, 1));
        assert_eq!(t.max_abs_diff, 0.0078125);
        assert_eq!(c.taps[0].repeats_differing, 0);
        assert_eq!(c.taps[2].repeats_differing, 0);
        let s = c.summary();
        assert!(s.starts_with("first difference: tap prefill0.layer0.attn.q_proj (1 of 2"), "{s}");
        assert!(s.contains("between tap prefill0.embed (identical"), "{s}");
        let line = c.taps[1].to_string();
        assert!(
            line.starts_with("prefill0.layer0.attn.q_proj bfloat16 [2] differ 1 elements 1/2"),
            "{line}"
        );
    }

    #[test]
    fn nan_payloads_differ_bitwise() {
        let first = run();
        let mut c = Comparison::new(&first);
        let mut other = run();
        let payload = f32::from_bits(f32::NAN.to_bits() | 1);
        other[3].bytes = f32s(&[0.5, payload]);
        c.add(&first, &other).unwrap();
        let t = c.first_difference().unwrap();
        assert_eq!((t.name.as_str(), t.worst_differing_elements), ("prefill0.logits", 1));
        assert!(t.max_abs_diff.is_nan());
    }

    #[test]
    fn a_first_tap_or_shape_change_is_named_and_mismatched_runs_are_errors() {
        let first = run();
        let mut c = Comparison::new(&first);
        let mut other = run();
        other[0].bytes = f32s(&[1.0, 2.0]);
        other[0].shape = vec![2];
        c.add(&first, &other).unwrap();
        assert_eq!(c.taps[0].max_abs_diff, f64::INFINITY);
        assert!(c.summary().contains("between the start of the pass and it"), "{}", c.summary());
        let mut renamed = run();
        renamed[2].name = "prefill0.layer0.moe.scores".into();
        assert!(c.add(&first, &renamed).is_err());
        assert!(c.add(&first, &run()[..3]).is_err());
    }

    #[test]
    fn element_values_decode_every_dtype() {
        assert_eq!(element(Dtype::Int16, &(-3i16).to_le_bytes()), (-3.0, 0.0));
        assert_eq!(element(Dtype::Uint64, &7u64.to_le_bytes()), (7.0, 0.0));
        assert_eq!(element(Dtype::Float16, &f16::from_f32(1.5).to_le_bytes()), (1.5, 0.0));
        assert_eq!(element(Dtype::Float64, &2.25f64.to_le_bytes()), (2.25, 0.0));
        assert_eq!(element(Dtype::Complex64, &f32s(&[1.0, -2.0])), (1.0, -2.0));
        assert_eq!(differences(Dtype::Int8, &[1, 2], &[1, 0xff]), (1, 3.0));
    }
}
