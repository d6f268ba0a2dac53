//! Reference parity: greedy generation of `mlx-model` against mlx-lm itself (Python, the official
//! `mlx[cpu]==0.32.4` wheel and `mlx-lm`), on synthetic checkpoints written by `mlx-model`.
//!
//! Both sides load the same checkpoint directory, prefill the same prompt in chunks of the same
//! size and decode greedily; tokens must be equal and every step's logits close.
//!
//! Tolerance. Both sides run the same MLX ops in the same order; what differs is the build: the
//! wheel links another BLAS than this workspace's system OpenBLAS. Checked on this machine, op by
//! op on the same inputs: MLX's own CPU kernels (quantized matmul, rms_norm, rope, softmax,
//! element-wise ops) give bit-identical results in both builds, while f32 `matmul` (BLAS) and so
//! f32 SDPA (which multiplies through BLAS on CPU) differ in the last bits. Hence:
//! - f32 models: logits within TOL_F32 relative (max |a - b| <= TOL_F32 * max(1, max |ref|)),
//!   tokens equal;
//! - bf16 models: MLX computes bf16 matmuls itself (BLAS has no bf16), so every op matches and
//!   the logits must be bit-identical.
//!
//! Requires `python3` with `mlx==0.32.4` and `mlx-lm==0.32.2` (`./quickstart test` installs
//! them); the test fails, not skips, when they are missing or of other versions.
//! `MLX_TESTS_PYTHON` overrides the interpreter.

use std::path::Path;
use std::process::Command;

use mlx_model::{generate, preset_run_shape, synthetic_prompt, write_synthetic, Model};

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/python/mlx_lm_reference.py");
const MLX_VERSION: &str = "0.32.4";
/// The mlx-lm release whose semantics mlx-model follows (pinned in ./quickstart).
const MLX_LM_VERSION: &str = "0.32.2";
const INSTALL_HINT: &str = "the mlx-lm reference is needed: run ./quickstart test (it pip-installs \"mlx[cpu]==0.32.4\" \"mlx-lm==0.32.2\")";

struct Reference {
    tokens: Vec<u32>,
    logits: Vec<Vec<f32>>,
}

fn python() -> String {
    std::env::var("MLX_TESTS_PYTHON").unwrap_or_else(|_| "python3".to_owned())
}

fn reference(dir: &Path, prompt: &[u32], max_tokens: usize, chunk: usize) -> Reference {
    let prompt_arg = prompt.iter().map(u32::to_string).collect::<Vec<_>>().join(",");
    let output = Command::new(python())
        .arg(SCRIPT)
        .arg("--model")
        .arg(dir)
        .args(["--prompt", &prompt_arg])
        .args(["--max-tokens", &max_tokens.to_string()])
        .args(["--prefill-chunk", &chunk.to_string()])
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}; {INSTALL_HINT}", python()));
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        if stderr.contains("ModuleNotFoundError") || stderr.contains("No module named") {
            panic!("{INSTALL_HINT}\n{stderr}");
        }
        panic!("the mlx-lm reference script failed ({}):\n{stderr}", output.status);
    }
    let v: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!("reference output is not JSON ({e}):\n{}", String::from_utf8_lossy(&output.stdout))
    });
    for (package, key, pinned) in
        [("MLX", "mlx", MLX_VERSION), ("mlx-lm", "mlx_lm", MLX_LM_VERSION)]
    {
        let found = v[key].as_str().unwrap_or("?");
        assert_eq!(
            found, pinned,
            "the reference must run {package} {pinned}, found {found}; {INSTALL_HINT}"
        );
    }
    let tokens = v["tokens"]
        .as_array()
        .expect("tokens")
        .iter()
        .map(|t| t.as_u64().unwrap() as u32)
        .collect();
    let logits = v["logits"]
        .as_array()
        .expect("logits")
        .iter()
        .map(|row| row.as_array().unwrap().iter().map(|x| x.as_f64().unwrap() as f32).collect())
        .collect();
    Reference { tokens, logits }
}

/// How close the logits must be.
#[derive(Clone, Copy)]
enum Tolerance {
    /// Every logit bit for bit.
    Exact,
    /// max |a - b| <= tol * max(1, max |reference|) per step.
    Relative(f32),
}

