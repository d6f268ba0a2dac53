//! Helpers shared by mlx-ab's integration tests.

use std::process::Output;

/// A finished command's status and both streams, for assertion messages.
pub fn describe(output: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}
