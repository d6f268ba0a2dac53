//! Build script of `mlx-sys`: build MLX with the patches of the enabled features
//! (`mlx_build::builder`, the code `mlx-build build` runs too; cached outside `target/`), link
//! it, and compile the cxx bridge against it.
//!
//! Environment (each one is part of the cache key or of the source it selects):
//! - `MLX_SRC_DIR`: build this MLX checkout instead of the pinned v0.32.4 source.
//! - `MLX_PREFIX`: link this installed MLX (`mlx-build build --prefix`, a cache entry) instead of
//!   building one; it must have exactly the patches the features select (`PREFIX/PATCHES`).
//! - `MLX_EXTRA_PATCHES`: more patch files (path-list syntax), applied after the series.
//! - `MLX_BUILD_CACHE` (formerly `MLX_AB_CACHE_DIR`, still read): where builds are cached
//!   (default `$XDG_CACHE_HOME/mlx-ab` or `~/.cache/mlx-ab`).
//! - With the `cuda` feature: `MLX_CUDA_ARCHITECTURES` (default: MLX detects this machine's GPU),
//!   `MLX_CUDA_DEPS_DIR` (unpacked sources of MLX's CUDA dependencies, for offline builds),
//!   `CUDA_HOME`, `CUDNN_ROOT`.
//! - `MLX_SANITIZE`: `address,undefined` or `thread` instruments MLX and the shim (own cache
//!   key) and links the sanitizers' runtimes into every program (`scripts/sanitize`).

use std::env;
use std::fs;
use std::path::{Path, PathBuf};

use mlx_build::builder::Build;
use mlx_build::cache::{BuildSpec, Cache};
use mlx_build::cmake_flags::{Backend, BuildOptions};
use mlx_build::sanitize::{self, Sanitize};
use mlx_build::{cuda, patches, prefix, series, source};

/// A build-script failure: printed as one clear message saying what failed and what to do.
pub type Fallible<T> = mlx_build::Fallible<T>;

fn main() {
    if let Err(message) = run() {
        eprintln!("\nerror: mlx-sys could not build MLX\n\n{message}\n");
        std::process::exit(1);
    }
}

fn run() -> Fallible<()> {
    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let repo_root = manifest_dir.parent().unwrap().to_path_buf();
    for var in [
        "MLX_SRC_DIR",
        "MLX_PREFIX",
        "MLX_EXTRA_PATCHES",
        "MLX_BUILD_CACHE",
        "MLX_AB_CACHE_DIR",
        "CXX",
        "CC",
        "MLX_CUDA_ARCHITECTURES",
        "MLX_CUDA_DEPS_DIR",
        "CUDA_HOME",
        "CUDNN_ROOT",
        sanitize::ENV,
    ] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    for path in ["build", "pristine/Cargo.toml", "pristine/Cargo.lock", "pristine/SOURCE_DIGEST"] {
        println!("cargo:rerun-if-changed={}", manifest_dir.join(path).display());
    }
    println!("cargo:rerun-if-changed={}", repo_root.join("patches").display());

    // The series' patches whose cargo feature is on, then MLX_EXTRA_PATCHES.
    let ids: Vec<&str> = series::ids()
        .into_iter()
        .filter(|id| env::var_os(series::feature_env(id)).is_some())
        .collect();
    let extra = patches::extra_from_env();
    for path in &extra {
        println!("cargo:rerun-if-changed={}", path.display());
    }
    let selected = patches::select(&ids, &extra)?;
    let (prefix, info, sanitize) = match env::var_os(prefix::ENV) {
        Some(dir) => installed(Path::new(&dir), &selected)?,
        None => build(&selected)?,
    };
    write_build_info(&selected, &info)?;
    let mut sanitize_flags = sanitize.map(|s| s.compile_flags()).unwrap_or_default();
    // cpp/shim_common.cc: the runtimes' defaults that make a finding fatal.
    if sanitize.is_some_and(|s| s.undefined) {
        sanitize_flags.push("-DMLX_SYS_UBSAN".into());
    }
    if sanitize.is_some_and(|s| s.thread) {
        sanitize_flags.push("-DMLX_SYS_TSAN".into());
    }
    // Before any other library (the bridge's own, libmlx's).
    if let Some(sanitize) = &sanitize {
        link_runtime(sanitize);
    }
    compile_bridge(&manifest_dir, &prefix.join("include"), &sanitize_flags)?;
    link_mlx(&prefix, info.shared)?;
    println!("cargo:root={}", prefix.display());
    println!("cargo:include={}", prefix.join("include").display());
    // Bridges of other crates (mlx-ext) include the shims' headers, and the safe crate reads
    // the op table (ops.def) there: DEP_MLX_SHIM_INCLUDE.
    println!("cargo:shim_include={}", manifest_dir.join("cpp").display());
    // mlx-ext compiles its C++ with the same sanitizers: DEP_MLX_SANITIZE.
    println!("cargo:sanitize={}", info.sanitize);
    // The series' patches applied (comma separated): DEP_MLX_PATCHES, so crates that bind a
    // patch's additions follow the build without patch features of their own.
    println!("cargo:patches={}", ids.join(","));
    Ok(())
}

