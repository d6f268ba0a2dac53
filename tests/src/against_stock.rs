//! Cases evaluated here against the same cases evaluated by a stock build of MLX in another
//! process (`graph-eval`, tests/src/bin/graph-eval.rs, built with `--no-default-features`), and
//! the bitwise comparison of outputs that every differential test uses.

use crate::graphs::{self, Output};
use mlx::Dtype;
use std::collections::HashMap;
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// How NaNs compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Nans {
    /// Every bit, NaN sign and payload included.
    Exact,
    /// NaN in the same places, of any sign and payload; every other bit compared. For
    /// operations whose NaN payload is not a function of the inputs (the operand order of a
    /// commutative operation on two NaNs, which the compiler picks).
    AnyPayload,
}

/// A lane's width in bytes and a NaN test on its bits.
type Lanes = (usize, fn(u64) -> bool);

/// The lanes of `dtype` (complex64: two f32 lanes per element); None for dtypes without NaNs.
fn nan_lanes(dtype: Dtype) -> Option<Lanes> {
    use Dtype::*;
    match dtype {
        Float16 => Some((2, |x| x & 0x7fff > 0x7c00)),
        Bfloat16 => Some((2, |x| x & 0x7fff > 0x7f80)),
        Float32 | Complex64 => Some((4, |x| x & 0x7fff_ffff > 0x7f80_0000)),
        Float64 => Some((8, |x| x & 0x7fff_ffff_ffff_ffff > 0x7ff0_0000_0000_0000)),
        _ => None,
    }
}

/// The first element (in `dtype`'s elements) where the native-order bytes `a` and `b` differ
/// under `nans`, or where one of them ends.
pub fn first_differing_element(dtype: Dtype, a: &[u8], b: &[u8], nans: Nans) -> Option<usize> {
    let lanes = match (nans, nan_lanes(dtype)) {
        (Nans::AnyPayload, Some(lanes)) => Some(lanes),
        _ => None,
    };
    let at_byte = match lanes {
        None => a.iter().zip(b).position(|(x, y)| x != y),
        Some((width, is_nan)) => {
            let lane = |bytes: &[u8]| match width {
                2 => u16::from_ne_bytes(bytes.try_into().unwrap()) as u64,
                4 => u32::from_ne_bytes(bytes.try_into().unwrap()) as u64,
                _ => u64::from_ne_bytes(bytes.try_into().unwrap()),
            };
            a.chunks(width)
                .zip(b.chunks(width))
                .position(|(x, y)| {
                    let (x, y) = (lane(x), lane(y));
                    x != y && !(is_nan(x) && is_nan(y))
                })
                .map(|i| i * width)
        }
    };
    let at_byte = at_byte.or((a.len() != b.len()).then(|| a.len().min(b.len())))?;
    Some(at_byte / dtype.size())
}

/// Flips one bit of `output` that `nans` compares (under AnyPayload a NaN's payload is not
/// compared: flipping it would test nothing); false if it has none (empty, or all NaN).
pub fn flip_a_compared_bit(output: &mut Output, nans: Nans) -> bool {
    let size = output.dtype.size();
    for at in (0..output.bytes.len()).step_by(size) {
        let element = &output.bytes[at..at + size];
        let mut flipped = element.to_vec();
        flipped[0] ^= 1;
        if first_differing_element(output.dtype, element, &flipped, nans).is_some() {
            output.bytes[at] ^= 1;
            return true;
        }
    }
    false
}

/// Where two output lists first differ, in words; None if they agree under `nans`.
pub fn first_difference(ours: &[Output], stock: &[Output], nans: Nans) -> Option<String> {
    if ours.len() != stock.len() {
        return Some(format!("{} outputs here, {} in stock", ours.len(), stock.len()));
    }
    for (i, (a, b)) in ours.iter().zip(stock).enumerate() {
        if (a.dtype, &a.shape) != (b.dtype, &b.shape) {
            return Some(format!(
                "output {i}: {:?} {:?} here, {:?} {:?} in stock",
                a.dtype, a.shape, b.dtype, b.shape
            ));
        }
        if let Some(element) = first_differing_element(a.dtype, &a.bytes, &b.bytes, nans) {
            // The element's bytes on each side, so a failure tells NaN, zero or a last bit apart.
            let width = a.dtype.size();
            let bits = |bytes: &[u8]| -> String {
                let e = bytes.get(element * width..(element + 1) * width).unwrap_or_default();
                e.iter().rev().map(|b| format!("{b:02x}")).collect()
            };
            return Some(format!(
                "output {i} ({:?} {:?}): element {element} differs (0x{} here, 0x{} in stock)",
                a.dtype,
                a.shape,
                bits(&a.bytes),
                bits(&b.bytes)
            ));
        }
    }
    None
}

