//! Build script of `mlx-sys`: get MLX source, apply the selected patches, build MLX with cmake
//! (cached outside `target/`), link it, and compile the cxx bridge against it.
//!
//! Environment (each one is part of the cache key or of the source it selects):
//! - `MLX_SRC_DIR`: build this MLX checkout instead of the pinned v0.32.4 source.
//! - `MLX_EXTRA_PATCHES`: more patch files (path-list syntax), applied after the series.
//! - `MLX_AB_CACHE_DIR`: where builds are cached (default `$XDG_CACHE_HOME/mlx-ab` or
//!   `~/.cache/mlx-ab`).
//! - With the `cuda` feature: `MLX_CUDA_ARCHITECTURES` (default: MLX detects this machine's GPU),
//!   `MLX_CUDA_DEPS_DIR` (unpacked sources of MLX's CUDA dependencies, for offline builds),
//!   `CUDA_HOME`, `CUDNN_ROOT`.
//! - `MLX_SANITIZE`: `address,undefined` or `thread` instruments MLX and the shim (own cache
//!   key) and links the sanitizers' runtimes into every program (`scripts/sanitize`).

mod cmake_build;
mod cuda;
mod patches;
mod progress;
mod source;

use std::env;
use std::fs;
use std::path::{Path, PathBuf};

use mlx_build::cache::{self, BuildSpec, Cache};
use mlx_build::cmake_flags;

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
        "MLX_EXTRA_PATCHES",
        "MLX_AB_CACHE_DIR",
        "CXX",
        "CC",
        "MLX_CUDA_ARCHITECTURES",
        "MLX_CUDA_DEPS_DIR",
        "CUDA_HOME",
        "CUDNN_ROOT",
        mlx_build::sanitize::ENV,
    ] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    for path in ["build", "pristine/Cargo.toml", "pristine/Cargo.lock", "pristine/SOURCE_DIGEST"] {
        println!("cargo:rerun-if-changed={}", manifest_dir.join(path).display());
    }
    println!("cargo:rerun-if-changed={}", repo_root.join("patches").display());

    // A CUDA build checks the machine first: one clear error before any work.
    let toolkit = match env::var_os("CARGO_FEATURE_CUDA") {
        Some(_) => Some(cuda::locate()?),
        None => None,
    };
    let options = cmake_build::options(toolkit.as_ref())?;
    let cache = Cache::open()?;
    let source = source::locate(&manifest_dir, &cache)?;
    let selected = patches::select(&repo_root.join("patches"))?;
    let flags: Vec<String> =
        cmake_flags::definitions(&options).iter().map(|(k, v)| format!("{k}={v}")).collect();
    let mut facts = vec![
        ("source", source.origin.clone()),
        ("source digest", source.digest.clone()),
        ("patches", selected.fingerprint()),
        ("flags", flags.join(" ")),
        ("compiler", cache::tool_version(&env::var("CXX").unwrap_or_else(|_| "c++".into()))),
        ("cmake", cache::tool_version("cmake")),
        ("target", env::var("TARGET").unwrap_or_default()),
    ];
    if let Some(toolkit) = &toolkit {
        facts.push(("cuda", toolkit.versions.clone()));
    }
    let build = BuildSpec::new(&facts);
    let prefix = cache.build(&build, |staging| {
        source::copy_tree(&source.dir, &staging.join("mlx"))?;
        patches::apply_all(&staging.join("mlx"), &selected)?;
        cmake_build::build(staging, &build.key, &options, toolkit.as_ref())?;
        // Read at run time by programs that load this library (see mlx_sys::build_info).
        let ids = selected.series_ids().join("\n");
        fs::write(staging.join("PATCHES"), ids).map_err(|e| format!("writing PATCHES: {e}"))
    })?;

    write_build_info(&source, &selected, &build.key, &prefix, &options)?;
    let mut sanitize_flags = options.sanitize.map(|s| s.compile_flags()).unwrap_or_default();
    // cpp/shim_common.cc: the runtimes' defaults that make a finding fatal.
    if options.sanitize.is_some_and(|s| s.undefined) {
        sanitize_flags.push("-DMLX_SYS_UBSAN".into());
    }
    if options.sanitize.is_some_and(|s| s.thread) {
        sanitize_flags.push("-DMLX_SYS_TSAN".into());
    }
    // Before any other library (the bridge's own, libmlx's).
    if let Some(sanitize) = &options.sanitize {
        link_runtime(sanitize);
    }
    compile_bridge(&manifest_dir, &prefix.join("include"), &sanitize_flags)?;
    link_mlx(&prefix, options.shared_library())?;
    println!("cargo:root={}", prefix.display());
    println!("cargo:include={}", prefix.join("include").display());
    // Bridges of other crates (mlx-ext) include the shims' headers, and the safe crate reads
    // the op table (ops.def) there: DEP_MLX_SHIM_INCLUDE.
    println!("cargo:shim_include={}", manifest_dir.join("cpp").display());
    // mlx-ext compiles its C++ with the same sanitizers: DEP_MLX_SANITIZE.
    println!("cargo:sanitize={}", options.sanitize.map(|s| s.list()).unwrap_or_default());
    Ok(())
}

