//! The cache root of `mlx_build::cache` (MLX builds live in `<root>/builds`); the harness adds
//! `<root>/arms` (one cargo target dir per arm) and `<root>/models` (synthetic checkpoints).

use std::path::PathBuf;

/// The build cache's root, absolute.
pub fn root() -> Result<PathBuf, String> {
    absolute(mlx_build::cache::root()?)
}

/// The workspace this binary was built from: arms are built from it. `MLX_AB_WORKSPACE`
/// overrides it (for a binary moved away from its checkout).
pub fn workspace() -> Result<PathBuf, String> {
    let dir = match std::env::var_os("MLX_AB_WORKSPACE") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.."),
    };
    let dir = dir.canonicalize().map_err(|e| format!("workspace {}: {e}", dir.display()))?;
    if !dir.join("rust/mlx-ab/Cargo.toml").is_file() {
        return Err(format!(
            "{} is not this project's workspace (no rust/mlx-ab/Cargo.toml); set MLX_AB_WORKSPACE",
            dir.display()
        ));
    }
    Ok(dir)
}

/// An absolute form of a user path (build scripts run in another directory).
pub fn absolute(path: PathBuf) -> Result<PathBuf, String> {
    std::path::absolute(&path).map_err(|e| format!("{}: {e}", path.display()))
}