/// The stock helper `helper` evaluating `seeds` (of `suite`: `moe`, or None for graphs),
/// started now so that it runs beside this process.
fn spawn(helper: &Path, suite: Option<&str>, seeds: &[u64]) -> Child {
    let mut command = Command::new(helper);
    // MLX's CUDA backend caches run-time compiled kernels by module name, and a patch can change
    // a kernel's source under the same name: stock must never load what the patched build
    // compiled, so the helper keeps its own cache beside this process's.
    if let Some(cache) = std::env::var_os("MLX_PTX_CACHE_DIR") {
        command.env("MLX_PTX_CACHE_DIR", Path::new(&cache).join("stock-helper"));
    }
    command
        .args(suite)
        .args(seeds.iter().map(u64::to_string))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("running the stock helper {}: {e}", helper.display()))
}

type Outcomes = HashMap<u64, Result<Vec<Output>, String>>;

/// Outcome of each seed as the stock helper evaluated it; Err if it reports patches.
fn stock_outcomes(child: Child) -> Result<Outcomes, String> {
    let out = child.wait_with_output().expect("running the stock helper");
    assert!(
        out.status.success(),
        "the stock helper failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("graph-eval prints text");
    let mut lines = text.split_inclusive('\n');
    let patches =
        lines.next().and_then(|l| l.strip_prefix("patches ")).expect("patches line").trim_end();
    if !patches.is_empty() {
        return Err(format!("the stock helper reports patches {patches:?}"));
    }
    let mut outcomes = HashMap::new();
    let mut current: Option<(u64, String)> = None;
    let finish = |current: Option<(u64, String)>, outcomes: &mut Outcomes| {
        if let Some((seed, body)) = current {
            outcomes.insert(seed, graphs::decode(&body));
        }
    };
    for line in lines {
        if let Some(rest) = line.trim_end().strip_prefix("seed ") {
            finish(current.take(), &mut outcomes);
            let (seed, error) =
                rest.split_once(" error ").map_or((rest, None), |(s, e)| (s, Some(e)));
            let seed: u64 = seed.parse().expect("seed number");
            match error {
                Some(e) => {
                    outcomes.insert(seed, Err(e.to_string()));
                }
                None => current = Some((seed, String::new())),
            }
        } else if let Some((_, body)) = current.as_mut() {
            body.push_str(line);
        }
    }
    finish(current, &mut outcomes);
    Ok(outcomes)
}

/// One differential suite: which cases the stock helper evaluates, how NaNs compare, and how a
/// seed is named and replayed in a failure.
pub struct Suite<'a> {
    pub helper: &'a Path,
    /// graph-eval's suite word (`moe`), or None for its graphs.
    pub word: Option<&'a str>,
    pub nans: Nans,
    /// What the seed's case is, e.g. "Wide graph".
    pub describe: fn(u64) -> String,
    /// How to rerun the seed alone.
    pub replay: fn(u64) -> String,
    /// Cases where stock may fault by a known defect of its own.
    pub stock_fault: Option<StockFault>,
}

/// CUDA's message for a load or store outside any allocation.
pub const CUDA_FAULT: &str = "an illegal memory access was encountered";

/// A known stock defect that reads past a buffer: whether it faults depends on what lies past
/// the buffer, so a fault is no verdict on the case. Where stock faults with [`CUDA_FAULT`] on a
/// case the defect reaches, the case's outputs must equal `reference`'s, another path computed
/// here; and as a CUDA fault is sticky, a new stock helper answers for the seeds left.
pub struct StockFault {
    /// The write-up of the defect (reports/upstream/...).
    pub report: &'static str,
    /// Whether the defect reaches the seed's case.
    pub reaches: fn(u64) -> bool,
    /// The outputs the case must give instead of stock's.
    pub reference: fn(u64) -> mlx::Result<Vec<Output>>,
}

/// How a suite's seeds agreed with stock.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Agreement {
    /// Refused by both with the same error.
    pub refused: usize,
    /// Faulted in stock by its [`StockFault`], and equal to the reference here.
    pub stock_faulted: usize,
}

impl std::ops::AddAssign for Agreement {
    fn add_assign(&mut self, other: Agreement) {
        self.refused += other.refused;
        self.stock_faulted += other.stock_faulted;
    }
}

