//! `mlx-build`: builds MLX and tells this crate's facts, for shell scripts and machines
//! without cargo (packed for the GPU machine by scripts/gpu/pack).
//!
//!     mlx-build build --patches LIST --prefix DIR [--tree DIR] [--source DIR] [--extra-patch F]...
//!                     [--cuda] [--arch A] [--shared] [--cpp-suite] [--fetch-online]
//!                                            MLX with those patches, built in TREE (default
//!                                            PREFIX; a tree of an earlier build is reused and
//!                                            rebuilds only what changes) and installed into
//!                                            PREFIX/{include,lib,bin} with PATCHES and SERIES;
//!                                            the source: --source, else MLX_SRC_DIR, else the
//!                                            pinned v0.32.4 (the same code as mlx-sys's build)
//!     mlx-build apply-check --patches LIST [--source DIR]
//!                                            do those patches apply to the source (default: the
//!                                            pinned v0.32.4), each alone and all in order? Exit 1
//!                                            if not (an upstream pull request's check)
//!     mlx-build source --patches LIST --dest DIR [--source DIR]
//!                                            the source (default: the pinned v0.32.4) with
//!                                            those patches applied, copied into DIR (which
//!                                            must not exist): a patched tree for tools that
//!                                            compile single files (scripts/cuda_sass_diff.py)
//!     mlx-build patches LIST                 patch files (absolute), series order; LIST: all, none, ids
//!     mlx-build ids LIST                     patch ids, series order (an unknown id is an error)
//!     mlx-build env                          every environment variable the project reads, as the
//!                                            Markdown table README.md holds
//!     mlx-build pristine-source              the pinned MLX source in the build cache (staged by
//!                                            any build of mlx-sys without MLX_SRC_DIR)

use mlx_build::builder::Build;
use mlx_build::cache::Cache;
use mlx_build::cmake_flags::{Backend, BuildOptions};
use mlx_build::{cuda, patches, series, source};
use std::path::{Path, PathBuf};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(lines) => lines.iter().for_each(|l| println!("{l}")),
        Err(message) => {
            eprintln!("mlx-build: {message}");
            std::process::exit(2);
        }
    }
}

fn run(args: &[String]) -> Result<Vec<String>, String> {
    match args.split_first() {
        Some((cmd, rest)) if cmd == "patches" => {
            let [list] = rest else { return Err("usage: mlx-build patches all|none|ID,ID".into()) };
            let ids = series::parse_list(list)?;
            let dir = series::patch_dir()?.canonicalize().map_err(|e| format!("patches/: {e}"))?;
            Ok(series::entries()
                .into_iter()
                .filter(|e| ids.contains(&e.id))
                .map(|e| dir.join(e.file_name).display().to_string())
                .collect())
        }
        Some((cmd, [list])) if cmd == "ids" => {
            Ok(series::parse_list(list)?.into_iter().map(str::to_string).collect())
        }
        Some((cmd, [])) if cmd == "env" => {
            Ok(vec![mlx_build::env_vars::markdown().trim_end().to_string()])
        }
        Some((cmd, [])) if cmd == "pristine-source" => {
            let file =
                Path::new(env!("CARGO_MANIFEST_DIR")).join("../mlx-sys/pristine/SOURCE_DIGEST");
            let digest = std::fs::read_to_string(&file)
                .map_err(|e| format!("reading {}: {e}", file.display()))?;
            let cache = Cache::open()?;
            let dir = cache.staged_source(digest.trim()).ok_or_else(|| {
                format!(
                    "the pinned MLX source is not in the build cache {} yet: build mlx-sys once \
                     (cargo build -p mlx-sys)",
                    cache.root().display()
                )
            })?;
            Ok(vec![dir.display().to_string()])
        }
        Some((cmd, rest)) if cmd == "build" => build(rest).map(|prefix| vec![prefix]),
        Some((cmd, rest)) if cmd == "apply-check" => apply_check(rest),
        Some((cmd, rest)) if cmd == "source" => patched_source(rest).map(|dir| vec![dir]),
        _ => Err("usage: mlx-build build --patches LIST --prefix DIR [options] | \
                  mlx-build apply-check --patches LIST [--source DIR] | \
                  mlx-build source --patches LIST --dest DIR [--source DIR] | \
                  mlx-build patches LIST | mlx-build ids LIST | mlx-build env | mlx-build pristine-source"
            .into()),
    }
}

