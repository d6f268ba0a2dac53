//! The cache root of `mlx_build::cache` (MLX builds live in `<root>/builds`); the harness adds
//! `<root>/arms` (workers: one folder per arm, cargo target dirs) and `<root>/models` (synthetic
//! checkpoints).

use std::path::{Path, PathBuf};

/// The build cache's root, absolute.
pub fn root() -> Result<PathBuf, String> {
    absolute(mlx_build::cache::root()?)
}

/// The workspace arms are built from, found at run time: `MLX_AB_WORKSPACE`, else the nearest
/// folder holding `rust/mlx-ab/Cargo.toml` above the current directory, else above this binary
/// (a `target/` inside the checkout).
pub fn workspace() -> Result<PathBuf, String> {
    let dir = match std::env::var_os("MLX_AB_WORKSPACE") {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            if !is_workspace(&dir) {
                return Err(format!(
                    "MLX_AB_WORKSPACE={} is not this project's workspace (no rust/mlx-ab/Cargo.toml)",
                    dir.display()
                ));
            }
            dir
        }
        None => {
            let starts = [std::env::current_dir().ok(), std::env::current_exe().ok()];
            find_workspace(starts.iter().flatten()).ok_or(
                "no workspace found above the current directory or this binary: run mlx-ab \
                 inside this project's checkout, or set MLX_AB_WORKSPACE",
            )?
        }
    };
    dir.canonicalize().map_err(|e| format!("workspace {}: {e}", dir.display()))
}

fn is_workspace(dir: &Path) -> bool {
    dir.join("rust/mlx-ab/Cargo.toml").is_file()
}

/// The first folder, going up from each start in turn, that is the workspace.
fn find_workspace<'a>(starts: impl IntoIterator<Item = &'a PathBuf>) -> Option<PathBuf> {
    starts
        .into_iter()
        .find_map(|start| start.ancestors().find(|d| is_workspace(d)).map(Path::to_path_buf))
}

/// An absolute form of a user path (build scripts run in another directory).
pub fn absolute(path: PathBuf) -> Result<PathBuf, String> {
    std::path::absolute(&path).map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_workspace_is_the_nearest_folder_above_a_start_that_holds_mlx_ab() {
        let root = std::env::temp_dir().join(format!("mlx-ab-ws-{}", std::process::id()));
        let inner = root.join("checkout");
        std::fs::create_dir_all(inner.join("rust/mlx-ab")).unwrap();
        std::fs::write(inner.join("rust/mlx-ab/Cargo.toml"), "").unwrap();
        std::fs::create_dir_all(inner.join("target/release")).unwrap();
        let outside = root.join("elsewhere");
        std::fs::create_dir_all(&outside).unwrap();
        let binary = inner.join("target/release/mlx-ab");
        assert_eq!(find_workspace(std::slice::from_ref(&binary)), Some(inner.clone()));
        assert_eq!(find_workspace(&[outside.clone(), binary]), Some(inner.clone()));
        assert_eq!(find_workspace(&[inner.join("rust")]), Some(inner));
        assert_eq!(find_workspace(&[outside]), None);
        std::fs::remove_dir_all(root).unwrap();
    }
}
