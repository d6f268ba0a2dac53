//! Shared helpers of the workspace's integration and differential tests.

pub mod fuzz;
pub mod graphs;
pub mod rng;

/// The differential tests check the patches' CPU kernels bit for bit: run them on the CPU device
/// whatever the build's default device is (a CUDA build defaults to the GPU, where the CPU
/// kernels do not run). Call it first in every test; MLX's default device is per thread.
pub fn on_cpu() {
    mlx::Device::cpu().set_default().expect("every MLX build has the CPU device");
}
