//! What a CUDA build needs from the machine, checked before cmake runs: nvcc, cuDNN, and
//! (offline) the sources of MLX's CUDA dependencies. Anything missing is named in one error.

use crate::Fallible;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The FetchContent name of each dependency MLX's CUDA build declares, by the folder name of its
/// unpacked archive in `MLX_CUDA_DEPS_DIR` (the layout of `shared/cuda/deps`).
const DEPS: [(&str, &str, bool); 8] = [
    // (folder, FetchContent name, needed by a CUDA build)
    ("cccl", "CCCL", true),
    ("nvtx3", "NVTX3", true),
    ("cudnn-frontend", "CUDNN", true),
    ("cutlass", "CUTLASS", true),
    ("fmt", "FMT", true),
    ("json", "JSON", false),
    ("doctest", "DOCTEST", false),
    ("gguflib", "GGUFLIB", false),
];

pub struct Toolkit {
    pub cuda_home: PathBuf,
    pub cudnn_root: PathBuf,
    /// `FETCHCONTENT_SOURCE_DIR_<NAME>` for each dependency found in `MLX_CUDA_DEPS_DIR`.
    pub deps: Vec<(String, PathBuf)>,
    /// Facts for the build key: nvcc's and cuDNN's versions.
    pub versions: String,
}

impl Toolkit {
    pub fn offline(&self) -> bool {
        !self.deps.is_empty()
    }

    pub fn dep(&self, name: &str) -> Option<&Path> {
        self.deps.iter().find(|(n, _)| n == name).map(|(_, p)| p.as_path())
    }
}

pub fn locate() -> Fallible<Toolkit> {
    let mut missing = Vec::new();
    let cuda_home = cuda_home();
    let nvcc = cuda_home.join("bin/nvcc");
    if !nvcc.is_file() {
        missing.push(format!(
            "nvcc (looked for {}): install the CUDA toolkit, or set CUDA_HOME to it",
            nvcc.display()
        ));
    }
    let cudnn_root = cudnn_root();
    let cudnn_ok = cudnn_root.as_ref().is_some_and(|root| {
        root.join("include/cudnn.h").is_file()
            && std::fs::read_dir(root.join("lib")).is_ok_and(|mut d| {
                d.any(|e| {
                    e.is_ok_and(|e| e.file_name().to_string_lossy().starts_with("libcudnn.so"))
                })
            })
    });
    if !cudnn_ok {
        missing.push(format!(
            "cuDNN (include/cudnn.h and lib/libcudnn.so*{}): set CUDNN_ROOT, or install the \
             nvidia-cudnn pip wheel for this python3",
            cudnn_root.as_ref().map_or(String::new(), |r| format!(" under {}", r.display()))
        ));
    }
    let mut deps = Vec::new();
    if let Some(dir) = std::env::var_os("MLX_CUDA_DEPS_DIR").map(PathBuf::from) {
        for (folder, name, needed) in DEPS {
            let path = dir.join(folder);
            // An unpacked archive: a non-empty folder (CCCL's has no CMakeLists.txt of its own).
            if std::fs::read_dir(&path).is_ok_and(|mut d| d.next().is_some()) {
                deps.push((name.to_string(), path));
            } else if needed {
                missing.push(format!(
                    "{} (MLX_CUDA_DEPS_DIR has no unpacked `{folder}`)",
                    path.display()
                ));
            }
        }
    }
    if !missing.is_empty() {
        return Err(format!(
            "a CUDA build of MLX (the `cuda` feature, `mlx-build build --cuda`) needs what this machine lacks:\n  - {}",
            missing.join("\n  - ")
        ));
    }
    let cudnn_root = cudnn_root.unwrap();
    let versions = format!("{}; cudnn {}", nvcc_version(&nvcc), cudnn_version(&cudnn_root));
    Ok(Toolkit { cuda_home, cudnn_root, deps, versions })
}

fn cuda_home() -> PathBuf {
    if let Some(home) = std::env::var_os("CUDA_HOME").or_else(|| std::env::var_os("CUDA_PATH")) {
        return PathBuf::from(home);
    }
    let on_path = std::env::var_os("PATH")
        .and_then(|paths| std::env::split_paths(&paths).find(|dir| dir.join("nvcc").is_file()));
    on_path
        .and_then(|bin| bin.parent().map(Path::to_path_buf))
        .unwrap_or_else(|| "/usr/local/cuda".into())
}

/// `CUDNN_ROOT`, else the `nvidia-cudnn` pip wheel of `python3`, else the system's.
fn cudnn_root() -> Option<PathBuf> {
    if let Some(root) = std::env::var_os("CUDNN_ROOT") {
        return Some(root.into());
    }
    let wheel = Command::new("python3")
        .args(["-c", "import nvidia.cudnn as c; print(list(c.__path__)[0])"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()));
    wheel.or_else(|| Path::new("/usr/include/cudnn.h").is_file().then(|| "/usr".into()))
}

fn nvcc_version(nvcc: &Path) -> String {
    let out = Command::new(nvcc).arg("--version").output().map(|o| o.stdout).unwrap_or_default();
    let text = String::from_utf8_lossy(&out);
    text.lines()
        .find(|l| l.contains("release"))
        .unwrap_or("nvcc (version unknown)")
        .trim()
        .to_string()
}

fn cudnn_version(root: &Path) -> String {
    let header = std::fs::read_to_string(root.join("include/cudnn_version.h")).unwrap_or_default();
    let part = |name: &str| {
        header
            .lines()
            .find_map(|l| l.strip_prefix(&format!("#define CUDNN_{name} ")))
            .map_or("?".to_string(), |v| v.trim().to_string())
    };
    format!("{}.{}.{}", part("MAJOR"), part("MINOR"), part("PATCHLEVEL"))
}
