//! Configures and builds MLX with the `cmake` crate: Release, CPU backend (Metal on macOS),
//! offline (no FetchContent downloads), ccache when present.

use crate::progress::Progress;
use crate::Fallible;
use std::fs;
use std::path::{Path, PathBuf};

/// CMake definitions; part of the cache key. FetchContent is pointed at a staged copy of the
/// system nlohmann-json, so nothing is downloaded.
pub fn configure_flags() -> Vec<String> {
    let metal = std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("macos");
    let mut flags: Vec<String> = [
        "CMAKE_BUILD_TYPE=Release",
        "BUILD_SHARED_LIBS=OFF",
        "MLX_BUILD_EXAMPLES=OFF",
        "MLX_BUILD_BENCHMARKS=OFF",
        "MLX_BUILD_PYTHON_BINDINGS=OFF",
        "MLX_BUILD_CPU=ON",
        "MLX_BUILD_GGUF=OFF",
        "MLX_BUILD_SAFETENSORS=ON",
        "USE_SYSTEM_FMT=ON",
    ]
    .map(String::from)
    .to_vec();
    // Not run here: the Metal backend fetches metal-cpp at configure time, so only Linux is
    // built fully offline.
    flags.push(format!("FETCHCONTENT_FULLY_DISCONNECTED={}", if metal { "OFF" } else { "ON" }));
    // MLX's own C++ suite (doctest), built beside the library when asked for.
    flags.push(format!("MLX_BUILD_TESTS={}", if cpp_suite() { "ON" } else { "OFF" }));
    // Not run here: on macOS MLX builds its Metal backend (needs Xcode's metal tool).
    flags.push(format!("MLX_BUILD_METAL={}", if metal { "ON" } else { "OFF" }));
    flags
}

/// Builds `staging/mlx` in `staging/build` and installs into `staging` (`include/`, `lib/`).
pub fn build(staging: &Path, key: &str) -> Fallible<()> {
    let json = stage_nlohmann_json(&staging.join("deps/json"))?;
    let mut config = cmake::Config::new(staging.join("mlx"));
    config.out_dir(staging).profile("Release").no_default_flags(true);
    for flag in configure_flags() {
        let (name, value) = flag.split_once('=').unwrap();
        config.define(name, value);
    }
    config.define("FETCHCONTENT_SOURCE_DIR_JSON", &json);
    if let Some(metallib_dir) = metallib_dir(staging, key) {
        // MLX compiles this path in; keep it outside the directory that gets renamed.
        config.define("MLX_METAL_PATH", metallib_dir);
    }
    if cpp_suite() {
        config.define("FETCHCONTENT_SOURCE_DIR_DOCTEST", stage_doctest(&staging.join("deps/doctest"))?);
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

fn cpp_suite() -> bool {
    std::env::var_os("CARGO_FEATURE_CPP_SUITE").is_some()
}

/// MLX's tests declare doctest with FetchContent; Debian's doctest-dev serves as its source.
fn stage_doctest(dir: &Path) -> Fallible<PathBuf> {
    let cmake_dir = ["/usr/lib/cmake/doctest", "/usr/local/lib/cmake/doctest", "/usr/share/doctest/cmake"]
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
    let system = ["/usr/include/nlohmann", "/usr/local/include/nlohmann", "/opt/homebrew/include/nlohmann"]
        .iter()
        .map(Path::new)
        .find(|d| d.join("json.hpp").is_file())
        .ok_or("nlohmann/json.hpp not found: install nlohmann-json3-dev (Debian) or nlohmann-json")?;
    crate::source::copy_tree(system, &dir.join("single_include/nlohmann"))?;
    fs::write(dir.join("README"), "staged copy of the system nlohmann-json headers\n")
        .map_err(|e| e.to_string())?;
    Ok(dir.to_path_buf())
}
