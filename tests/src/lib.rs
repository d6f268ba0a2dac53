//! Shared helpers of the workspace's integration and differential tests.

pub mod against_stock;
pub mod fuzz;
pub mod graphs;
pub mod moe;
pub mod rng;

/// The differential tests check the patches' CPU kernels bit for bit: run them on the CPU device
/// whatever the build's default device is (a CUDA build defaults to the GPU, where the CPU
/// kernels do not run). Call it first in every test; MLX's default device is per thread.
pub fn on_cpu() {
    mlx::Device::cpu().set_default().expect("every MLX build has the CPU device");
}

/// The device of the differential tests against a stock process (eval-walk graphs, gather_qmm
/// cases): the CPU, or the GPU when `MLX_TESTS_DEVICE=gpu` (set by scripts/gpu/run; the stock
/// helper, started with this environment, then runs on the GPU too).
pub fn device() -> mlx::Device {
    match std::env::var("MLX_TESTS_DEVICE").as_deref() {
        Ok("gpu") => mlx::Device::gpu(0),
        _ => mlx::Device::cpu(),
    }
}

/// Makes [`device`] MLX's default device, once per process: ops called without a stream run on
/// the default stream of the default device, so without it a CUDA build would run "CPU" cases
/// on the GPU (MLX's default device is process-wide: set once, before any case, by one thread).
pub fn use_device() -> mlx::Result<()> {
    static SET: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    SET.get_or_init(|| device().set_default().map_err(|e| e.to_string()))
        .clone()
        .map_err(mlx::Error::Mlx)
}

/// Runs `f` on the one thread this process keeps for MLX, one call at a time, and returns its
/// result (a panic in `f` resumes in the caller). MLX v0.32's `import_function` binds imported
/// ops to the first stream of their device in the process, which belongs to the thread that
/// made it (reports/upstream/import-function-first-stream.md): a test binary whose MLX work all
/// runs here owns that stream, whichever threads the harness gives its tests.
pub fn on_mlx_thread<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> R {
    use std::sync::{mpsc, Mutex, OnceLock, PoisonError};
    type Job = Box<dyn FnOnce() + Send>;
    static JOBS: OnceLock<Mutex<mpsc::Sender<Job>>> = OnceLock::new();
    let jobs = JOBS.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("mlx".into())
            .spawn(move || rx.into_iter().for_each(|job| job()))
            .expect("spawning the MLX thread");
        Mutex::new(tx)
    });
    let (tx, rx) = mpsc::channel();
    let job: Job = Box::new(move || {
        let _ = tx.send(std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)));
    });
    jobs.lock().unwrap_or_else(PoisonError::into_inner).send(job).expect("the MLX thread runs");
    match rx.recv().expect("the MLX thread answers every job") {
        Ok(r) => r,
        Err(panic) => std::panic::resume_unwind(panic),
    }
}
