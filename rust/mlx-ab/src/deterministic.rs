//! `--deterministic` (`run`, `generate`, `determinism`): every worker runs with the settings that
//! make MLX's CUDA path deterministic, and the report records them and whether they apply.
//!
//! What MLX v0.32.4 reads from the environment (`mlx/backend/cuda/**`, `mlx/utils.h`,
//! `mlx/compile.cpp`), and what each does to determinism on CUDA:
//!
//! - `MLX_CUDA_USE_CUDNN_SDPA` (default 1): SET to 0. With it on, fp16/bf16 attention goes to
//!   cuDNN's SDPA, and single-query decode attention over a fixed-size KV cache
//!   (`use_cudnn_for_decoding`) gave one element of 4,096 one bf16 step apart from bit-identical
//!   inputs on the H200; with it off, all 7,568 traced arrays of 3 repeats were bit-identical
//!   (reports/upstream/cuda-sdpa-decode-nondeterminism.md, reports/h200/determinism/). Off,
//!   attention runs MLX's own kernels (the vector kernels for decode, the explicit chain for
//!   prefill), whose reduction order is fixed. What that costs in speed on fp16/bf16 models is
//!   issue 25's measurement (not made here).
//! - `MLX_USE_CUDA_GRAPHS` (default 1): not set. Graphs replay the same kernels in the same order
//!   with the same arithmetic; with graphs off the cuDNN decode still differed (same report), so
//!   they are not a cause, and turning them off would slow every decode step.
//! - `MLX_ENABLE_TF32` (default 1): not set. TF32 changes the precision of float32 matmuls and
//!   convolutions (one rounding of the inputs), not whether a run reproduces itself; both arms
//!   use the same value, and changing it would change what is measured.
//! - cuBLAS: not set. NVIDIA documents cuBLAS results as bitwise reproducible run to run for one
//!   toolkit on GPUs of one architecture and SM count, except that with several streams the
//!   library may pick internal workspaces differently; `CUBLAS_WORKSPACE_CONFIG` pins those, and
//!   so does calling `cublasLtMatmul` with a workspace the caller owns. MLX does the latter
//!   (`cublas_utils.cpp`: one heuristic algorithm cached per matmul descriptor, a workspace
//!   allocated per call), so the variable has nothing to pin.
//! - Atomics: MLX's CUDA reductions do not use their `atomic_update`s in v0.32.4; only
//!   `scatter_add` (float atomicAdd, order-dependent with repeated indices) does, with no switch;
//!   no forward pass of the models here scatters.
//! - `MLX_MAX_OPS_PER_BUFFER`, `MLX_MAX_MB_PER_BUFFER`, `MLX_BFS_MAX_WIDTH`, `MLX_DISABLE_COMPILE`:
//!   not set. They change how work is grouped and submitted, or whether elementwise chains are
//!   fused by `compile` (deterministic either way), not the order of any reduction.
//! - cuDNN convolutions pick an engine by heuristic too; no model here has a convolution, and MLX
//!   has no switch for it.
//!
//! Every other knob is recorded as the workers inherit it (`environment`), so a report says what
//! MLX ran with even where this module does not set it.

use mlx_ab_protocol::info::runtime_environment;
use mlx_ab_protocol::{DeviceKind, Info};
use serde::Serialize;
use std::collections::BTreeMap;
use std::ffi::OsString;

/// One environment variable that deterministic mode sets in every worker.
pub struct Knob {
    pub name: &'static str,
    pub value: &'static str,
    /// What it turns off, for the report.
    pub effect: &'static str,
    /// The MLX backend that reads it.
    pub backend: Backend,
}

/// The knobs of deterministic mode (see the module comment for those left alone, and why).
pub const KNOBS: &[Knob] = &[Knob {
    name: "MLX_CUDA_USE_CUDNN_SDPA",
    value: "0",
    effect: "cuDNN's SDPA off: attention runs MLX's own kernels (cuDNN's bf16 decode attention \
             was seen to differ from run to run)",
    backend: Backend::Cuda,
}];

/// Which MLX backend runs an arm's model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    Cpu,
    Cuda,
    Metal,
}

