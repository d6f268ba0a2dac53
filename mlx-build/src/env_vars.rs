//! Every environment variable this project reads or sets, in one table: `mlx-build env` prints
//! it as Markdown, README.md holds that output (a test of this crate compares them), and a test
//! fails when Rust code reads a variable the table does not list.

/// Who reads the variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reader {
    /// mlx-sys's build script (through this crate): changes what is built.
    Build,
    /// The A/B harness (`mlx-ab`) or its workers.
    Harness,
    /// MLX itself at run time; the harness sets or records it.
    Mlx,
    /// The tests of this workspace.
    Tests,
}

impl Reader {
    fn label(self) -> &'static str {
        match self {
            Reader::Build => "build",
            Reader::Harness => "mlx-ab",
            Reader::Mlx => "MLX (run time)",
            Reader::Tests => "tests",
        }
    }
}

pub struct EnvVar {
    pub name: &'static str,
    pub reader: Reader,
    pub effect: &'static str,
}

const fn var(name: &'static str, reader: Reader, effect: &'static str) -> EnvVar {
    EnvVar { name, reader, effect }
}

pub const VARIABLES: &[EnvVar] = &[
    var("MLX_SRC_DIR", Reader::Build, "build this MLX checkout (for example MLX main) instead of pinned v0.32.4"),
    var("MLX_PREFIX", Reader::Build, "link this installed MLX (`mlx-build build --prefix`, a cache entry) instead of building one; refused unless its `PATCHES` (and `SERIES`, where it has one) are the patches the features select"),
    var("MLX_EXTRA_PATCHES", Reader::Build, "more patch files (`:`-separated), applied after the selected series"),
    var("MLX_BUILD_CACHE", Reader::Build, "the build cache, shared by builds, arms and JIT kernel folders (default `$XDG_CACHE_HOME/mlx-ab` or `~/.cache/mlx-ab`)"),
    var("MLX_AB_CACHE_DIR", Reader::Build, "the former name of `MLX_BUILD_CACHE`, read where that is unset"),
    var("MLX_SANITIZE", Reader::Build, "`address,undefined` or `thread`: an instrumented build of MLX and the C++ beside it, under its own cache key (`scripts/sanitize`)"),
    var("MLX_CUDA_ARCHITECTURES", Reader::Build, "`cuda` feature: GPU architectures (default: MLX detects the build machine's GPU)"),
    var("MLX_CUDA_DEPS_DIR", Reader::Build, "`cuda` feature: unpacked sources of MLX's CUDA dependencies (folders `cccl`, `nvtx3`, `cudnn-frontend`, `cutlass`, `fmt`, ...) for an offline build; without it FetchContent downloads them, as upstream does"),
    var("CUDA_HOME", Reader::Build, "`cuda` feature: the toolkit (default: `CUDA_PATH`, else `nvcc` on `PATH`, else `/usr/local/cuda`)"),
    var("CUDA_PATH", Reader::Build, "`cuda` feature: the toolkit, where `CUDA_HOME` is unset"),
    var("CUDNN_ROOT", Reader::Build, "`cuda` feature: cuDNN (default: the `nvidia-cudnn` wheel of `python3`, else `/usr`)"),
    var("MLX_AB_COMMIT", Reader::Harness, "the commit reports name as `repo_commit` (default: `git rev-parse HEAD` of the workspace); `scripts/gpu/run` sets it to the commit `scripts/gpu/pack` packed, since the device copy's git HEAD is not the binaries'"),
    var("MLX_AB_WORKSPACE", Reader::Harness, "the checkout arms are built from (default: the nearest folder above the current directory, or above the `mlx-ab` binary, holding `rust/mlx-ab/Cargo.toml`)"),
    var("MLX_AB_WORKER_ABORT_AT_RUN", Reader::Harness, "test-only fault injection, read only by a worker built with the `fault-injection` feature (`mlx-ab build-worker --fault-injection`): the worker aborts at that run (counting from 1), as a crashing MLX would"),
    var("MLX_AB_WORKER_HANG_AT_RUN", Reader::Harness, "test-only fault injection, read only by a worker built with the `fault-injection` feature: the worker hangs at that run"),
    var("MLX_PTX_CACHE_DIR", Reader::Mlx, "where MLX's CUDA backend keeps JIT-compiled kernels; `mlx-ab` gives each arm its own folder under the build cache"),
    var("MLX_CUDA_USE_CUDNN_SDPA", Reader::Mlx, "`0`: attention without cuDNN; `--deterministic` sets it in every worker"),
    var("MLX_FUZZ_CASES", Reader::Tests, "cases of the differential fuzz tests (default: the short mode CI runs; 10000: the long mode)"),
    var("MLX_FUZZ_SEED", Reader::Tests, "replays a fuzz run (every run prints its seed)"),
    var("MLX_STRESS_GRAPHS", Reader::Tests, "graphs per thread of `thread_stress` (default 25)"),
    var("MLX_TESTS_DEVICE", Reader::Tests, "`gpu`: the differential tests against a stock process (random graphs, gather_qmm cases) run on the GPU, the stock helper too (`scripts/gpu/run`)"),
    var("MLX_TESTS_GRAPH_KINDS", Reader::Tests, "the random graph kinds compared with stock, e.g. `small,chain` (default: all; `scripts/gpu/run` leaves out `wide` on the GPU, where stock alone differs from itself)"),
    var("MLX_TESTS_STOCK_GRAPH_EVAL", Reader::Tests, "a prebuilt stock `graph-eval` for the differential tests (default: built with `--no-default-features`)"),
    var("MLX_TESTS_PYTHON", Reader::Tests, "the Python of the mlx-lm parity test (default `python3`)"),
    var("MLX_TESTS_UPSTREAM_CHILD", Reader::Tests, "internal: marks the child process of `upstream_bugs`"),
    var("MLX_TESTS_SANITIZER_PROBE", Reader::Tests, "internal: marks the child process of `sanitizers`"),
];