/// `src/build_info.rs` includes this: what was built, so programs can report it.
fn write_build_info(
    source: &source::Source,
    selected: &patches::Selection,
    key: &str,
    prefix: &Path,
    options: &cmake_flags::BuildOptions,
) -> Fallible<()> {
    let backend = match options.backend {
        cmake_flags::Backend::Cpu => "cpu",
        cmake_flags::Backend::Metal => "metal",
        cmake_flags::Backend::Cuda { .. } => "cuda",
    };
    let out = PathBuf::from(env::var("OUT_DIR").unwrap()).join("build_info.rs");
    let text = format!(
        "/// Patch ids of `patches/series` applied to this build, in series order.\n\
         pub const PATCHES: &[&str] = &{:?};\n\
         /// File names of extra patches (`MLX_EXTRA_PATCHES`) applied after the series.\n\
         pub const EXTRA_PATCHES: &[&str] = &{:?};\n\
         /// SHA-256 over the MLX source tree before patching (paths and bytes).\n\
         pub const SOURCE_DIGEST: &str = {:?};\n\
         /// Where the source came from: `pinned` (MLX v0.32.4) or an `MLX_SRC_DIR` path.\n\
         pub const SOURCE: &str = {:?};\n\
         /// The unpatched MLX source tree this build started from.\n\
         pub const SOURCE_DIR: &str = {:?};\n\
         /// Cache key of this MLX build (source, patches, flags, compiler).\n\
         pub const BUILD_KEY: &str = {:?};\n\
         /// This MLX build in the cache: install prefix, with `build/` (the cmake tree) in it.\n\
         pub const BUILD_DIR: &str = {:?};\n\
         /// The GPU backend built beside the CPU one: `cpu` (none), `cuda` or `metal`.\n\
         pub const BACKEND: &str = {:?};\n\
         /// Whether programs link `libmlx.so` (found at run time) rather than `libmlx.a`.\n\
         pub const SHARED: bool = {};\n\
         /// Sanitizers instrumenting this MLX and the shim (`MLX_SANITIZE`): `address,undefined`,\n\
         /// `thread`, or empty.\n\
         pub const SANITIZE: &str = {:?};\n",
        selected.series_ids(),
        selected.extra_names(),
        source.digest,
        source.origin,
        source.dir.display().to_string(),
        key,
        prefix.display().to_string(),
        backend,
        options.shared_library(),
        options.sanitize.map(|s| s.list()).unwrap_or_default(),
    );
    fs::write(&out, text).map_err(|e| format!("writing {}: {e}", out.display()))
}

/// Compiles every bridge module in `src/ffi/` with every shim in `cpp/`.
fn compile_bridge(manifest_dir: &Path, mlx_include: &Path, extra_flags: &[String]) -> Fallible<()> {
    // Relative paths (the build script runs in the manifest dir): cxx places each generated
    // header at `mlx-sys/<path>.h`, which the shims include.
    let bridges = sorted_files(Path::new("src/ffi"), "rs")?;
    let shims = sorted_files(Path::new("cpp"), "cc")?;
    println!("cargo:rerun-if-changed={}", manifest_dir.join("src/ffi").display());
    println!("cargo:rerun-if-changed={}", manifest_dir.join("cpp").display());
    if bridges.is_empty() {
        return Ok(());
    }
    let mut build = cxx_build::bridges(&bridges);
    build
        .files(&shims)
        .include(mlx_include)
        .include(manifest_dir.join("cpp"))
        .std("c++20")
        .flag_if_supported("-Wno-unused-parameter")
        .opt_level(2);
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
        for sub in ["lib", "include", "PATCHES"] {
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

pub use mlx_build::files::sorted_files;

/// Runs a command, turning a spawn failure or a non-zero exit into a message with its output.
pub fn run_command(cmd: &mut std::process::Command, what: &str) -> Fallible<String> {
    let output =
        cmd.output().map_err(|e| format!("{what}: could not run {:?}: {e}", cmd.get_program()))?;
    if !output.status.success() {
        return Err(format!(
            "{what} failed ({}):\n{}{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}
