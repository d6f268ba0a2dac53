//! Configures and builds MLX with the `cmake` crate: Release, CPU backend (Metal on macOS, CUDA
//! with the `cuda` feature), offline unless a CUDA build is given no dependency sources, ccache
//! when present. The flags themselves come from `mlx_build::cmake_flags`.

use crate::cuda::Toolkit;
use crate::progress::Progress;
use crate::Fallible;
use mlx_build::cmake_flags::{self, Backend, BuildOptions};
use mlx_build::sanitize::{self, Sanitize};
use std::fs;
use std::path::{Path, PathBuf};

/// This build's options, from mlx-sys's cargo features, `MLX_CUDA_ARCHITECTURES` and
/// `MLX_SANITIZE`.
pub fn options(toolkit: Option<&Toolkit>) -> Fallible<BuildOptions> {
    let feature = |name: &str| std::env::var_os(format!("CARGO_FEATURE_{name}")).is_some();
    let backend = if toolkit.is_some() {
        Backend::Cuda {
            architectures: std::env::var("MLX_CUDA_ARCHITECTURES").ok().filter(|a| !a.is_empty()),
        }
    } else if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("macos") {
        Backend::Metal
    } else {
        Backend::Cpu
    };
    // Not run here: the Metal backend fetches metal-cpp at configure time; CUDA fetches its
    // dependencies when no MLX_CUDA_DEPS_DIR names local copies.
    let fetch_online = backend == Backend::Metal || toolkit.is_some_and(|t| !t.offline());
    let sanitize = Sanitize::from_env()?;
    if sanitize.is_some() && backend != Backend::Cpu {
        return Err(format!("{}: sanitized builds are CPU-only (Linux)", sanitize::ENV));
    }
    Ok(BuildOptions {
        backend,
        shared: feature("SHARED"),
        cpp_suite: feature("CPP_SUITE"),
        fetch_online,
        sanitize,
    })
}

/// Builds `staging/mlx` in `staging/build` and installs into `staging` (`include/`, `lib/`).
pub fn build(
    staging: &Path,
    key: &str,
    options: &BuildOptions,
    toolkit: Option<&Toolkit>,
) -> Fallible<()> {
    let mut config = cmake::Config::new(staging.join("mlx"));
    config.out_dir(staging).profile("Release").no_default_flags(true);
    for (name, value) in cmake_flags::definitions(options) {
        config.define(name, value);
    }
    let json = match toolkit.and_then(|t| t.dep("JSON")) {
        Some(dir) => dir.to_path_buf(),
        None => stage_nlohmann_json(&staging.join("deps/json"))?,
    };
    config.define("FETCHCONTENT_SOURCE_DIR_JSON", &json);
    if let Some(toolkit) = toolkit {
        config.define("CMAKE_CUDA_COMPILER", toolkit.cuda_home.join("bin/nvcc"));
        config.define("CUDAToolkit_ROOT", &toolkit.cuda_home);
        config.define("CUDNN_INCLUDE_PATH", toolkit.cudnn_root.join("include"));
        config.define("CUDNN_LIBRARY_PATH", toolkit.cudnn_root.join("lib"));
        for (name, dir) in toolkit.deps.iter().filter(|(n, _)| n != "JSON") {
            config.define(format!("FETCHCONTENT_SOURCE_DIR_{name}"), dir);
        }
    }
    if let Some(metallib_dir) = metallib_dir(staging, key) {
        // MLX compiles this path in; keep it outside the directory that gets renamed.
        config.define("MLX_METAL_PATH", metallib_dir);
    }
    if options.cpp_suite && toolkit.and_then(|t| t.dep("DOCTEST")).is_none() {
        config.define(
            "FETCHCONTENT_SOURCE_DIR_DOCTEST",
            stage_doctest(&staging.join("deps/doctest"))?,
        );
    }
    // Paths relative to the staging dir let ccache reuse objects across build keys.
    config.env("CCACHE_BASEDIR", staging);
    let started = std::time::Instant::now();
    let progress = Progress::watch(staging.join("build"), format!("building MLX {key}"));
    // The cmake crate panics on failure; the message it prints names the failing step.
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| config.build()));
    drop(progress);
    match result {
        Ok(_) => {
            println!(
                "cargo:warning=built MLX (cache key {key}) in {:.0} s; later builds reuse it",
                started.elapsed().as_secs_f64()
            );
            Ok(())
        }
        Err(_) => Err(format!(
            "cmake could not configure or build MLX (see the cmake output above).\n\
             Needed on Debian: cmake g++ libopenblas-dev liblapacke-dev libfmt-dev \
             nlohmann-json3-dev (ccache recommended). Build tree: {}",
            staging.join("build").display()
        )),
    }
}

/// Not run here: where a macOS build puts `mlx.metallib`, beside the cache's `builds/`.
fn metallib_dir(staging: &Path, key: &str) -> Option<PathBuf> {
    let macos = std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("macos");
    macos.then(|| staging.parent().unwrap().parent().unwrap().join("metallib").join(key))
}

/// MLX's tests declare doctest with FetchContent; Debian's doctest-dev serves as its source.
fn stage_doctest(dir: &Path) -> Fallible<PathBuf> {
    let cmake_dir =
        ["/usr/lib/cmake/doctest", "/usr/local/lib/cmake/doctest", "/usr/share/doctest/cmake"]
            .iter()
            .map(Path::new)
            .find(|d| d.join("doctest.cmake").is_file())
            .ok_or("doctest's CMake scripts not found: install doctest-dev (Debian)")?;
    let include = ["/usr/include", "/usr/local/include"]
        .iter()
        .find(|d| Path::new(d).join("doctest/doctest.h").is_file())
        .ok_or("doctest/doctest.h not found: install doctest-dev (Debian)")?;
    fs::create_dir_all(dir.join("scripts/cmake")).map_err(|e| e.to_string())?;
    for script in ["doctest.cmake", "doctestAddTests.cmake"] {
        fs::copy(cmake_dir.join(script), dir.join("scripts/cmake").join(script))
            .map_err(|e| format!("staging {script}: {e}"))?;
    }
    let cmakelists = format!(
        "cmake_minimum_required(VERSION 3.16)\nproject(doctest LANGUAGES CXX)\n\
         add_library(doctest INTERFACE)\ntarget_include_directories(doctest INTERFACE {include})\n"
    );
    fs::write(dir.join("CMakeLists.txt"), cmakelists).map_err(|e| e.to_string())?;
    Ok(dir.to_path_buf())
}

/// MLX's CMake always declares nlohmann-json and reads `single_include/nlohmann/` from it.
fn stage_nlohmann_json(dir: &Path) -> Fallible<PathBuf> {
    let system =
        ["/usr/include/nlohmann", "/usr/local/include/nlohmann", "/opt/homebrew/include/nlohmann"]
            .iter()
            .map(Path::new)
            .find(|d| d.join("json.hpp").is_file())
            .ok_or(
                "nlohmann/json.hpp not found: install nlohmann-json3-dev (Debian) or nlohmann-json",
            )?;
    crate::source::copy_tree(system, &dir.join("single_include/nlohmann"))?;
    fs::write(dir.join("README"), "staged copy of the system nlohmann-json headers\n")
        .map_err(|e| e.to_string())?;
    Ok(dir.to_path_buf())
}
