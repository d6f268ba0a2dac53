//! Build script of `mlx`: records which patch features are on, and writes the wrappers of the
//! bridge's table-driven ops from mlx-sys's `cpp/ops.def`.

mod ops_table;

use std::path::PathBuf;

fn main() {
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    write_requested_patches(&out);
    if let Err(message) = ops_table::write(&out) {
        eprintln!("error: {message}");
        std::process::exit(1);
    }
}

/// For `mlx::requested_patches`: ids from `patches/series`, never spelled here.
fn write_requested_patches(out: &std::path::Path) {
    let on: Vec<&str> = mlx_build::series::ids()
        .into_iter()
        .filter(|id| std::env::var_os(mlx_build::series::feature_env(id)).is_some())
        .collect();
    std::fs::write(out.join("requested_patches.rs"), format!("{on:?}"))
        .expect("writing requested_patches.rs");
}
