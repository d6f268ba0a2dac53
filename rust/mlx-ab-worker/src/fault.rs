//! Test-only fault injection: mlx-ab's tests make a worker abort (as a crashing MLX would) or
//! hang at a given run, counting from 1, to check that the driver stops the run cleanly. Only a
//! worker built with the `fault-injection` feature reads the variables; in a production worker
//! `Faults` is empty and reads nothing.

#[cfg(feature = "fault-injection")]
pub struct Faults {
    abort_at_run: Option<usize>,
    hang_at_run: Option<usize>,
}

#[cfg(feature = "fault-injection")]
impl Faults {
    /// The faults asked for, read once when serving starts.
    pub fn from_env() -> Faults {
        let at_run = |var: &str| std::env::var(var).ok().and_then(|v| v.parse::<usize>().ok());
        Faults {
            abort_at_run: at_run("MLX_AB_WORKER_ABORT_AT_RUN"),
            hang_at_run: at_run("MLX_AB_WORKER_HANG_AT_RUN"),
        }
    }

    /// Aborts or hangs before run `run` (counting from 1) if asked to.
    pub fn before_run(&self, run: usize) {
        if self.abort_at_run == Some(run) {
            std::process::abort();
        }
        while self.hang_at_run == Some(run) {
            std::thread::sleep(std::time::Duration::from_secs(3600));
        }
    }
}

#[cfg(not(feature = "fault-injection"))]
pub struct Faults;

#[cfg(not(feature = "fault-injection"))]
impl Faults {
    pub fn from_env() -> Faults {
        Faults
    }

    pub fn before_run(&self, _run: usize) {}
}
