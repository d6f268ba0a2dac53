//! Records which patch features of this crate are on (ids from `patches/series`, never spelled
//! here), for `mlx::requested_patches`.

fn main() {
    let on: Vec<&str> = mlx_build::series::ids()
        .into_iter()
        .filter(|id| std::env::var_os(mlx_build::series::feature_env(id)).is_some())
        .collect();
    let out =
        std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("requested_patches.rs");
    std::fs::write(out, format!("{on:?}")).expect("writing requested_patches.rs");
}