/// Generates with both and compares; returns the largest relative logit difference seen.
fn check(
    preset: &str,
    seed: u64,
    prompt_len: usize,
    max_tokens: usize,
    chunk: usize,
    tol: Tolerance,
) -> f32 {
    let dir = tempfile::tempdir().unwrap();
    write_synthetic(dir.path(), preset, seed).unwrap();
    let model = Model::load(dir.path()).unwrap();
    let prompt = synthetic_prompt(model.config().vocab_size, prompt_len, seed);
    let ours = generate(&model, &prompt, max_tokens, chunk).unwrap();
    let theirs = reference(dir.path(), &prompt, max_tokens, chunk);
    let what = format!("{preset} seed {seed} prompt {prompt_len} chunk {chunk}");

    assert_eq!(
        theirs.tokens.len(),
        max_tokens,
        "{what}: mlx-lm generated {} tokens",
        theirs.tokens.len()
    );
    assert_eq!(ours.tokens, theirs.tokens, "{what}: greedy tokens differ from mlx-lm's");
    assert_eq!(ours.logits.len(), theirs.logits.len());
    let mut worst = 0f32;
    for (step, (a, b)) in ours.logits.iter().zip(&theirs.logits).enumerate() {
        assert_eq!(a.len(), b.len(), "{what} step {step}: vocabulary sizes differ");
        let scale = b.iter().fold(1f32, |m, x| m.max(x.abs()));
        let diff = a.iter().zip(b).fold(0f32, |m, (x, y)| m.max((x - y).abs()));
        match tol {
            Tolerance::Exact => {
                let first = a.iter().zip(b).position(|(x, y)| x.to_bits() != y.to_bits());
                if let Some(i) = first {
                    panic!("{what} step {step}: logit {i} is {} here and {} in mlx-lm (bit-identity expected)", a[i], b[i]);
                }
            }
            Tolerance::Relative(tol) => assert!(
                diff <= tol * scale,
                "{what} step {step}: max |logit difference| {diff} exceeds {tol} x {scale}"
            ),
        }
        worst = worst.max(diff / scale);
    }
    let distinct: std::collections::BTreeSet<_> = ours.tokens.iter().collect();
    assert!(distinct.len() > 1, "{what}: a degenerate run (one token repeated) would prove little");
    let patches = mlx::build_info().patches.join("+");
    let build =
        if patches.is_empty() { "stock MLX".to_owned() } else { format!("MLX with {patches}") };
    eprintln!(
        "{what} ({build}): {max_tokens} tokens equal, max relative logit difference {worst:e}"
    );
    worst
}

/// f32 logits: relative tolerance (see the module comment). Measured on this machine: about
/// 1.2e-6 (about 10 f32 ulps of the largest logit); 1e-5 leaves a margin for other builds.
const TOL_F32: Tolerance = Tolerance::Relative(1e-5);

#[test]
fn tiny_moe_matches_mlx_lm() {
    let run = preset_run_shape("tiny").unwrap();
    // Chunks of 32 reach the sort threshold of mlx-lm's SwitchGLU (64 token-expert pairs); the
    // last partial chunk and decoding stay below it, so both expert paths are compared.
    check("tiny", 1, run.prompt_len, run.gen_len, run.prefill_chunk, TOL_F32);
}

#[test]
fn tiny_moe_matches_mlx_lm_across_kv_cache_growth() {
    // 300 prompt tokens in chunks of 96: the cache grows past 256 positions in the middle of a
    // chunk (mlx-lm trims and re-grows its buffers there).
    check("tiny", 2, 300, 8, 96, TOL_F32);
}

#[test]
fn tiny_dense_matches_mlx_lm() {
    let run = preset_run_shape("tiny-dense").unwrap();
    check("tiny-dense", 3, run.prompt_len, run.gen_len, run.prefill_chunk, TOL_F32);
}

#[test]
fn tiny_moe_bf16_matches_mlx_lm() {
    let run = preset_run_shape("tiny-bf16").unwrap();
    check("tiny-bf16", 4, run.prompt_len, run.gen_len, run.prefill_chunk, Tolerance::Exact);
}

#[test]
fn tiny_moe_bf16_matches_mlx_lm_across_kv_cache_growth() {
    check("tiny-bf16", 5, 300, 8, 96, Tolerance::Exact);
}
