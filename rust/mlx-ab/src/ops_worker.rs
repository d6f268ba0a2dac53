//! One arm's `op-bench` process for `mlx-ab ops`: start it against its arm's libmlx, send
//! requests, read replies (`mlx_ab_protocol::ops`, JSON lines). Replies are read on a thread so
//! that waiting on a slow op still notices SIGTERM / SIGINT (a time limit) within a fraction of
//! a second.

use mlx_ab_protocol::ops::{OpReply, OpRequest, Timing};
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::Duration;

/// Why a measurement did not finish.
#[derive(Debug, Clone, PartialEq)]
pub enum Halt {
    /// A signal (its name) asked the run to stop: report what finished.
    Stopped(String),
    /// A worker failed or died: no report.
    Failed(String),
}

/// How one arm's workers start: its installed layout, its PTX cache if any, and the
/// environment variables set for it alone (`--a-env` / `--b-env`).
#[derive(Clone, Copy)]
pub struct ArmSetup<'a> {
    pub dir: &'a Path,
    pub ptx_cache: Option<&'a Path>,
    pub env: &'a [(String, String)],
}

/// `KEY=VALUE`, as `--a-env` / `--b-env` take it: a nonempty name without `=`, any value.
pub fn parse_env_assignment(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((key, value)) if !key.is_empty() => Ok((key.into(), value.into())),
        _ => Err(format!("{text:?}: expected KEY=VALUE")),
    }
}

/// A reply line: the timing, or the worker's error message.
pub fn parse_reply(line: &str) -> Result<Timing, String> {
    match serde_json::from_str::<OpReply>(line) {
        Ok(OpReply::Timed(timing)) => Ok(timing),
        Ok(OpReply::Error { message }) => Err(message),
        Err(e) => Err(format!("not a reply ({e}): {line:?}")),
    }
}

pub struct OpWorker {
    name: String,
    child: Child,
    stdin: ChildStdin,
    /// Reply lines; `None` once the worker closed its stdout.
    lines: Receiver<Option<String>>,
}

impl OpWorker {
    /// Starts ARM/bin/op-bench with ARM/lib first on the library path and, if given, its own
    /// PTX cache and environment variables.
    pub fn start(name: &str, arm: ArmSetup) -> Result<OpWorker, String> {
        let exe = arm.dir.join("bin").join("op-bench");
        let executable =
            exe.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0);
        if !executable {
            return Err(format!(
                "{} is not an executable (pack the arm with op-bench)",
                exe.display()
            ));
        }
        let mut library_path = OsString::from(arm.dir.join("lib"));
        if let Some(old) = std::env::var_os("LD_LIBRARY_PATH").filter(|v| !v.is_empty()) {
            library_path.push(":");
            library_path.push(old);
        }
        let mut command = Command::new(&exe);
        command.env("LD_LIBRARY_PATH", library_path).stdin(Stdio::piped()).stdout(Stdio::piped());
        if let Some(dir) = arm.ptx_cache {
            command.env("MLX_PTX_CACHE_DIR", dir);
        }
        command.envs(arm.env.iter().map(|(key, value)| (key, value)));
        let mut child = command
            .spawn()
            .map_err(|e| format!("starting worker {name} ({}): {e}", exe.display()))?;
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        let (send, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines() {
                let Ok(line) = line else { break };
                if send.send(Some(line)).is_err() {
                    return;
                }
            }
            let _ = send.send(None);
        });
        Ok(OpWorker { name: name.into(), child, stdin, lines })
    }

    pub fn send(&mut self, request: &OpRequest) -> Result<(), Halt> {
        let line = serde_json::to_string(request).expect("requests serialize");
        writeln!(self.stdin, "{line}")
            .and_then(|()| self.stdin.flush())
            .map_err(|e| Halt::Failed(format!("worker {}: writing {line}: {e}", self.name)))
    }

    /// The reply to `request`, or the signal that stopped the wait (`stop`, polled).
    pub fn receive(
        &mut self,
        request: &OpRequest,
        stop: &dyn Fn() -> Option<String>,
    ) -> Result<Timing, Halt> {
        let request = match request {
            OpRequest::Time { op, calls, reps } => format!("{op}, {calls} calls, {reps} reps"),
            OpRequest::Quit => "quit".into(),
        };
        loop {
            if let Some(signal) = stop() {
                return Err(Halt::Stopped(signal));
            }
            match self.lines.recv_timeout(Duration::from_millis(50)) {
                Ok(Some(line)) => {
                    return parse_reply(&line).map_err(|e| {
                        Halt::Failed(format!("worker {}: {e} (request: {request})", self.name))
                    })
                }
                Err(RecvTimeoutError::Timeout) => {}
                Ok(None) | Err(RecvTimeoutError::Disconnected) => {
                    // SIGINT from a terminal reaches the workers too: their exit is the stop's.
                    if let Some(signal) = stop() {
                        return Err(Halt::Stopped(signal));
                    }
                    let status = self.child.wait().map(|s| s.to_string()).unwrap_or_default();
                    return Err(Halt::Failed(format!(
                        "worker {} exited ({status}) on: {request}",
                        self.name
                    )));
                }
            }
        }
    }

    pub fn ask(
        &mut self,
        request: &OpRequest,
        stop: &dyn Fn() -> Option<String>,
    ) -> Result<Timing, Halt> {
        self.send(request)?;
        self.receive(request, stop)
    }

    /// Asks the worker to quit; `kill`: stopped mid-request, it would not read that.
    pub fn close(mut self, kill: bool) {
        if kill {
            let _ = self.child.kill();
        }
        let _ = self.send(&OpRequest::Quit);
        drop(self.stdin);
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_parse_or_quote_the_error() {
        let timed = r#"{"reply":"timed","seconds_per_call":2.5e-3,"peak_bytes":4096,"digest":"00000000deadbeef"}"#;
        let r = parse_reply(timed).unwrap();
        assert_eq!(
            (r.seconds_per_call, r.peak_bytes, r.digest.as_str()),
            (2.5e-3, 4096, "00000000deadbeef")
        );
        let error = r#"{"reply":"error","message":"[sdpa] out of memory"}"#;
        assert_eq!(parse_reply(error), Err("[sdpa] out of memory".into()));
        assert!(parse_reply("ok 2.5e-3 4096 00000000deadbeef").is_err());
        assert!(parse_reply("").is_err());
    }
}
