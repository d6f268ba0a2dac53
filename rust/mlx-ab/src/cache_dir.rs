//! The cache root shared with `mlx-sys` (MLX builds live in `<root>/builds`); the harness adds
//! `<root>/arms` (one cargo target dir per arm) and `<root>/models` (synthetic checkpoints).

use std::path::PathBuf;

/// Same rule as mlx-sys: `MLX_AB_CACHE_DIR`, else `$XDG_CACHE_HOME/mlx-ab`, else `~/.cache/mlx-ab`.
pub fn root() -> Result<PathBuf, String> {
    if let Some(dir) = std::env::var_os("MLX_AB_CACHE_DIR") {
        return absolute(PathBuf::from(dir));
    }
    std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .map(|d| d.join("mlx-ab"))
        .ok_or_else(|| "neither MLX_AB_CACHE_DIR, XDG_CACHE_HOME nor HOME is set".to_string())
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
