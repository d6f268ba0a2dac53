//! What MLX this crate was built against.

/// The MLX build in use: version reported by the library, patches applied, source digest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildInfo {
    /// `mlx::core::version()` of the linked library.
    pub mlx_version: String,
    /// Ids of this project's patches applied, in series order (empty = stock MLX).
    pub patches: &'static [&'static str],
    /// SHA-256 over the MLX source tree before patching.
    pub source_digest: &'static str,
    /// `pinned` (MLX v0.32.4 as pinned by mlx-sys) or the `MLX_SRC_DIR` checkout built.
    pub source: &'static str,
}

/// Describes the linked MLX.
pub fn build_info() -> BuildInfo {
    BuildInfo {
        mlx_version: mlx_sys::mlx_version(),
        patches: mlx_sys::build_info::PATCHES,
        source_digest: mlx_sys::build_info::SOURCE_DIGEST,
        source: mlx_sys::build_info::SOURCE,
    }
}

/// Patch ids this crate's features asked for, in series order (written by build.rs from
/// `patches/series` and the enabled features).
pub fn requested_patches() -> Vec<&'static str> {
    include!(concat!(env!("OUT_DIR"), "/requested_patches.rs")).to_vec()
}
