//! `mlx-build`: this crate's facts for shell scripts (the GPU scripts build MLX with cmake
//! directly, on a machine without cargo).
//!
//!     mlx-build patches LIST                 patch files (absolute), series order; LIST: all, none, ids
//!     mlx-build env                          every environment variable the project reads, as the
//!                                            Markdown table README.md holds
//!     mlx-build pristine-source              the pinned MLX source in the build cache (staged by
//!                                            any build of mlx-sys without MLX_SRC_DIR)
//!     mlx-build cmake-flags [--cuda] [--arch A] [--shared] [--cpp-suite] [--fetch-online]
//!                           [--sanitize LIST]    LIST: as MLX_SANITIZE (address,undefined | thread)

use mlx_build::cache::Cache;
use mlx_build::cmake_flags::{definitions, Backend, BuildOptions};
use mlx_build::sanitize::Sanitize;
use mlx_build::series;
use std::path::Path;

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
            let dir = series::patch_dir().canonicalize().map_err(|e| format!("patches/: {e}"))?;
            Ok(series::entries()
                .into_iter()
                .filter(|e| ids.contains(&e.id))
                .map(|e| dir.join(e.file_name).display().to_string())
                .collect())
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
        Some((cmd, rest)) if cmd == "cmake-flags" => {
            let mut options = BuildOptions {
                backend: Backend::Cpu,
                shared: false,
                cpp_suite: false,
                fetch_online: false,
                sanitize: None,
            };
            let mut rest = rest.iter();
            let mut arch = None;
            while let Some(flag) = rest.next() {
                match flag.as_str() {
                    "--cuda" => options.backend = Backend::Cuda { architectures: None },
                    "--arch" => arch = Some(rest.next().ok_or("--arch wants a value")?.clone()),
                    "--shared" => options.shared = true,
                    "--cpp-suite" => options.cpp_suite = true,
                    "--fetch-online" => options.fetch_online = true,
                    "--sanitize" => {
                        let list = rest.next().ok_or("--sanitize wants a list")?;
                        options.sanitize = Sanitize::parse(list)?;
                    }
                    other => return Err(format!("unknown option {other}")),
                }
            }
            if let Backend::Cuda { architectures } = &mut options.backend {
                *architectures = arch;
            } else if arch.is_some() {
                return Err("--arch needs --cuda".into());
            }
            Ok(definitions(&options).into_iter().map(|(k, v)| format!("-D{k}={v}")).collect())
        }
        _ => Err("usage: mlx-build patches LIST | mlx-build env | mlx-build pristine-source | \
                  mlx-build cmake-flags [--cuda] [--arch A] \
                  [--shared] [--cpp-suite] [--fetch-online] [--sanitize LIST]"
            .into()),
    }
}
