//! One MLX build from source to install, the same for mlx-sys's build script (into a cache
//! entry) and `mlx-build build` (into any prefix, e.g. on a GPU machine without Rust): the
//! source with the selected patches in `TREE/mlx`, built in `TREE/build`, installed into
//! `PREFIX/{include,lib,bin}` with what programs and scripts read there.

use crate::cmake_flags::{self, Backend, BuildOptions};
use crate::cuda::Toolkit;
use crate::files::{copy_tree, sync_tree};
use crate::patches::{self, Selection};
use crate::source::Source;
use crate::{cache, cmake_build, Fallible};
use std::fs;
use std::path::Path;

/// Patch ids applied to an install, one per line (mlx-sys's `build_info` and mlx-ab read it).
pub const PATCHES_FILE: &str = "PATCHES";
/// `sha256sum` lines of the patch files applied to an install.
pub const SERIES_FILE: &str = "SERIES";

pub struct Build<'a> {
    pub source: &'a Source,
    pub patches: &'a Selection,
    pub options: &'a BuildOptions,
    pub toolkit: Option<&'a Toolkit>,
}

impl Build<'_> {
    /// What the build is made of, in the order of the build key (`target`: the target triple).
    pub fn facts(&self, target: &str) -> Vec<(&'static str, String)> {
        let flags: Vec<String> = cmake_flags::definitions(self.options)
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let compiler = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
        let mut facts = vec![
            ("source", self.source.origin.clone()),
            ("source digest", self.source.digest.clone()),
            ("patches", self.patches.fingerprint()),
            ("flags", flags.join(" ")),
            ("compiler", cache::tool_version(&compiler)),
            ("cmake", cache::tool_version("cmake")),
            ("target", target.to_string()),
        ];
        if let Some(toolkit) = self.toolkit {
            facts.push(("cuda", toolkit.versions.clone()));
        }
        facts
    }

    /// Builds in `tree` and installs into `prefix` (which may be `tree`). A tree that already
    /// holds a build is reused: only source files whose bytes change are rewritten, so building
    /// another patch set there recompiles only what its patches touch. Returns cmake's seconds.
    pub fn run(&self, tree: &Path, prefix: &Path, label: &str) -> Fallible<f64> {
        let changed = prepare_source(self.source, self.patches, &tree.join("mlx"))?;
        if let Some(changed) = changed {
            eprintln!("{label}: {changed} source file(s) changed in {}", tree.display());
        }
        let seconds = cmake_build::build(tree, prefix, self.options, self.toolkit, label)?;
        self.finish_install(tree, prefix)?;
        Ok(seconds)
    }

    fn finish_install(&self, tree: &Path, prefix: &Path) -> Fallible<()> {
        let write = |name: &str, text: String| {
            fs::write(prefix.join(name), text).map_err(|e| format!("writing {name}: {e}"))
        };
        write(PATCHES_FILE, self.patches.series_ids().join("\n"))?;
        write(SERIES_FILE, self.patches.sha256_lines())?;
        if matches!(self.options.backend, Backend::Cuda { .. }) {
            install_jit_headers(prefix, self.toolkit)?;
        }
        // MLX's C++ suite, where scripts find it (a cache entry keeps it in its build tree).
        if self.options.cpp_suite && tree != prefix {
            let bin = prefix.join("bin");
            fs::create_dir_all(&bin).map_err(|e| format!("creating {}: {e}", bin.display()))?;
            fs::copy(tree.join("build/tests/tests"), bin.join("mlx-suite"))
                .map_err(|e| format!("installing MLX's C++ suite: {e}"))?;
        }
        Ok(())
    }
}

/// Puts the source with its patches into `dest`: directly into a new tree, through a scratch
/// copy and a sync into an existing one (then returns how many files changed).
fn prepare_source(source: &Source, patches: &Selection, dest: &Path) -> Fallible<Option<usize>> {
    if !dest.exists() {
        copy_tree(&source.dir, dest)?;
        patches::apply_all(dest, patches)?;
        return Ok(None);
    }
    let scratch = dest.with_extension("next");
    if scratch.exists() {
        fs::remove_dir_all(&scratch).map_err(|e| format!("removing {}: {e}", scratch.display()))?;
    }
    copy_tree(&source.dir, &scratch)?;
    patches::apply_all(&scratch, patches)?;
    let changed = sync_tree(&scratch, dest)?;
    fs::remove_dir_all(&scratch).map_err(|e| format!("removing {}: {e}", scratch.display()))?;
    Ok(Some(changed))
}

/// MLX's CUDA JIT compiles against CCCL's `cuda/` and `nv/` headers in `include/cccl`. On the
/// H200 (2026-11-30) `cmake --install` left them out (not yet understood; the JIT found them
/// only through the source path a suite build compiles in): copied from the dependency source.
fn install_jit_headers(prefix: &Path, toolkit: Option<&Toolkit>) -> Fallible<()> {
    let cccl = prefix.join("include/cccl");
    if cccl.is_dir() {
        return Ok(());
    }
    let source = toolkit.and_then(|t| t.dep("CCCL")).map(|d| d.join("include")).ok_or(
        "the install has no include/cccl (CUDA JIT headers) and no CCCL source was given \
         (MLX_CUDA_DEPS_DIR)",
    )?;
    eprintln!("install: no include/cccl from cmake --install; copying CCCL's cuda/ and nv/");
    for part in ["cuda", "nv"] {
        copy_tree(&source.join(part), &cccl.join(part))?;
    }
    Ok(())
}
