//! Where a result came from: host, compilers, date, this repository's commit. (Each arm's MLX
//! version, patches and source digest come from the arm's worker itself.)

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

pub fn collect(workspace: Option<&Path>) -> Provenance {
    Provenance {
        date: rfc3339_utc(std::time::SystemTime::now()),
        host: Host {
            hostname: first_line(&read("/proc/sys/kernel/hostname")).unwrap_or_else(|| command_line("hostname", &[])),
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
        cxx_compiler: command_line(&std::env::var("CXX").unwrap_or_else(|_| "c++".into()), &["--version"]),
        rustc: command_line(&std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into()), &["--version"]),
        repo_commit: workspace.map_or_else(|| "unknown".into(), repo_commit),
        mlx_ab_version: env!("CARGO_PKG_VERSION").to_string(),
    }
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

fn repo_commit(workspace: &Path) -> String {
    let git = |args: &[&str]| {
        Command::new("git").arg("-C").arg(workspace).args(args).output().ok().filter(|o| o.status.success())
    };
    let Some(head) = git(&["rev-parse", "HEAD"]) else { return "unknown".into() };
    let head = String::from_utf8_lossy(&head.stdout).trim().to_string();
    // Only tracked files count: other people's untracked scratch files do not change the build.
    let dirty = git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|o| !o.stdout.is_empty());
    if dirty { format!("{head}-dirty") } else { head }
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
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    #[test]
    fn dates_hand_checked() {
        assert_eq!(rfc3339_utc(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        // 2000-02-29 12:34:56 UTC = 951827696.
        assert_eq!(rfc3339_utc(UNIX_EPOCH + Duration::from_secs(951_827_696)), "2000-02-29T12:34:56Z");
        // 2024-12-31 23:59:59 UTC = 1735689599.
        assert_eq!(rfc3339_utc(UNIX_EPOCH + Duration::from_secs(1_735_689_599)), "2024-12-31T23:59:59Z");
    }
}
