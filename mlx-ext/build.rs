//! Compiles this crate's C++ against the MLX build of `mlx-sys` (MLX's and the shims' headers
//! come through cxx-build's exported header dirs of mlx-sys), with the sanitizers of that build
//! (`DEP_MLX_SANITIZE`).
//! Sources named after a patch id (`cpp/fused_causal_softmax.cc` with bridge
//! `src/fused_causal_softmax.rs`) bind what only that patch adds, so they are compiled only when
//! mlx-sys's MLX has that patch (`DEP_MLX_PATCHES`; the Rust side sees `cfg(mlx_patch = "ID")`);
//! every other `cpp/*.cc` / `src/ffi/*.rs` pair is always compiled. This crate has no patch
//! features: the ones that choose the build are mlx-sys's, forwarded by the crates above.

use std::path::{Path, PathBuf};

/// `gather_qmm_tiles` for patch id `gather-qmm-tiles`: the file stems of patch-only sources.
fn patch_stems() -> Vec<String> {
    mlx_build::series::ids().iter().map(|id| stem_of(id)).collect()
}

/// The file stem of a patch id's sources.
fn stem_of(id: &str) -> String {
    id.replace('-', "_")
}

fn main() {
    let applied: Vec<String> = std::env::var("DEP_MLX_PATCHES")
        .expect("mlx-sys exports its patches")
        .split(',')
        .filter(|id| !id.is_empty())
        .map(String::from)
        .collect();
    let ids = mlx_build::series::ids();
    let values: Vec<String> = ids.iter().map(|id| format!("\"{id}\"")).collect();
    println!("cargo:rustc-check-cfg=cfg(mlx_patch, values({}))", values.join(", "));
    for id in &applied {
        println!("cargo:rustc-cfg=mlx_patch=\"{id}\"");
    }
    let enabled = |stem: &str| !is_patch_stem(stem) || applied.iter().any(|id| stem_of(id) == stem);
    let bridges: Vec<PathBuf> = ["src/ffi", "src"]
        .iter()
        .flat_map(|dir| files(Path::new(dir), "rs"))
        .filter(|p| p.parent() == Some(Path::new("src/ffi")) || is_patch_file(p))
        .filter(|p| enabled(stem(p)))
        .collect();
    let shims: Vec<PathBuf> =
        files(Path::new("cpp"), "cc").into_iter().filter(|p| enabled(stem(p))).collect();
    println!("cargo:rerun-if-env-changed=DEP_MLX_PATCHES");
    println!("cargo:rerun-if-changed=cpp");
    println!("cargo:rerun-if-changed=src");
    if bridges.is_empty() {
        return;
    }
    let mut build = cxx_build::bridges(&bridges);
    build
        .files(&shims)
        .include("cpp")
        .std("c++20")
        .flag_if_supported("-Wno-unused-parameter")
        .opt_level(2);
    // The sanitizers mlx-sys built MLX with (MLX_SANITIZE) instrument this C++ too.
    let sanitize = std::env::var("DEP_MLX_SANITIZE").unwrap_or_default();
    if let Some(set) = mlx_build::sanitize::Sanitize::parse(&sanitize).expect("mlx-sys's list") {
        for flag in set.compile_flags() {
            build.flag(&flag);
        }
    }
    build.compile("mlx_ext_bridge");
}

fn is_patch_file(path: &Path) -> bool {
    is_patch_stem(stem(path))
}

fn is_patch_stem(stem: &str) -> bool {
    patch_stems().iter().any(|s| s == stem)
}

fn stem(path: &Path) -> &str {
    path.file_stem().and_then(|s| s.to_str()).unwrap_or_default()
}

fn files(dir: &Path, extension: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == extension))
        .collect();
    files.sort();
    files
}