impl Backend {
    /// From the device an arm ran on and MLX's description of its GPU (CUDA builds report a
    /// compute capability, Metal builds do not).
    pub fn of(device: DeviceKind, gpu: Option<&BTreeMap<String, String>>) -> Backend {
        match device {
            DeviceKind::Cpu => Backend::Cpu,
            DeviceKind::Gpu if gpu.is_some_and(|g| g.contains_key("compute_capability_major")) => {
                Backend::Cuda
            }
            DeviceKind::Gpu => Backend::Metal,
        }
    }

    /// Does a change to `file` (a path in MLX's tree) change this backend's library? Only MLX's
    /// sources under `mlx/` and its CMake files build it (tests, Python and docs do not), and a
    /// build compiles no other GPU backend's folder (a GPU build has the CPU backend too).
    pub fn builds(self, file: &str) -> bool {
        let library =
            file.starts_with("mlx/") || file.starts_with("cmake/") || file == "CMakeLists.txt";
        let others: &[&str] = match self {
            Backend::Cpu => &["mlx/backend/cuda/", "mlx/backend/metal/"],
            Backend::Cuda => &["mlx/backend/metal/"],
            Backend::Metal => &["mlx/backend/cuda/"],
        };
        library && !others.iter().any(|o| file.starts_with(o))
    }

    fn name(self) -> &'static str {
        match self {
            Backend::Cpu => "the CPU",
            Backend::Cuda => "a CUDA GPU",
            Backend::Metal => "a Metal GPU",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Backend::Cpu => "CPU",
            Backend::Cuda => "CUDA",
            Backend::Metal => "Metal",
        }
    }
}

/// The variables a worker gets in deterministic mode (none otherwise).
pub fn env(deterministic: bool) -> Vec<(OsString, OsString)> {
    if !deterministic {
        return Vec::new();
    }
    KNOBS.iter().map(|k| (k.name.into(), k.value.into())).collect()
}

/// What the report says about determinism settings (in its provenance).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Determinism {
    /// `--deterministic` was given: every worker ran with `knobs` set.
    pub deterministic_mode: bool,
    /// The backend the arms ran on (`cpu`, `cuda`, `metal`); `None` when not known (a
    /// forwarded command before its worker runs).
    pub backend: Option<Backend>,
    /// The knobs deterministic mode set, each with whether it acts on that backend. Empty when
    /// the mode is off.
    pub knobs: Vec<KnobState>,
    /// Variables of this process's environment that MLX, cuBLAS or cuDNN read at run time, as
    /// every worker inherited them (before the knobs above, which override them).
    pub environment: BTreeMap<String, String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KnobState {
    pub name: String,
    pub value: String,
    /// Whether the backend the arms ran on reads this knob; `None` when the backend is not known.
    pub applies: Option<bool>,
    /// What it did, or why it did nothing.
    pub note: String,
}

impl Determinism {
    pub fn new(deterministic: bool, backend: Option<Backend>) -> Self {
        Self::with_environment(deterministic, backend, runtime_environment())
    }

    fn with_environment(
        deterministic: bool,
        backend: Option<Backend>,
        environment: BTreeMap<String, String>,
    ) -> Self {
        let knobs = if deterministic {
            KNOBS.iter().map(|k| knob_state(k, backend)).collect()
        } else {
            Vec::new()
        };
        Determinism { deterministic_mode: deterministic, backend, knobs, environment }
    }

    /// One line for the Markdown summary and for a forwarded command's note:
    /// `MLX_CUDA_USE_CUDNN_SDPA=0 (applies on a CUDA GPU: ...)`, or what did not apply.
    pub fn describe(&self) -> String {
        if !self.deterministic_mode {
            return "off".into();
        }
        let knobs: Vec<String> =
            self.knobs.iter().map(|k| format!("`{}={}` ({})", k.name, k.value, k.note)).collect();
        format!("on: {}", knobs.join("; "))
    }
}

/// Checks that an arm's worker ran with the knobs, from the environment it reports: an error if
/// it ran with another value, a warning if it does not report its environment (an older build).
pub fn confirm(arm: &str, info: &Info, deterministic: bool) -> Result<Option<String>, String> {
    if !deterministic {
        return Ok(None);
    }
    let Some(environment) = &info.environment else {
        return Ok(Some(format!(
            "arm {arm}'s worker does not report its environment (an older build): deterministic \
             mode's settings were passed to it but are not confirmed"
        )));
    };
    for knob in KNOBS {
        match environment.get(knob.name) {
            Some(value) if value == knob.value => {}
            other => {
                return Err(format!(
                    "arm {arm}'s worker ran with {}={} although deterministic mode sets {}",
                    knob.name,
                    other.map_or("(unset)", String::as_str),
                    knob.value
                ))
            }
        }
    }
    Ok(None)
}

