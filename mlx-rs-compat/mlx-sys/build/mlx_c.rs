//! mlx-c itself: the upstream tree with `patches/` applied, compiled with `cc` against the
//! workspace's MLX into `libmlxc.a`, cached beside MLX's builds (one entry per MLX build,
//! patched mlx-c, compiler and target), so stock and patched arms and other target dirs
//! share it.

use crate::Fallible;
use mlx_build::cache::{self, BuildSpec};
use mlx_build::digest;
use mlx_build::files::{copy_tree, sorted_files};
use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Copies `upstream`'s `mlx/` to `tree` (afresh), applies every `*.patch` of `patch_dir` in
/// name order; returns the digest of the patched tree.
pub fn prepare(upstream: &Path, patch_dir: &Path, tree: &Path) -> Fallible<String> {
    if tree.exists() {
        fs::remove_dir_all(tree).map_err(|e| format!("removing {}: {e}", tree.display()))?;
    }
    copy_tree(&upstream.join("mlx"), &tree.join("mlx"))?;
    // git apply on a scratch repository: OUT_DIR may sit inside another repository, whose
    // root git would take the patch paths to be relative to.
    git(tree, &["init", "-q"], "git init")?;
    for patch in sorted_files(patch_dir, "patch")? {
        let mut args = vec!["apply", "--whitespace=nowarn"];
        args.push(patch.to_str().ok_or("patch path is not UTF-8")?);
        git(tree, &args, &format!("applying {} to mlx-c 0.7.0", patch.display()))?;
    }
    fs::remove_dir_all(tree.join(".git")).map_err(|e| format!("removing scratch .git: {e}"))?;
    digest::tree(tree)
}

/// The folder holding `libmlxc.a`: mlx-c's 26 sources, plus the non-Apple shims of `cpp/`.
pub fn compile(
    tree: &Path,
    tree_digest: &str,
    mlx_root: &Path,
    mlx_include: &Path,
    shim_dir: &Path,
) -> Fallible<PathBuf> {
    let mut sources = sorted_files(&tree.join("mlx/c"), "cpp")?;
    let apple = env::var("CARGO_CFG_TARGET_VENDOR").as_deref() == Ok("apple");
    if !apple {
        sources.extend(sorted_files(shim_dir, "cpp")?);
    }
    // The key names no path (the tree sits in each target dir's OUT_DIR): flags before the
    // include folders, shims by name and bytes.
    let compiler = base_build().get_compiler();
    let mut shims = String::new();
    for shim in sources.iter().filter(|s| s.starts_with(shim_dir)) {
        let bytes = fs::read(shim).map_err(|e| format!("reading {}: {e}", shim.display()))?;
        let name = shim.file_name().unwrap_or_default().to_string_lossy();
        shims += &format!("{name}={} ", digest::bytes(&bytes));
    }
    let mut base = base_build();
    base.include(tree).include(mlx_include);
    let mlx_key = mlx_root.file_name().unwrap_or_default().to_string_lossy().into_owned();
    let spec = BuildSpec::new(&[
        ("mlx build", mlx_key),
        ("mlx-c", tree_digest.to_string()),
        ("shims", shims),
        ("compiler", cache::tool_version(&compiler.path().to_string_lossy())),
        ("flags", format!("{:?}", compiler.args())),
        ("target", env::var("TARGET").unwrap_or_default()),
    ]);
    let entry = mlx_build::cache::root()?.join("mlx-c").join(&spec.key);
    fs::create_dir_all(entry.parent().unwrap()).map_err(|e| format!("creating cache dir: {e}"))?;
    let lib = cache::publish_once(&entry, |staging| {
        fs::write(staging.join(cache::SPEC_FILE), &spec.description)
            .map_err(|e| format!("writing build spec: {e}"))?;
        compile_in_parallel(&base, &sources, staging)
    })?;
    // cc's own link lines are off (the archive lives in the cache): the C++ runtime by hand.
    println!("cargo:rustc-link-lib={}", if apple { "c++" } else { "stdc++" });
    Ok(lib)
}

fn base_build() -> cc::Build {
    let mut build = cc::Build::new();
    build
        .cpp(true)
        .std("c++20")
        .pic(true)
        .opt_level(2)
        .debug(false)
        .warnings(false)
        .cargo_metadata(false);
    build
}

/// cc without its `parallel` feature compiles one file at a time: one thread per job instead.
fn compile_in_parallel(base: &cc::Build, sources: &[PathBuf], staging: &Path) -> Fallible<()> {
    let jobs: usize = env::var("NUM_JOBS").ok().and_then(|n| n.parse().ok()).unwrap_or(1);
    let chunks: Vec<&[PathBuf]> = sources.chunks(sources.len().div_ceil(jobs.max(1))).collect();
    let objects = std::thread::scope(|scope| {
        let handles: Vec<_> = chunks
            .iter()
            .enumerate()
            .map(|(i, chunk)| {
                let mut build = base.clone();
                build.files(chunk.iter()).out_dir(staging.join(format!("obj{i}")));
                scope.spawn(move || build.try_compile_intermediates())
            })
            .collect();
        let mut objects = Vec::new();
        for handle in handles {
            match handle.join() {
                Ok(Ok(objs)) => objects.extend(objs),
                Ok(Err(e)) => return Err(format!("compiling mlx-c: {e}")),
                Err(_) => return Err("a compiler thread panicked".to_string()),
            }
        }
        Ok(objects)
    })?;
    let mut archive = base.clone();
    archive.objects(&objects).out_dir(staging);
    archive.try_compile("mlxc").map_err(|e| format!("archiving libmlxc.a: {e}"))?;
    for i in 0..chunks.len() {
        let _ = fs::remove_dir_all(staging.join(format!("obj{i}")));
    }
    Ok(())
}

fn git(dir: &Path, args: &[&str], what: &str) -> Fallible<()> {
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .map_err(|e| format!("{what}: could not run git: {e}"))?;
    if !output.status.success() {
        return Err(format!("{what} failed:\n{}", String::from_utf8_lossy(&output.stderr)));
    }
    Ok(())
}
