//! The stock helper of the differential tests: `graph-eval` (tests/src/bin/graph-eval.rs) built
//! against stock MLX, run in another process. It is `$MLX_TESTS_STOCK_GRAPH_EVAL` if set, else
//! this crate's `graph-eval` built here with `--no-default-features` into its own target
//! directory (shared by the test binaries that use it; cargo's lock orders their builds).

use std::path::PathBuf;
use std::sync::OnceLock;

pub fn stock_helper() -> &'static PathBuf {
    static HELPER: OnceLock<PathBuf> = OnceLock::new();
    HELPER.get_or_init(|| {
        if let Some(path) = std::env::var_os("MLX_TESTS_STOCK_GRAPH_EVAL") {
            return PathBuf::from(path);
        }
        let target_dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("stock-graph-eval");
        let mut cargo = mlx_build::nested_cargo::command(env!("CARGO"));
        cargo
            .args([
                "build",
                "--offline",
                "-p",
                "mlx-tests",
                "--no-default-features",
                "--bin",
                "graph-eval",
            ])
            .arg("--target-dir")
            .arg(&target_dir)
            .current_dir(env!("CARGO_MANIFEST_DIR"));
        let out = cargo.output().expect("running cargo");
        assert!(
            out.status.success(),
            "building the stock graph-eval failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        target_dir.join("debug").join(format!("graph-eval{}", std::env::consts::EXE_SUFFIX))
    })
}
