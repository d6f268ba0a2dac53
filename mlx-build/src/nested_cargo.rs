//! A cargo run from inside another cargo (a test, or the harness under `cargo run`) that builds
//! MLX for itself: the outer cargo's jobserver and target dir must stay out of it.

use std::process::Command;

/// Variables through which an outer cargo would leak into a nested build.
const OUTER_CARGO: [&str; 4] = ["MAKEFLAGS", "MFLAGS", "CARGO_MAKEFLAGS", "CARGO_TARGET_DIR"];

/// `cargo` (the `cargo` given, e.g. `env!("CARGO")`) with the outer cargo's variables removed.
pub fn command(cargo: impl AsRef<std::ffi::OsStr>) -> Command {
    let mut command = Command::new(cargo);
    for name in OUTER_CARGO {
        command.env_remove(name);
    }
    command
}

#[cfg(test)]
mod tests {
    #[test]
    fn removes_the_outer_cargos_variables() {
        let command = super::command("cargo");
        let removed: Vec<_> =
            command.get_envs().filter(|(_, v)| v.is_none()).map(|(k, _)| k.to_owned()).collect();
        assert_eq!(removed.len(), super::OUTER_CARGO.len());
    }
}