fn knob_state(knob: &Knob, backend: Option<Backend>) -> KnobState {
    let applies = backend.map(|b| b == knob.backend);
    let note = match backend {
        Some(b) if b == knob.backend => format!("applies on {}: {}", b.name(), knob.effect),
        Some(b) => format!(
            "set, but does not apply on {}: only MLX's {} backend reads it",
            b.name(),
            knob.backend.label()
        ),
        None => format!("set; acts only on {}: {}", knob.backend.name(), knob.effect),
    };
    KnobState { name: knob.name.into(), value: knob.value.into(), applies, note }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cuda_gpu() -> BTreeMap<String, String> {
        [("device_name", "NVIDIA H200"), ("compute_capability_major", "9")]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn the_mode_sets_cudnn_sdpa_off_and_nothing_without_it() {
        assert_eq!(env(true), [(OsString::from("MLX_CUDA_USE_CUDNN_SDPA"), OsString::from("0"))]);
        assert!(env(false).is_empty());
    }

    #[test]
    fn backends_from_device_and_gpu_info() {
        let metal: BTreeMap<String, String> = [("device_name".into(), "Apple M3".into())].into();
        assert_eq!(Backend::of(DeviceKind::Gpu, Some(&cuda_gpu())), Backend::Cuda);
        assert_eq!(Backend::of(DeviceKind::Gpu, Some(&metal)), Backend::Metal);
        assert_eq!(Backend::of(DeviceKind::Cpu, Some(&cuda_gpu())), Backend::Cpu);
        assert_eq!(Backend::of(DeviceKind::Cpu, None), Backend::Cpu);
    }

    #[test]
    fn the_worker_confirms_the_knobs_it_ran_with() {
        let info = |environment: Option<&[(&str, &str)]>| Info {
            mlx_version: "0.32.4".into(),
            patches: vec![],
            source_digest: String::new(),
            extra_patches: vec![],
            patch_files: vec![],
            source: String::new(),
            build_key: String::new(),
            library_path: String::new(),
            gpu_available: false,
            gpu: None,
            environment: environment
                .map(|e| e.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()),
        };
        let with = info(Some(&[("MLX_CUDA_USE_CUDNN_SDPA", "0")]));
        assert_eq!(confirm("A", &with, true), Ok(None));
        let without = info(Some(&[]));
        assert_eq!(confirm("A", &without, false), Ok(None));
        let error = confirm("B", &without, true).unwrap_err();
        assert!(
            error.contains("arm B's worker ran with MLX_CUDA_USE_CUDNN_SDPA=(unset)"),
            "{error}"
        );
        let other = info(Some(&[("MLX_CUDA_USE_CUDNN_SDPA", "1")]));
        assert!(confirm("A", &other, true).unwrap_err().contains("=1 although"));
        let old = confirm("A", &info(None), true).unwrap().unwrap();
        assert!(old.contains("does not report its environment"), "{old}");
    }

    #[test]
    fn a_knob_that_does_not_apply_says_so() {
        let none = BTreeMap::new();
        let cpu = Determinism::with_environment(true, Some(Backend::Cpu), none.clone());
        assert_eq!(cpu.knobs.len(), 1);
        assert_eq!(cpu.knobs[0].applies, Some(false));
        assert_eq!(
            cpu.knobs[0].note,
            "set, but does not apply on the CPU: only MLX's CUDA backend reads it"
        );

        let cuda = Determinism::with_environment(true, Some(Backend::Cuda), none.clone());
        assert_eq!(cuda.knobs[0].applies, Some(true));
        assert!(cuda.knobs[0].note.starts_with("applies on a CUDA GPU: cuDNN's SDPA off"));
        assert!(cuda.describe().starts_with("on: `MLX_CUDA_USE_CUDNN_SDPA=0` (applies on"));

        let unknown = Determinism::with_environment(true, None, none.clone());
        assert_eq!(unknown.knobs[0].applies, None);
        assert!(unknown.knobs[0].note.starts_with("set; acts only on a CUDA GPU"));

        let off = Determinism::with_environment(false, Some(Backend::Cuda), none);
        assert!(off.knobs.is_empty() && !off.deterministic_mode);
        assert_eq!(off.describe(), "off");
    }
}
