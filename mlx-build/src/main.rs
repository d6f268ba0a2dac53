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
//!                                            the source (as for build) with
//!                                            those patches applied, copied into DIR (which
//!                                            must not exist): a patched tree for tools that
//!                                            compile single files (scripts/cuda_sass_diff.py)
//!     mlx-build patches LIST                 patch files (absolute), series order; LIST: all, none, ids
//!     mlx-build series --patches LIST [--extra-patch F]...
//!                                            the SERIES an install of those patches holds
//!                                            (`SHA256  FILE` a patch, in the order applied): is a
//!                                            prebuilt install (scripts/gpu/prebuild) this one?
//!     mlx-build ids LIST                     patch ids, series order (an unknown id is an error)
//!     mlx-build env                          every environment variable the project reads, as the
//!                                            Markdown table README.md holds
//!     mlx-build pristine-source              the pinned MLX source in the build cache, staged
//!                                            there first if no build has done it yet
//!     mlx-build cache-root                   the build cache's folder (MLX_BUILD_CACHE, ...), for
//!                                            scripts that keep files beside mlx-ab's (JIT kernels)

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
            let source = source::locate(None, &Cache::open()?)?;
            Ok(vec![source.dir.display().to_string()])
        }
        Some((cmd, [])) if cmd == "cache-root" => {
            Ok(vec![mlx_build::cache::root()?.display().to_string()])
        }
        Some((cmd, rest)) if cmd == "series" => {
            let flags = Flags::parse("series", rest, &["--patches", "--extra-patch"], &[])?;
            let selected = flags.patches(&flags.extra_patches()?)?;
            Ok(selected.sha256_lines().lines().map(str::to_string).collect())
        }
        Some((cmd, rest)) if cmd == "build" => build(rest).map(|prefix| vec![prefix]),
        Some((cmd, rest)) if cmd == "apply-check" => apply_check(rest),
        Some((cmd, rest)) if cmd == "source" => patched_source(rest).map(|dir| vec![dir]),
        _ => Err("usage: mlx-build build --patches LIST --prefix DIR [options] | \
                  mlx-build apply-check --patches LIST [--source DIR] | \
                  mlx-build source --patches LIST --dest DIR [--source DIR] | \
                  mlx-build patches LIST | mlx-build series --patches LIST [--extra-patch F]... | \
                  mlx-build ids LIST | mlx-build env | mlx-build pristine-source | \
                  mlx-build cache-root"
            .into()),
    }
}

/// A command's options: `--name VALUE` for the names it takes with a value (repeatable), and
/// bare switches; any other word is an error naming the command.
struct Flags {
    command: &'static str,
    values: Vec<(&'static str, String)>,
    switches: Vec<&'static str>,
}

impl Flags {
    fn parse(
        command: &'static str,
        args: &[String],
        valued: &[&'static str],
        switches: &[&'static str],
    ) -> Result<Flags, String> {
        let mut flags = Flags { command, values: Vec::new(), switches: Vec::new() };
        let mut args = args.iter();
        while let Some(flag) = args.next() {
            if let Some(&name) = valued.iter().find(|&&n| n == flag) {
                let value = args.next().ok_or(format!("{flag} wants a value"))?;
                flags.values.push((name, value.clone()));
            } else if let Some(&name) = switches.iter().find(|&&n| n == flag) {
                flags.switches.push(name);
            } else {
                return Err(format!("{command}: unknown option {flag}"));
            }
        }
        Ok(flags)
    }

    /// The last value of `name`.
    fn value(&self, name: &str) -> Option<&str> {
        self.values.iter().rev().find(|(n, _)| *n == name).map(|(_, v)| v.as_str())
    }

    fn all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.values.iter().filter(move |(n, _)| *n == name).map(|(_, v)| v.as_str())
    }

    fn required(&self, name: &str, what: &str) -> Result<&str, String> {
        self.value(name).ok_or(format!("{}: {name} {what} is required", self.command))
    }

    fn switch(&self, name: &str) -> bool {
        self.switches.contains(&name)
    }

    /// The `--extra-patch` files, absolute: the patch is applied from inside the tree.
    fn extra_patches(&self) -> Result<Vec<PathBuf>, String> {
        self.all("--extra-patch").map(|f| absolute(Path::new(f))).collect()
    }

    /// `--patches LIST`, as the selection of series patches it names.
    fn patches(&self, extra: &[PathBuf]) -> Result<patches::Selection, String> {
        patches::select(&series::parse_list(self.required("--patches", "all|none|ID,ID")?)?, extra)
    }

    /// The MLX source: `--source DIR`, else `MLX_SRC_DIR`, else the pinned v0.32.4.
    fn source(&self) -> Result<source::Source, String> {
        let checkout = self
            .value("--source")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("MLX_SRC_DIR").map(PathBuf::from));
        source::locate(checkout.as_deref(), &Cache::open()?)
    }
}

/// `mlx-build build ...`: the install prefix it filled.
fn build(args: &[String]) -> Result<String, String> {
    let flags = Flags::parse(
        "build",
        args,
        &["--patches", "--prefix", "--tree", "--source", "--extra-patch", "--arch"],
        &["--cuda", "--shared", "--cpp-suite", "--fetch-online"],
    )?;
    let mut options = BuildOptions {
        backend: Backend::Cpu,
        shared: flags.switch("--shared"),
        cpp_suite: flags.switch("--cpp-suite"),
        fetch_online: flags.switch("--fetch-online"),
        sanitize: None,
    };
    let selected = flags.patches(&flags.extra_patches()?)?;
    let arch = flags.value("--arch").map(String::from);
    let prefix = absolute(Path::new(flags.required("--prefix", "DIR")?))?;
    let tree = absolute(flags.value("--tree").map_or(&prefix, Path::new))?;
    let toolkit = if flags.switch("--cuda") {
        options.backend = Backend::Cuda { architectures: arch };
        Some(cuda::locate()?)
    } else if arch.is_some() {
        return Err("--arch needs --cuda".into());
    } else {
        None
    };
    options.fetch_online |= toolkit.as_ref().is_some_and(|t| !t.offline());
    let source = flags.source()?;
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
    let flags = Flags::parse("source", args, &["--patches", "--dest", "--source"], &[])?;
    let selected = flags.patches(&[])?;
    let dest = absolute(Path::new(flags.required("--dest", "DIR")?))?;
    if dest.exists() {
        return Err(format!("source: {} exists", dest.display()));
    }
    let source = flags.source()?;
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
    let flags = Flags::parse("apply-check", args, &["--patches", "--source"], &[])?;
    let selected = flags.patches(&[])?;
    let source = flags.source()?;
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
