//! The contract between `mlx-ab` (the driver, which links no MLX) and `mlx-ab-worker` (one arm's
//! process, linking that arm's MLX): the job and the line protocol (`protocol`), what a worker
//! reports about its MLX (`info`), the devices it can run on (`device`), and, with the `clap`
//! feature, the options of `generate` that the driver hands on (`generate_args`).

pub mod device;
#[cfg(feature = "clap")]
pub mod generate_args;
pub mod info;
pub mod protocol;

pub use device::DeviceKind;
#[cfg(feature = "clap")]
pub use generate_args::GenerateArgs;
pub use info::Info;