/// The table as Markdown, as README.md holds it.
pub fn markdown() -> String {
    let mut out = String::from("| variable | read by | effect |\n|---|---|---|\n");
    for v in VARIABLES {
        out += &format!("| `{}` | {} | {} |\n", v.name, v.reader.label(), v.effect);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::path::{Path, PathBuf};

    fn repo() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
    }

    /// The table between README's markers.
    fn readme_table() -> String {
        let readme = fs::read_to_string(repo().join("README.md")).unwrap();
        let start = "<!-- mlx-build env: begin -->\n";
        let from =
            readme.find(start).expect("README has the env table's begin marker") + start.len();
        let to = from + readme[from..].find("<!-- mlx-build env: end -->").expect("and its end");
        readme[from..to].to_string()
    }

    #[test]
    fn readme_holds_the_table() {
        assert!(
            readme_table() == markdown(),
            "README.md's environment table is not `mlx-build env`'s output: paste \
             `cargo run -q -p mlx-build -- env` between its markers"
        );
    }

    /// `var("X")`, `var_os("X")` and `env_number("X")` calls in the workspace's Rust code.
    fn variables_read_in(dir: &Path, found: &mut Vec<(String, PathBuf)>) {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy();
            if path.is_dir() {
                if !name.starts_with('.') && name != "target" {
                    variables_read_in(&path, found);
                }
            } else if name.ends_with(".rs") {
                let text = fs::read_to_string(&path).unwrap();
                for call in ["var(\"", "var_os(\"", "env_number(\""] {
                    for (i, _) in text.match_indices(call) {
                        let rest = &text[i + call.len()..];
                        let var = &rest[..rest.find('"').unwrap()];
                        if var.starts_with("MLX_") || var.starts_with("CUD") {
                            found.push((var.to_string(), path.clone()));
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn every_variable_read_is_in_the_table() {
        let mut found = Vec::new();
        for dir in ["mlx-build", "mlx-sys", "mlx-ext", "rust", "tests", "benches"] {
            variables_read_in(&repo().join(dir), &mut found);
        }
        assert!(found.len() >= 10, "the scan found too few reads to be working: {found:?}");
        let missing: Vec<_> =
            found.iter().filter(|(v, _)| VARIABLES.iter().all(|t| t.name != v)).collect();
        assert!(missing.is_empty(), "read but not in env_vars::VARIABLES: {missing:?}");
    }

    #[test]
    fn names_are_unique() {
        for (i, v) in VARIABLES.iter().enumerate() {
            assert!(VARIABLES[..i].iter().all(|w| w.name != v.name), "{} twice", v.name);
        }
    }
}
