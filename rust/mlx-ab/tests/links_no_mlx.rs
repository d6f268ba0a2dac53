//! The driver links no MLX: its dependency tree has no MLX crate, and its binary holds none of
//! MLX's C++ code (whose symbols and type names all carry the mangled namespace `3mlx4core`).
//! The worker, which does link MLX, shows that the binary check can see it.

mod common;

use std::collections::BTreeSet;
use std::process::Command;

/// The crates of this workspace that bring MLX into a binary.
const MLX_CRATES: &[&str] = &["mlx-sys", "mlx", "mlx-ext", "mlx-model"];
/// Itanium mangling of `mlx::core`, in every symbol and RTTI name of MLX's code.
const MLX_CODE: &[u8] = b"3mlx4core";

/// Every package the driver's build pulls in (normal and build dependencies, transitively),
/// for this host, as `cargo tree` resolves them.
fn driver_dependencies() -> BTreeSet<String> {
    let output = Command::new(env!("CARGO"))
        .args(["tree", "--offline", "-p", "mlx-ab", "-e", "normal,build", "--prefix", "none"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", common::describe(&output));
    // Lines are `name vVERSION (path)` and may end in ` (*)` for repeats.
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .filter_map(|line| line.split_whitespace().next().map(str::to_string))
        .collect()
}

fn holds_mlx_code(path: &std::path::Path) -> bool {
    let bytes = std::fs::read(path).unwrap();
    bytes.windows(MLX_CODE.len()).any(|w| w == MLX_CODE)
}

#[test]
fn the_driver_depends_on_no_mlx_crate() {
    let deps = driver_dependencies();
    assert!(deps.contains("mlx-workload") && deps.contains("mlx-ab-protocol"), "{deps:?}");
    for crate_name in MLX_CRATES {
        assert!(!deps.contains(*crate_name), "mlx-ab depends on {crate_name}: {deps:?}");
    }
}

#[test]
fn the_driver_binary_holds_no_mlx_code_and_the_worker_does() {
    assert!(!holds_mlx_code(env!("CARGO_BIN_EXE_mlx-ab").as_ref()), "MLX code in the driver");
    assert!(holds_mlx_code(common::worker()), "the check must see MLX in the worker");
}
