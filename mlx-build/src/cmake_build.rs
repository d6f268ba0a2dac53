//! Configures, builds and installs MLX with cmake: Release, the flags of
//! `cmake_flags::definitions`, offline unless a CUDA build is given no dependency sources. The
//! generator is cmake's default or `CMAKE_GENERATOR`; MLX's own CMakeLists uses ccache when
//! present.

use crate::cmake_flags::{self, BuildOptions};
use crate::cuda::Toolkit;
use crate::files::copy_tree;
use crate::progress::Progress;
use crate::Fallible;
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Builds `tree/mlx` in `tree/build` and installs it into `prefix` (`include/`, `lib/`); cmake's
/// output goes to `tree/build/cmake.log`, whose end a failure quotes. `label` names the build in
/// progress lines. Returns the seconds it took.
pub fn build(
    tree: &Path,
    prefix: &Path,
    options: &BuildOptions,
    toolkit: Option<&Toolkit>,
    label: &str,
) -> Fallible<f64> {
    let build_dir = tree.join("build");
    fs::create_dir_all(&build_dir).map_err(|e| format!("creating {}: {e}", build_dir.display()))?;
    let log = build_dir.join("cmake.log");
    let mut configure = Command::new("cmake");
    configure.arg("-S").arg(tree.join("mlx")).arg("-B").arg(&build_dir);
    for (name, value) in definitions(tree, prefix, options, toolkit)? {
        configure.arg(format!("-D{name}={}", value.display()));
    }
    // Paths relative to the tree let ccache reuse objects across trees (build keys, arms).
    configure.env("CCACHE_BASEDIR", tree);
    let mut compile = Command::new("cmake");
    compile.arg("--build").arg(&build_dir).arg("--parallel").arg(jobs().to_string());
    compile.env("CCACHE_BASEDIR", tree);
    let mut install = Command::new("cmake");
    install.arg("--install").arg(&build_dir).arg("--prefix").arg(prefix);

    let started = std::time::Instant::now();
    let progress = Progress::watch(build_dir.clone(), format!("building MLX {label}"));
    let result =
        [(&mut configure, "configure"), (&mut compile, "build"), (&mut install, "install")]
            .into_iter()
            .try_for_each(|(cmd, step)| logged(cmd, &log, step));
    drop(progress);
    result?;
    let seconds = started.elapsed().as_secs_f64();
    eprintln!("built MLX {label} in {seconds:.0} s");
    Ok(seconds)
}

/// Every `-D` of the configure step: the build's flags, then this machine's paths.
fn definitions(
    tree: &Path,
    prefix: &Path,
    options: &BuildOptions,
    toolkit: Option<&Toolkit>,
) -> Fallible<Vec<(String, PathBuf)>> {
    let mut defs: Vec<(String, PathBuf)> =
        cmake_flags::definitions(options).into_iter().map(|(k, v)| (k, v.into())).collect();
    defs.push(("CMAKE_INSTALL_PREFIX".into(), prefix.to_path_buf()));
    let json = match toolkit.and_then(|t| t.dep("JSON")) {
        Some(dir) => dir.to_path_buf(),
        None => stage_nlohmann_json(&tree.join("deps/json"))?,
    };
    defs.push(("FETCHCONTENT_SOURCE_DIR_JSON".into(), json));
    if let Some(toolkit) = toolkit {
        defs.push(("CMAKE_CUDA_COMPILER".into(), toolkit.cuda_home.join("bin/nvcc")));
        defs.push(("CUDAToolkit_ROOT".into(), toolkit.cuda_home.clone()));
        defs.push(("CUDNN_INCLUDE_PATH".into(), toolkit.cudnn_root.join("include")));
        defs.push(("CUDNN_LIBRARY_PATH".into(), toolkit.cudnn_root.join("lib")));
        for (name, dir) in toolkit.deps.iter().filter(|(n, _)| n != "JSON") {
            defs.push((format!("FETCHCONTENT_SOURCE_DIR_{name}"), dir.clone()));
        }
    }
    if let Some(metallib_dir) = metallib_dir(tree) {
        // MLX compiles this path in; keep it outside a cache entry's directory that gets renamed.
        defs.push(("MLX_METAL_PATH".into(), metallib_dir));
    }
    if options.cpp_suite && toolkit.and_then(|t| t.dep("DOCTEST")).is_none() {
        defs.push((
            "FETCHCONTENT_SOURCE_DIR_DOCTEST".into(),
            stage_doctest(&tree.join("deps/doctest"))?,
        ));
    }
    Ok(defs)
}

/// `NUM_JOBS` (cargo sets it for build scripts), else every core.
fn jobs() -> usize {
    std::env::var("NUM_JOBS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Runs one cmake step with its output appended to `log`; a failure quotes the log's end.
fn logged(cmd: &mut Command, log: &Path, step: &str) -> Fallible<()> {
    let file = File::options()
        .create(true)
        .append(true)
        .open(log)
        .map_err(|e| format!("opening {}: {e}", log.display()))?;
    let err = file.try_clone().map_err(|e| e.to_string())?;
    let status = cmd
        .stdout(Stdio::from(file))
        .stderr(Stdio::from(err))
        .status()
        .map_err(|e| format!("running cmake ({step}): {e}. Install cmake."))?;
    if status.success() {
        return Ok(());
    }
    let text = fs::read_to_string(log).unwrap_or_default();
    let tail: Vec<&str> = text.lines().rev().take(40).collect();
    let tail: Vec<&str> = tail.into_iter().rev().collect();
    Err(format!(
        "cmake could not {step} MLX ({status}); the end of {}:\n{}\n\n\
         Needed on Debian: cmake g++ libopenblas-dev liblapacke-dev libfmt-dev \
         nlohmann-json3-dev (ccache recommended).",
        log.display(),
        tail.join("\n")
    ))
}

/// Not run here: where a macOS build puts `mlx.metallib`, beside the cache's `builds/`.
fn metallib_dir(tree: &Path) -> Option<PathBuf> {
    let macos = cfg!(target_os = "macos");
    let key = tree.file_stem()?.to_string_lossy().into_owned();
    macos.then(|| tree.parent()?.parent().map(|cache| cache.join("metallib").join(key))).flatten()
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
    copy_tree(system, &dir.join("single_include/nlohmann"))?;
    fs::write(dir.join("README"), "staged copy of the system nlohmann-json headers\n")
        .map_err(|e| e.to_string())?;
    Ok(dir.to_path_buf())
}