/// `mlx-build build ...`: the install prefix it filled.
fn build(args: &[String]) -> Result<String, String> {
    let (mut list, mut prefix, mut tree, mut checkout) = (None, None, None, None);
    let mut extra = Vec::new();
    let mut cuda = false;
    let mut options = BuildOptions {
        backend: Backend::Cpu,
        shared: false,
        cpp_suite: false,
        fetch_online: false,
        sanitize: None,
    };
    let mut arch = None;
    let mut args = args.iter();
    while let Some(flag) = args.next() {
        let mut value = || args.next().cloned().ok_or(format!("{flag} wants a value"));
        match flag.as_str() {
            "--patches" => list = Some(value()?),
            "--prefix" => prefix = Some(PathBuf::from(value()?)),
            "--tree" => tree = Some(PathBuf::from(value()?)),
            "--source" => checkout = Some(PathBuf::from(value()?)),
            "--extra-patch" => extra.push(PathBuf::from(value()?)),
            "--arch" => arch = Some(value()?),
            "--cuda" => cuda = true,
            "--shared" => options.shared = true,
            "--cpp-suite" => options.cpp_suite = true,
            "--fetch-online" => options.fetch_online = true,
            other => return Err(format!("build: unknown option {other}")),
        }
    }
    let list = list.ok_or("build: --patches all|none|ID,ID is required")?;
    let prefix = absolute(&prefix.ok_or("build: --prefix DIR is required")?)?;
    let tree = absolute(tree.as_ref().unwrap_or(&prefix))?;
    let toolkit = if cuda {
        options.backend = Backend::Cuda { architectures: arch };
        Some(cuda::locate()?)
    } else if arch.is_some() {
        return Err("--arch needs --cuda".into());
    } else {
        None
    };
    options.fetch_online |= toolkit.as_ref().is_some_and(|t| !t.offline());
    let checkout = checkout.or_else(|| std::env::var_os("MLX_SRC_DIR").map(PathBuf::from));
    let source = source::locate(checkout.as_deref(), &Cache::open()?)?;
    let selected = patches::select(&series::parse_list(&list)?, &extra)?;
    let build =
        Build { source: &source, patches: &selected, options: &options, toolkit: toolkit.as_ref() };
    std::fs::create_dir_all(&prefix).map_err(|e| format!("creating {}: {e}", prefix.display()))?;
    let target = format!("{}-{}", std::env::consts::ARCH, std::env::consts::OS);
    let spec = mlx_build::cache::BuildSpec::new(&build.facts(&target));
    build.run(&tree, &prefix, &format!("for {}", prefix.display()))?;
    std::fs::write(prefix.join(mlx_build::cache::SPEC_FILE), &spec.description)
        .map_err(|e| format!("writing the build spec: {e}"))?;
    Ok(prefix.display().to_string())
}

/// `mlx-build source ...`: the folder it filled.
fn patched_source(args: &[String]) -> Result<String, String> {
    let (mut list, mut dest, mut checkout) = (None, None, None);
    let mut args = args.iter();
    while let Some(flag) = args.next() {
        let mut value = || args.next().cloned().ok_or(format!("{flag} wants a value"));
        match flag.as_str() {
            "--patches" => list = Some(value()?),
            "--dest" => dest = Some(PathBuf::from(value()?)),
            "--source" => checkout = Some(PathBuf::from(value()?)),
            other => return Err(format!("source: unknown option {other}")),
        }
    }
    let list = list.ok_or("source: --patches all|none|ID,ID is required")?;
    let dest = absolute(&dest.ok_or("source: --dest DIR is required")?)?;
    if dest.exists() {
        return Err(format!("source: {} exists", dest.display()));
    }
    let source = source::locate(checkout.as_deref(), &Cache::open()?)?;
    let selected = patches::select(&series::parse_list(&list)?, &[])?;
    mlx_build::files::copy_tree(&source.dir, &dest)?;
    patches::apply_all(&dest, &selected)?;
    Ok(dest.display().to_string())
}

/// cmake runs in other folders: every path it gets is absolute.
fn absolute(path: &Path) -> Result<PathBuf, String> {
    std::path::absolute(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// `mlx-build apply-check ...`: one line per check; a failed check exits 1 after printing them.
fn apply_check(args: &[String]) -> Result<Vec<String>, String> {
    let (mut list, mut checkout) = (None, None);
    let mut args = args.iter();
    while let Some(flag) = args.next() {
        let mut value = || args.next().cloned().ok_or(format!("{flag} wants a value"));
        match flag.as_str() {
            "--patches" => list = Some(value()?),
            "--source" => checkout = Some(PathBuf::from(value()?)),
            other => return Err(format!("apply-check: unknown option {other}")),
        }
    }
    let list = list.ok_or("apply-check: --patches all|ID,ID is required")?;
    let checkout = checkout.or_else(|| std::env::var_os("MLX_SRC_DIR").map(PathBuf::from));
    let source = source::locate(checkout.as_deref(), &Cache::open()?)?;
    let selected = patches::select(&series::parse_list(&list)?, &[])?;
    let scratch = std::env::temp_dir().join(format!(
        "mlx-build-apply-check-{}-{}",
        std::process::id(),
        source.digest
    ));
    let (lines, ok) = mlx_build::apply_check::check(&source.dir, &selected, &scratch)?;
    let mut lines = lines;
    lines.insert(0, format!("source: {} (digest {})", source.origin, &source.digest[..16]));
    if !ok {
        lines.iter().for_each(|l| println!("{l}"));
        std::process::exit(1);
    }
    Ok(lines)
}
