//! The contract between `mlx-ab` (the driver, which links no MLX) and its workers (one process
//! per arm, linking that arm's MLX), as JSON lines: `mlx-ab-worker`'s job, requests and replies
//! (`protocol`), `op-bench`'s ops, requests and replies (`ops`), what a worker reports about
//! its MLX (`info`), the devices it can run on (`device`), a gather's expert loads (`routing`),
//! and, with the `clap` feature, the options of `make-model`, `generate` and `determinism` that
//! the driver hands on (`worker_args`).

pub mod device;
pub mod info;
pub mod ops;
pub mod protocol;
pub mod routing;
#[cfg(feature = "clap")]
pub mod worker_args;

pub use device::DeviceKind;
pub use info::Info;
#[cfg(feature = "clap")]
pub use worker_args::{DeterminismArgs, GenerateArgs, MakeModelArgs};
