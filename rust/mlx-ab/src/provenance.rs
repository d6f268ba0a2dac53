//! Where a result came from: host, compilers, date, this repository's commit. (Each arm's MLX
//! version, patches and source digest come from the arm's worker itself.)

use crate::deterministic::Determinism;
use serde::Serialize;
use std::path::Path;
use std::process::Command;

#[derive(Debug, Clone, Serialize)]
pub struct Provenance {
    /// UTC, RFC 3339.
    pub date: String,
    pub host: Host,
    /// First line of `c++ --version` (or `$CXX`), the compiler MLX was built with.
    pub cxx_compiler: String,
    pub rustc: String,
    /// `git rev-parse HEAD` of this repository, with `-dirty` when the tree has changes.
    pub repo_commit: String,
    pub mlx_ab_version: String,
    /// The NVIDIA GPUs and driver of this host, as `nvidia-smi` reports them.
    pub nvidia: Nvidia,
    /// Deterministic mode, its knobs and whether they act on the arms' backend, and the
    /// run-time variables of MLX, cuBLAS and cuDNN the workers inherited.
    pub determinism: Determinism,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Nvidia {
    /// Whether `nvidia-smi` ran and answered.
    pub nvidia_smi: bool,
    /// `nvidia-smi --query-gpu=name,driver_version --format=csv,noheader`, one per GPU.
    pub gpus: Vec<NvidiaGpu>,
    /// The "CUDA Version" of plain `nvidia-smi` (the newest CUDA the driver supports).
    pub cuda_version: Option<String>,
    /// Why there is nothing (`nvidia-smi not found`), or what nvidia-smi said when it failed.
    pub note: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NvidiaGpu {
    pub name: String,
    pub driver_version: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Host {
    pub hostname: String,
    pub os: String,
    pub arch: String,
    pub cpu: String,
    pub logical_cpus: usize,
    pub memory_bytes: Option<u64>,
}

pub fn collect(workspace: Option<&Path>, determinism: Determinism) -> Provenance {
    Provenance {
        date: rfc3339_utc(std::time::SystemTime::now()),
        host: Host {
            hostname: first_line(&read("/proc/sys/kernel/hostname"))
                .unwrap_or_else(|| command_line("hostname", &[])),
            os: format!(
                "{} {}",
                std::env::consts::OS,
                first_line(&read("/proc/sys/kernel/osrelease")).unwrap_or_default()
            )
            .trim()
            .to_string(),
            arch: std::env::consts::ARCH.to_string(),
            cpu: cpu_model(),
            logical_cpus: std::thread::available_parallelism().map_or(0, |n| n.get()),
            memory_bytes: meminfo_total(),
        },
        cxx_compiler: command_line(
            &std::env::var("CXX").unwrap_or_else(|_| "c++".into()),
            &["--version"],
        ),
        rustc: command_line(
            &std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into()),
            &["--version"],
        ),
        repo_commit: workspace.map_or_else(|| "unknown".into(), repo_commit),
        mlx_ab_version: env!("CARGO_PKG_VERSION").to_string(),
        nvidia: nvidia(),
        determinism,
    }
}

/// Asks `nvidia-smi` (on `PATH`); its absence is an answer, not an error.
pub fn nvidia() -> Nvidia {
    let run = |args: &[&str]| Command::new("nvidia-smi").args(args).output();
    let query = match run(&["--query-gpu=name,driver_version", "--format=csv,noheader"]) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Nvidia { note: Some("nvidia-smi not found".into()), ..Nvidia::default() };
        }
        Err(e) => return Nvidia { note: Some(format!("nvidia-smi: {e}")), ..Nvidia::default() },
        Ok(output) if !output.status.success() => {
            let text = format!(
                "{}{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
            let said = first_line(&text).unwrap_or_default();
            return Nvidia {
                note: Some(format!("nvidia-smi failed ({}): {said}", output.status)),
                ..Nvidia::default()
            };
        }
        Ok(output) => String::from_utf8_lossy(&output.stdout).into_owned(),
    };
    let plain = run(&[])
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned());
    Nvidia {
        nvidia_smi: true,
        gpus: parse_gpu_query(&query),
        cuda_version: plain.as_deref().and_then(parse_cuda_version),
        note: None,
    }
}

/// `NVIDIA H200, 550.54.15` lines; the name may itself hold commas, the driver is the last field.
fn parse_gpu_query(text: &str) -> Vec<NvidiaGpu> {
    text.lines()
        .filter_map(|line| line.trim().rsplit_once(','))
        .map(|(name, driver)| NvidiaGpu {
            name: name.trim().to_string(),
            driver_version: driver.trim().to_string(),
        })
        .filter(|g| !g.name.is_empty())
        .collect()
}

