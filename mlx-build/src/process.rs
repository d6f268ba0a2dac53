//! Running the build's tools.

use crate::Fallible;
use std::process::Command;

/// Runs a command, turning a spawn failure or a non-zero exit into a message with its output.
pub fn run_command(cmd: &mut Command, what: &str) -> Fallible<String> {
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