/// What `src/build_info.rs` tells programs about the MLX they link.
struct Info {
    source_digest: String,
    source_origin: String,
    source_dir: String,
    key: String,
    prefix: PathBuf,
    backend: &'static str,
    shared: bool,
    sanitize: String,
}

/// MLX built (or found in the cache) with the selected patches: its prefix, what it is, and the
/// sanitizers instrumenting it.
fn build(selected: &patches::Selection) -> Fallible<(PathBuf, Info, Option<Sanitize>)> {
    // A CUDA build checks the machine first: one clear error before any work.
    let toolkit = match env::var_os("CARGO_FEATURE_CUDA") {
        Some(_) => Some(cuda::locate()?),
        None => None,
    };
    let options = options(toolkit.is_some(), toolkit.as_ref().is_some_and(|t| !t.offline()))?;
    let cache = Cache::open()?;
    let checkout = env::var_os("MLX_SRC_DIR").map(PathBuf::from);
    if let Some(dir) = &checkout {
        println!("cargo:rerun-if-changed={}", dir.display());
    }
    let source = source::locate(checkout.as_deref(), &cache)?;
    let build =
        Build { source: &source, patches: selected, options: &options, toolkit: toolkit.as_ref() };
    let spec = BuildSpec::new(&build.facts(&env::var("TARGET").unwrap_or_default()));
    let prefix = cache.build(&spec, |staging| {
        let seconds = build.run(staging, staging, &spec.key)?;
        // Cargo replays a warning whenever it replays the build script's output.
        println!(
            "cargo:warning=built MLX (cache key {}) in {seconds:.0} s; later builds reuse it",
            spec.key
        );
        Ok(())
    })?;
    let info = Info {
        source_digest: source.digest.clone(),
        source_origin: source.origin.clone(),
        source_dir: source.dir.display().to_string(),
        key: spec.key.clone(),
        prefix: prefix.clone(),
        backend: match options.backend {
            Backend::Cpu => "cpu",
            Backend::Metal => "metal",
            Backend::Cuda { .. } => "cuda",
        },
        shared: options.shared_library(),
        sanitize: options.sanitize.map(|s| s.list()).unwrap_or_default(),
    };
    Ok((prefix, info, options.sanitize))
}

/// `MLX_PREFIX`: an installed MLX, linked as it is once it proves to have the selected patches.
fn installed(
    dir: &Path,
    selected: &patches::Selection,
) -> Fallible<(PathBuf, Info, Option<Sanitize>)> {
    println!("cargo:rerun-if-changed={}", dir.display());
    if Sanitize::from_env()?.is_some() {
        return Err(format!(
            "{}: sanitized builds are built here, not taken from {}",
            sanitize::ENV,
            prefix::ENV
        ));
    }
    let found = prefix::check(dir, selected)?;
    if env::var_os("CARGO_FEATURE_CUDA").is_some() && found.backend != "cuda" {
        return Err(format!(
            "{}={}: the `cuda` feature needs a CUDA build of MLX",
            prefix::ENV,
            dir.display()
        ));
    }
    let info = Info {
        source_digest: found.source_digest.clone().unwrap_or_else(|| "unknown".into()),
        source_origin: format!("{}={}", prefix::ENV, dir.display()),
        source_dir: String::new(),
        key: "installed".into(),
        prefix: found.dir.clone(),
        backend: found.backend,
        shared: found.shared,
        sanitize: String::new(),
    };
    Ok((found.dir, info, None))
}