/// `... Driver Version: 550.54.15      CUDA Version: 12.4     |` -> `12.4`.
fn parse_cuda_version(text: &str) -> Option<String> {
    let (_, rest) = text.split_once("CUDA Version:")?;
    rest.split_whitespace()
        .next()
        .map(|v| v.trim_end_matches('|').to_string())
        .filter(|v| !v.is_empty())
}

fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

fn first_line(text: &str) -> Option<String> {
    text.lines().next().map(|l| l.trim().to_string()).filter(|l| !l.is_empty())
}

fn command_line(program: &str, args: &[&str]) -> String {
    Command::new(program)
        .args(args)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| first_line(&String::from_utf8_lossy(&o.stdout)))
        .unwrap_or_else(|| "unknown".into())
}

fn cpu_model() -> String {
    let cpuinfo = read("/proc/cpuinfo");
    cpuinfo
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().to_string())
        // Not run here: macOS reports the chip through sysctl.
        .unwrap_or_else(|| command_line("sysctl", &["-n", "machdep.cpu.brand_string"]))
}

fn meminfo_total() -> Option<u64> {
    read("/proc/meminfo")
        .lines()
        .find(|l| l.starts_with("MemTotal:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<u64>().ok())
        .map(|kb| kb * 1024)
}

/// `MLX_AB_COMMIT` where set (a copy of the checkout whose git HEAD is not the binaries':
/// scripts/gpu/run sets it from the pack), else `git rev-parse HEAD` of the workspace.
fn repo_commit(workspace: &Path) -> String {
    if let Some(commit) = std::env::var("MLX_AB_COMMIT").ok().filter(|c| !c.is_empty()) {
        return commit;
    }
    let git = |args: &[&str]| {
        Command::new("git")
            .arg("-C")
            .arg(workspace)
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
    };
    let Some(head) = git(&["rev-parse", "HEAD"]) else { return "unknown".into() };
    let head = String::from_utf8_lossy(&head.stdout).trim().to_string();
    // Only tracked files count: other people's untracked scratch files do not change the build.
    let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
        .is_some_and(|o| !o.stdout.is_empty());
    if dirty {
        format!("{head}-dirty")
    } else {
        head
    }
}

/// `YYYY-MM-DDTHH:MM:SSZ` without a date library (civil-from-days, proleptic Gregorian).
pub fn rfc3339_utc(time: std::time::SystemTime) -> String {
    let secs = time.duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs()) as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    #[test]
    fn nvidia_smi_output_parsed() {
        let query = "NVIDIA H200, 550.54.15\nNVIDIA H200, 550.54.15\n";
        let gpus = parse_gpu_query(query);
        assert_eq!(gpus.len(), 2);
        assert_eq!(
            gpus[0],
            NvidiaGpu { name: "NVIDIA H200".into(), driver_version: "550.54.15".into() }
        );
        assert!(parse_gpu_query("\n").is_empty());
        let plain = "Mon Jan  1 00:00:00 2024\n\
            +-----------------------------------------------------------------------------------------+\n\
            | NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: 12.4     |\n";
        assert_eq!(parse_cuda_version(plain).as_deref(), Some("12.4"));
        assert_eq!(parse_cuda_version("| CUDA Version: 12.8|"), Some("12.8".into()));
        assert_eq!(parse_cuda_version("no such line"), None);
    }

    #[test]
    fn nvidia_smi_absent_is_said_not_an_error() {
        // This machine has no NVIDIA driver; nvidia-smi is either missing or fails.
        let nvidia = nvidia();
        if !nvidia.nvidia_smi {
            assert!(nvidia.gpus.is_empty() && nvidia.cuda_version.is_none());
            assert!(nvidia.note.unwrap().contains("nvidia-smi"));
        }
    }

    #[test]
    fn dates_hand_checked() {
        assert_eq!(rfc3339_utc(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        // 2000-02-29 12:34:56 UTC = 951827696.
        assert_eq!(
            rfc3339_utc(UNIX_EPOCH + Duration::from_secs(951_827_696)),
            "2000-02-29T12:34:56Z"
        );
        // 2024-12-31 23:59:59 UTC = 1735689599.
        assert_eq!(
            rfc3339_utc(UNIX_EPOCH + Duration::from_secs(1_735_689_599)),
            "2024-12-31T23:59:59Z"
        );
    }
}
