//! The contract between `mlx-ab` (the driver, which links no MLX) and `mlx-ab-worker` (one arm's
//! process, linking that arm's MLX): the job and the line protocol (`protocol`), what a worker
//! reports about its MLX (`info`), and the devices it can run on (`device`).

pub mod device;
pub mod info;
pub mod protocol;

pub use device::DeviceKind;
pub use info::Info;