/// This build's options, from mlx-sys's cargo features, `MLX_CUDA_ARCHITECTURES` and
/// `MLX_SANITIZE`.
fn options(cuda: bool, cuda_online: bool) -> Fallible<BuildOptions> {
    let feature = |name: &str| env::var_os(format!("CARGO_FEATURE_{name}")).is_some();
    let macos = env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("macos");
    let backend = match (cuda, macos) {
        (true, _) => Backend::Cuda {
            architectures: env::var("MLX_CUDA_ARCHITECTURES").ok().filter(|a| !a.is_empty()),
        },
        (false, true) => Backend::Metal,
        (false, false) => Backend::Cpu,
    };
    // Not run here: the Metal backend fetches metal-cpp at configure time; CUDA fetches its
    // dependencies when no MLX_CUDA_DEPS_DIR names local copies.
    let fetch_online = backend == Backend::Metal || cuda_online;
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

/// `src/build_info.rs` includes this: what was built, so programs can report it.
fn write_build_info(selected: &patches::Selection, info: &Info) -> Fallible<()> {
    let out = PathBuf::from(env::var("OUT_DIR").unwrap()).join("build_info.rs");
    let text = format!(
        "/// Patch ids of `patches/series` applied to this build, in series order.\n\
         pub const PATCHES: &[&str] = &{:?};\n\
         /// File names of extra patches (`MLX_EXTRA_PATCHES`) applied after the series.\n\
         pub const EXTRA_PATCHES: &[&str] = &{:?};\n\
         /// SHA-256 over the MLX source tree before patching (paths and bytes).\n\
         pub const SOURCE_DIGEST: &str = {:?};\n\
         /// Where the source came from: `pinned` (MLX v0.32.4), an `MLX_SRC_DIR` path, or\n\
         /// `MLX_PREFIX=DIR` (an installed MLX, linked as it is).\n\
         pub const SOURCE: &str = {:?};\n\
         /// The unpatched MLX source tree this build started from (empty for an installed MLX).\n\
         pub const SOURCE_DIR: &str = {:?};\n\
         /// Cache key of this MLX build (source, patches, flags, compiler); `installed` for\n\
         /// `MLX_PREFIX`.\n\
         pub const BUILD_KEY: &str = {:?};\n\
         /// This MLX build's install prefix (in the cache, with `build/`, the cmake tree, in it).\n\
         pub const BUILD_DIR: &str = {:?};\n\
         /// The GPU backend built beside the CPU one: `cpu` (none), `cuda` or `metal`.\n\
         pub const BACKEND: &str = {:?};\n\
         /// Whether programs link `libmlx.so` (found at run time) rather than `libmlx.a`.\n\
         pub const SHARED: bool = {};\n\
         /// Sanitizers instrumenting this MLX and the shim (`MLX_SANITIZE`): `address,undefined`,\n\
         /// `thread`, or empty.\n\
         pub const SANITIZE: &str = {:?};\n\
         /// Files mlx-build writes into an install prefix: the patch ids, the patch files'\n\
         /// `sha256sum` lines, and the build spec, whose line starting `SPEC_KEY_PREFIX` gives\n\
         /// the build key.\n\
         pub const PATCHES_FILE: &str = {:?};\n\
         pub const SERIES_FILE: &str = {:?};\n\
         pub const SPEC_FILE: &str = {:?};\n\
         pub const SPEC_KEY_PREFIX: &str = {:?};\n",
        selected.series_ids(),
        selected.extra_names(),
        info.source_digest,
        info.source_origin,
        info.source_dir,
        info.key,
        info.prefix.display().to_string(),
        info.backend,
        info.shared,
        info.sanitize,
        mlx_build::builder::PATCHES_FILE,
        mlx_build::builder::SERIES_FILE,
        mlx_build::cache::SPEC_FILE,
        mlx_build::cache::SPEC_KEY_PREFIX,
    );
    fs::write(&out, text).map_err(|e| format!("writing {}: {e}", out.display()))
}

/// Compiles every bridge module in `src/ffi/` with every shim in `cpp/`.
fn compile_bridge(manifest_dir: &Path, mlx_include: &Path, extra_flags: &[String]) -> Fallible<()> {
    // Relative paths (the build script runs in the manifest dir): cxx places each generated
    // header at `mlx-sys/<path>.h`, which the shims include.
    let bridges = mlx_build::files::sorted_files(Path::new("src/ffi"), "rs")?;
    let shims = mlx_build::files::sorted_files(Path::new("cpp"), "cc")?;
    println!("cargo:rerun-if-changed={}", manifest_dir.join("src/ffi").display());
    println!("cargo:rerun-if-changed={}", manifest_dir.join("cpp").display());
    if bridges.is_empty() {
        return Ok(());
    }
    // MLX's headers and the shims' are on the include path of every crate that compiles C++
    // against this one with cxx-build (mlx-ext): cxx-build's exported header dirs.
    let leak = |p: PathBuf| -> &'static Path { Box::leak(p.into_boxed_path()) };
    cxx_build::CFG.exported_header_dirs.push(leak(mlx_include.to_path_buf()));
    cxx_build::CFG.exported_header_dirs.push(leak(manifest_dir.join("cpp")));
    let mut build = cxx_build::bridges(&bridges);
    build.files(&shims).std("c++20").flag_if_supported("-Wno-unused-parameter").opt_level(2);
    for flag in extra_flags {
        build.flag(flag);
    }
    build.compile("mlx_sys_bridge");
    Ok(())
}

/// Sanitized C++ needs the sanitizers' runtimes in every program that links it. rustc links
/// with `-nodefaultlibs`, under which the compiler driver adds no runtime for `-fsanitize=`,
/// and a library's build script cannot give its dependents link arguments, but it can give
/// them libraries: printed first, they are the first libraries the programs need, which ASan
/// requires (its interceptors must come before libc's). Build scripts, which link no mlx-sys,
/// stay uninstrumented.
fn link_runtime(sanitize: &mlx_build::sanitize::Sanitize) {
    for lib in sanitize.runtime_libs() {
        println!("cargo:rustc-link-lib=dylib={lib}");
    }
}

fn link_mlx(prefix: &Path, shared: bool) -> Fallible<()> {
    if shared {
        // cargo run / cargo test put link-search folders inside OUT_DIR on the loader's path:
        // link through links there, so `libmlx.so` is found without an rpath (which a build
        // script cannot give to other crates' binaries).
        let out = PathBuf::from(env::var("OUT_DIR").unwrap()).join("mlx");
        for sub in ["lib", "include", mlx_build::builder::PATCHES_FILE] {
            let link = out.join(sub);
            let _ = fs::remove_file(&link);
            fs::create_dir_all(&out).map_err(|e| format!("creating {}: {e}", out.display()))?;
            std::os::unix::fs::symlink(prefix.join(sub), &link)
                .map_err(|e| format!("linking {}: {e}", link.display()))?;
        }
        println!("cargo:rustc-link-search=native={}", out.join("lib").display());
        println!("cargo:rustc-link-lib=dylib=mlx");
        return Ok(());
    }
    println!("cargo:rustc-link-search=native={}", prefix.join("lib").display());
    println!("cargo:rustc-link-lib=static=mlx");
    if env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("macos") {
        // Not run here: MLX on macOS links Apple's frameworks (Metal build).
        for framework in ["Metal", "Foundation", "QuartzCore", "Accelerate"] {
            println!("cargo:rustc-link-lib=framework={framework}");
        }
    } else {
        for lib in ["lapacke", "lapack", "openblas", "pthread", "dl"] {
            println!("cargo:rustc-link-lib={lib}");
        }
    }
    Ok(())
}
