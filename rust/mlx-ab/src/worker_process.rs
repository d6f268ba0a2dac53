//! The driver's handle on one arm's worker process: start it, send requests, read replies, and
//! turn a crash into an error that quotes the worker's own stderr.

use mlx_ab_protocol::protocol::{Job, Reply, Request, RunResult};
use mlx_ab_protocol::DeviceKind;
use mlx_ab_protocol::Info;
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

pub struct Worker {
    name: String,
    // Shared with the watchdog of a pending reply, which kills a worker that takes too long.
    child: Arc<Mutex<Child>>,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    log: PathBuf,
    reply_timeout: Option<Duration>,
}

pub struct Ready {
    pub info: Info,
    /// The device the worker runs on.
    pub device: DeviceKind,
    pub load_seconds: f64,
    pub model_dtype: String,
}

impl Worker {
    /// Writes the job next to the log, starts `binary serve --job ...` with `env` added to its
    /// environment, waits until the model is loaded. A worker that leaves any reply (loading
    /// included) pending for longer than `reply_timeout` is killed and reported.
    pub fn start(
        name: &str,
        binary: &Path,
        env: &[(OsString, OsString)],
        job: &Job,
        dir: &Path,
        reply_timeout: Option<Duration>,
    ) -> Result<(Worker, Ready), String> {
        let job_path = dir.join(format!("job-{name}.json"));
        let log = dir.join(format!("worker-{name}.log"));
        std::fs::write(&job_path, serde_json::to_vec_pretty(job).map_err(|e| e.to_string())?)
            .map_err(|e| format!("writing {}: {e}", job_path.display()))?;
        let log_file =
            std::fs::File::create(&log).map_err(|e| format!("creating {}: {e}", log.display()))?;
        let mut child = Command::new(binary)
            .arg("serve")
            .arg("--job")
            .arg(&job_path)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(log_file)
            .spawn()
            .map_err(|e| format!("starting worker {name} ({}): {e}", binary.display()))?;
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let child = Arc::new(Mutex::new(child));
        let mut worker =
            Worker { name: name.to_string(), child, stdin, stdout, log, reply_timeout };
        match worker.read_reply()? {
            Reply::Ready { info, device, load_seconds, model_dtype } => {
                Ok((worker, Ready { info, device, load_seconds, model_dtype }))
            }
            other => Err(worker.unexpected(other)),
        }
    }

    pub fn run(&mut self, logits_path: Option<&Path>) -> Result<RunResult, String> {
        self.send(&Request::Run { logits_path: logits_path.map(Path::to_path_buf) })?;
        match self.read_reply()? {
            Reply::Ran(result) => Ok(result),
            other => Err(self.unexpected(other)),
        }
    }

    /// Asks the worker to exit and waits for it.
    pub fn quit(mut self) -> Result<(), String> {
        self.send(&Request::Quit)?;
        let status = self.child.lock().unwrap().wait().map_err(|e| e.to_string())?;
        if !status.success() {
            return Err(format!("worker {} exited with {status}{}", self.name, self.log_tail()));
        }
        Ok(())
    }

    fn send(&mut self, request: &Request) -> Result<(), String> {
        let line = serde_json::to_string(request).map_err(|e| e.to_string())?;
        writeln!(self.stdin, "{line}")
            .and_then(|_| self.stdin.flush())
            .map_err(|e| format!("worker {} is not listening ({e}){}", self.name, self.log_tail()))
    }

    /// The next protocol line; anything else the worker printed on stdout is skipped.
    fn read_reply(&mut self) -> Result<Reply, String> {
        // The watchdog kills the worker unless the reply comes first (dropping `_cancel`).
        let (_cancel, timed_out) = match self.reply_timeout {
            Some(timeout) => {
                let (cancel, fired) = self.watchdog(timeout);
                (Some(cancel), Some(fired))
            }
            None => (None, None),
        };
        loop {
            let mut line = String::new();
            let read = self.stdout.read_line(&mut line).map_err(|e| e.to_string())?;
            if read == 0 {
                let status =
                    self.child.lock().unwrap().wait().map(|s| s.to_string()).unwrap_or_default();
                if timed_out.is_some_and(|fired| fired.load(Ordering::SeqCst)) {
                    return Err(format!(
                        "worker {} did not reply within {} s and was killed{}",
                        self.name,
                        self.reply_timeout.unwrap_or_default().as_secs(),
                        self.log_tail()
                    ));
                }
                return Err(format!(
                    "worker {} ended without replying ({status}){}",
                    self.name,
                    self.log_tail()
                ));
            }
            if line.trim_start().starts_with('{') {
                return match serde_json::from_str(&line) {
                    Ok(Reply::Error { message }) => {
                        Err(format!("worker {}: {message}{}", self.name, self.log_tail()))
                    }
                    Ok(reply) => Ok(reply),
                    Err(e) => Err(format!("worker {} sent {line:?}: {e}", self.name)),
                };
            }
        }
    }

    /// Kills the worker after `timeout` unless the returned sender is dropped first; the flag
    /// says whether it did.
    fn watchdog(&self, timeout: Duration) -> (mpsc::Sender<()>, Arc<AtomicBool>) {
        let (cancel, wait) = mpsc::channel::<()>();
        let fired = Arc::new(AtomicBool::new(false));
        let (child, flag) = (Arc::clone(&self.child), Arc::clone(&fired));
        std::thread::spawn(move || {
            if let Err(mpsc::RecvTimeoutError::Timeout) = wait.recv_timeout(timeout) {
                flag.store(true, Ordering::SeqCst);
                let _ = child.lock().unwrap().kill();
            }
        });
        (cancel, fired)
    }

    fn unexpected(&self, reply: Reply) -> String {
        format!("worker {} sent an unexpected reply: {reply:?}", self.name)
    }

    fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        if lines.is_empty() {
            return String::new();
        }
        let tail = lines[lines.len().saturating_sub(20)..].join("\n");
        format!("\nworker stderr ({}):\n{tail}", self.log.display())
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        // Still running only when the run is being abandoned on an error.
        let mut child = self.child.lock().unwrap();
        if let Ok(None) = child.try_wait() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