impl Suite<'_> {
    /// Evaluates `seeds` with `ours` here while the stock helper evaluates them; Err names the
    /// first seed whose outcomes differ (outputs, or MLX's error message: refusing a case the
    /// same way agrees) and how to replay it.
    pub fn check(
        &self,
        seeds: &[u64],
        ours: impl FnMut(u64) -> mlx::Result<Vec<Output>>,
    ) -> Result<Agreement, String> {
        let stock = spawn(self.helper, self.word, seeds);
        // Its output is read as it comes: left in the pipe, a full pipe would stop the helper
        // until this process's cases are done, and the two would compile their run-time
        // kernels one after the other instead of side by side.
        let stock = std::thread::spawn(move || stock_outcomes(stock));
        let ours: Vec<_> = seeds.iter().copied().map(ours).collect();
        let mut stock = stock.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
        let mut agreement = Agreement::default();
        for (i, (&seed, ours)) in seeds.iter().zip(ours).enumerate() {
            let fail = |what: String| {
                Err(format!(
                    "seed {seed} ({}): {what}; {}",
                    (self.describe)(seed),
                    (self.replay)(seed)
                ))
            };
            let ours = ours.map_err(|e| e.to_string().replace('\n', " "));
            match (ours, &stock[&seed]) {
                (Ok(ours), Ok(theirs)) => {
                    if let Some(what) = first_difference(&ours, theirs, self.nans) {
                        return fail(what);
                    }
                }
                (Err(e), Err(theirs)) if &e == theirs => agreement.refused += 1,
                (Err(e), Ok(_)) => return fail(format!("failed here ({e}), not in stock")),
                (Ok(ours), Err(theirs)) => {
                    let Some(fault) = self
                        .stock_fault
                        .as_ref()
                        .filter(|f| theirs.contains(CUDA_FAULT) && (f.reaches)(seed))
                    else {
                        return fail(format!("failed in stock ({theirs}), not here"));
                    };
                    let differs = match (fault.reference)(seed) {
                        Err(e) => Some(format!("its reference failed ({e})")),
                        Ok(reference) => first_difference(&ours, &reference, self.nans)
                            .map(|what| format!("against its reference: {what}")),
                    };
                    if let Some(what) = differs {
                        return fail(format!("stock faulted ({theirs}; {}); {what}", fault.report));
                    }
                    agreement.stock_faulted += 1;
                    let left = &seeds[i + 1..];
                    if !left.is_empty() {
                        stock.extend(stock_outcomes(spawn(self.helper, self.word, left))?);
                    }
                }
                (Err(e), Err(theirs)) => {
                    return fail(format!("failed here ({e}) and in stock ({theirs})"))
                }
            }
        }
        Ok(agreement)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32_bytes(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_ne_bytes()).collect()
    }

    fn u16_bytes(v: &[u16]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_ne_bytes()).collect()
    }

    /// [`first_differing_element`] of 16-bit lanes under AnyPayload.
    fn any16(dtype: Dtype, a: &[u16], b: &[u16]) -> Option<usize> {
        first_differing_element(dtype, &u16_bytes(a), &u16_bytes(b), Nans::AnyPayload)
    }

    /// AnyPayload passes NaNs of any sign and payload in the same places and fails on one
    /// differing bit, a NaN elsewhere, or a NaN against a number (inf, -0 included); Exact
    /// fails on a differing payload too.
    #[test]
    fn nans_compare_by_position_or_exactly() {
        let nan = f32::NAN;
        let other_nan = f32::from_bits(0xffc0_0001);
        let a = f32_bytes(&[1.0, nan, -0.0, f32::INFINITY]);
        let any = |b: &[f32]| {
            first_differing_element(Dtype::Float32, &a, &f32_bytes(b), Nans::AnyPayload)
        };
        assert_eq!(any(&[1.0, other_nan, -0.0, f32::INFINITY]), None);
        assert_eq!(any(&[f32::from_bits(1.0f32.to_bits() ^ 1), nan, -0.0, f32::INFINITY]), Some(0));
        assert_eq!(any(&[1.0, nan, 0.0, f32::INFINITY]), Some(2));
        assert_eq!(any(&[nan, 1.0, -0.0, f32::INFINITY]), Some(0));
        assert_eq!(any(&[1.0, f32::INFINITY, -0.0, f32::INFINITY]), Some(1));
        assert_eq!(any(&[1.0, nan, -0.0, nan]), Some(3));
        assert_eq!(any(&[1.0, nan, -0.0]), Some(3), "a shorter output differs where it ends");
        let exact =
            |b: &[f32]| first_differing_element(Dtype::Float32, &a, &f32_bytes(b), Nans::Exact);
        assert_eq!(exact(&[1.0, nan, -0.0, f32::INFINITY]), None);
        assert_eq!(exact(&[1.0, other_nan, -0.0, f32::INFINITY]), Some(1));
        // 16-bit: 0x7c00 (f16) and 0x7f80 (bf16) are inf, anything above them, of either sign, NaN.
        let h = [0x3c00, 0x7e00, 0x7c00];
        let f16 = |b: &[u16]| any16(Dtype::Float16, &h, b);
        assert_eq!(f16(&[0x3c00, 0xfc01, 0x7c00]), None);
        assert_eq!(f16(&[0x3c00, 0x7e00, 0xfc00]), Some(2));
        assert_eq!(f16(&[0x3c01, 0x7e00, 0x7c00]), Some(0));
        let bf16 = |x: &[u16]| any16(Dtype::Bfloat16, &[0x3f80, 0x7fc0, 0x7f80], x);
        assert_eq!(bf16(&[0x3f80, 0xff81, 0x7f80]), None);
        assert_eq!(bf16(&[0x3f80, 0x7fc0, 0x7f81]), Some(2));
        assert_eq!(bf16(&[0x3f80, 0x7f80, 0x7f80]), Some(1));
        // Integers have no NaNs: every bit counts whatever the rule.
        assert_eq!(any16(Dtype::Uint16, &h, &[0x3c00, 0xfc01, 0x7c00]), Some(1));
    }

    /// A stock helper that faults on every seed: a fault its StockFault reaches is checked
    /// against the reference and a new helper answers for the seeds left; one it does not
    /// reach, or a reference that differs, fails naming the seed.
    #[test]
    fn a_stock_fault_is_checked_against_the_reference() {
        let dir = std::env::temp_dir().join(format!("stock-fault-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let helper = dir.join("helper");
        std::fs::write(
            &helper,
            format!(
                "#!/bin/sh\necho \"$*\" >> \"$0.calls\"\necho 'patches '\nshift\nfor s in \"$@\"; do \
                 echo \"seed $s error cudaStreamSynchronize(stream_) failed: {CUDA_FAULT}\"; done\n"
            ),
        )
        .unwrap();
        std::fs::set_permissions(&helper, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        fn one(v: f32) -> Vec<Output> {
            vec![Output { dtype: Dtype::Float32, shape: vec![1], bytes: f32_bytes(&[v]) }]
        }
        let suite =
            |reaches: fn(u64) -> bool, reference: fn(u64) -> mlx::Result<Vec<Output>>| Suite {
                helper: &helper,
                word: Some("moe"),
                nans: Nans::Exact,
                describe: |_| "a case".into(),
                replay: |_| "replay".into(),
                stock_fault: Some(StockFault { report: "the report", reaches, reference }),
            };
        let ours = |seed: u64| Ok(one(seed as f32));
        let agreement = suite(|_| true, |seed| Ok(one(seed as f32))).check(&[1, 2, 3], ours);
        assert_eq!(agreement, Ok(Agreement { refused: 0, stock_faulted: 3 }));
        let calls = std::fs::read_to_string(dir.join("helper.calls")).unwrap();
        assert_eq!(calls, "moe 1 2 3\nmoe 2 3\nmoe 3\n");
        let differs = suite(|_| true, |seed| Ok(one(seed as f32 + 1.0))).check(&[1, 2], ours);
        let error = differs.unwrap_err();
        assert!(
            error.starts_with("seed 1 (a case): stock faulted (") && error.contains("the report"),
            "{error}"
        );
        assert!(error.contains("against its reference: output 0"), "{error}");
        let unreached = suite(|seed| seed != 2, |seed| Ok(one(seed as f32))).check(&[1, 2], ours);
        assert!(unreached.unwrap_err().starts_with("seed 2 (a case): failed in stock ("));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The flipped bit is one the comparison sees: past NaNs under AnyPayload (an inf's flip
    /// makes a NaN, which is seen), in the first element under Exact; none in all-NaN or empty.
    #[test]
    fn a_compared_bit_is_flipped() {
        let output = |dtype, bytes: Vec<u8>| Output { dtype, shape: vec![], bytes };
        let bf16 = |v: &[u16]| output(Dtype::Bfloat16, u16_bytes(v));
        let flip = |mut o: Output, nans| flip_a_compared_bit(&mut o, nans).then_some(o.bytes);
        let nan_inf = bf16(&[0x7fc0, 0xffc1, 0x7f80]);
        assert_eq!(
            flip(nan_inf.clone(), Nans::AnyPayload),
            Some(u16_bytes(&[0x7fc0, 0xffc1, 0x7f81]))
        );
        assert_eq!(flip(nan_inf, Nans::Exact), Some(u16_bytes(&[0x7fc1, 0xffc1, 0x7f80])));
        assert_eq!(flip(bf16(&[0x7fc0, 0xffc1]), Nans::AnyPayload), None);
        assert_eq!(flip(output(Dtype::Float32, vec![]), Nans::Exact), None);
    }
}
