//! Build script of the drop-in `mlx-sys` 0.7.0: take mlx-c 0.7.0 from the fetched upstream
//! crate, apply `patches/`, compile it against the MLX that this workspace's `mlx-sys` built
//! (stock or patched, its cache), and check that `src/bindings.rs` matches those headers.
//!
//! No libclang and no network beyond the one `cargo fetch` of the upstream crate: the
//! bindings are checked in (`regen-bindings` rewrites them).

mod mlx_c;
mod upstream;

use std::env;
use std::fs;
use std::path::PathBuf;

type Fallible<T> = mlx_build::Fallible<T>;

/// Set by `regen-bindings`: build the patched tree without requiring the bindings to match it.
const REGEN_ENV: &str = "MLX_RS_COMPAT_REGEN_BINDINGS";

fn main() {
    if let Err(message) = run() {
        eprintln!("\nerror: the drop-in mlx-sys 0.7.0 could not build mlx-c\n\n{message}\n");
        std::process::exit(1);
    }
}

fn run() -> Fallible<()> {
    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let out_dir = PathBuf::from(env::var("OUT_DIR").unwrap());
    for path in ["build", "patches", "cpp", "upstream", "src/bindings.digest"] {
        println!("cargo:rerun-if-changed={}", manifest_dir.join(path).display());
    }
    println!("cargo:rerun-if-env-changed={REGEN_ENV}");
    for var in ["CXX", "CXXFLAGS", "MLX_AB_CACHE_DIR"] {
        println!("cargo:rerun-if-env-changed={var}");
    }

    // Published by this workspace's mlx-sys (`links = "mlx"`): its cached build of MLX.
    let mlx_root = PathBuf::from(env::var("DEP_MLX_ROOT").map_err(|_| {
        "DEP_MLX_ROOT is not set: this crate must depend on the workspace's mlx-sys 0.1.0"
    })?);
    let mlx_include = PathBuf::from(env::var("DEP_MLX_INCLUDE").unwrap_or_default());

    let upstream = upstream::locate(&manifest_dir.join("upstream"))?;
    let tree = out_dir.join("mlx-c");
    let digest = mlx_c::prepare(&upstream, &manifest_dir.join("patches"), &tree)?;
    fs::write(out_dir.join("mlx-c.digest"), format!("{digest}\n"))
        .map_err(|e| format!("writing mlx-c.digest: {e}"))?;
    check_bindings(&manifest_dir, &digest)?;

    let lib = mlx_c::compile(&tree, &digest, &mlx_root, &mlx_include, &manifest_dir.join("cpp"))?;
    println!("cargo:rustc-link-search=native={}", lib.display());
    println!("cargo:rustc-link-lib=static=mlxc");
    // What mlx-sys 0.7.0 published to its dependents, for C++ code built beside mlx-rs.
    let include = env::join_paths([&mlx_include, &tree]).map_err(|e| e.to_string())?;
    println!("cargo:include={}", include.to_string_lossy());
    println!("cargo:version=0.32.4");
    Ok(())
}

/// `src/bindings.rs` was generated from the patched headers whose digest `src/bindings.digest`
/// records; other headers (a new patch, another upstream) need `regen-bindings` first.
fn check_bindings(manifest_dir: &std::path::Path, digest: &str) -> Fallible<()> {
    if env::var_os(REGEN_ENV).is_some() {
        return Ok(());
    }
    let recorded = fs::read_to_string(manifest_dir.join("src/bindings.digest")).unwrap_or_default();
    if recorded.trim() != digest {
        return Err(format!(
            "src/bindings.rs was generated from other mlx-c headers (src/bindings.digest: {:?}, \
             the patched mlx-c here: {digest}).\nRun mlx-rs-compat/mlx-sys/regen-bindings \
             (needs libclang and the bindgen CLI).",
            recorded.trim()
        ));
    }
    Ok(())
}
