//! Progress of a cold MLX build: objects compiled so far against the objects the generated
//! Makefile or Ninja file lists. Drawn as a bar on the terminal (cargo captures a build script's own output);
//! without one, a plain line on stderr every half minute, which cargo shows with `-vv` (as
//! `./quickstart` and `mlx-ab` do when their output goes to a file) and keeps in the build
//! script's output otherwise.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime};

pub struct Progress {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Progress {
    /// Draws on the terminal if there is one, else prints plain lines. Either way it first says
    /// on stderr that the build started, which a caller reading cargo's `-vv` output (mlx-ab)
    /// takes as its cue to leave the terminal to this bar.
    pub fn watch(build_dir: PathBuf, label: String) -> Self {
        eprintln!("{label}: started");
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let since = SystemTime::now();
        let thread = std::thread::spawn(move || match terminal() {
            Some(target) => draw(&build_dir, since, label, target, &flag),
            None => print_lines(&build_dir, since, &label, &flag),
        });
        Progress { stop, thread: Some(thread) }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn terminal() -> Option<ProgressDrawTarget> {
    let tty = std::fs::OpenOptions::new().read(true).write(true).open("/dev/tty").ok()?;
    let term = console::Term::read_write_pair(tty.try_clone().ok()?, tty);
    Some(ProgressDrawTarget::term_like(Box::new(term)))
}

fn draw(
    build_dir: &Path,
    since: SystemTime,
    label: String,
    target: ProgressDrawTarget,
    stop: &AtomicBool,
) {
    let bar = ProgressBar::with_draw_target(None, target);
    bar.set_style(
        ProgressStyle::with_template("{msg} [{elapsed_precise}] {wide_bar} {pos}/{len} objects")
            .unwrap(),
    );
    bar.set_message(label);
    while !stop.load(Ordering::Relaxed) {
        let (done, total) = objects(build_dir, since);
        if total > 0 {
            bar.set_length(total);
            bar.set_position(done);
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    bar.finish_and_clear();
}

/// `building MLX KEY: 120/231 objects compiled after 150 s`, every 30 s.
fn print_lines(build_dir: &Path, since: SystemTime, label: &str, stop: &AtomicBool) {
    let started = Instant::now();
    let mut next = Duration::from_secs(30);
    while !stop.load(Ordering::Relaxed) {
        if started.elapsed() >= next {
            next += Duration::from_secs(30);
            let (done, total) = objects(build_dir, since);
            eprintln!(
                "{label}: {done}/{total} objects compiled after {} s",
                started.elapsed().as_secs()
            );
        }
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// Objects compiled since `since` (a tree reused for another patch set recompiles only some)
/// and objects listed (0 before cmake has generated the build files), for Makefiles and Ninja.
fn objects(build_dir: &Path, since: SystemTime) -> (u64, u64) {
    let objects_dir = build_dir.join("CMakeFiles/mlx.dir");
    let listed = if let Ok(makefile) = std::fs::read_to_string(objects_dir.join("build.make")) {
        makefile.lines().filter(|l| is_object_rule(l)).count()
    } else if let Ok(ninja) = std::fs::read_to_string(build_dir.join("build.ninja")) {
        ninja.lines().filter(|l| is_ninja_object(l)).count()
    } else {
        return (0, 0);
    };
    (count_objects(&objects_dir, since), listed as u64)
}

/// `CMakeFiles/mlx.dir/mlx/array.cpp.o: CMakeFiles/mlx.dir/flags.make`: once per object.
fn is_object_rule(line: &str) -> bool {
    line.ends_with(".o: CMakeFiles/mlx.dir/flags.make")
}

/// `build CMakeFiles/mlx.dir/mlx/array.cpp.o: CXX_COMPILER__mlx_Release ...`: once per object.
fn is_ninja_object(line: &str) -> bool {
    line.starts_with("build CMakeFiles/mlx.dir/")
        && line.split(':').next().is_some_and(|o| o.ends_with(".o"))
}

fn count_objects(dir: &Path, since: SystemTime) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    entries
        .filter_map(Result::ok)
        .map(|e| {
            let path = e.path();
            if path.is_dir() {
                count_objects(&path, since)
            } else {
                let fresh = e.metadata().and_then(|m| m.modified()).is_ok_and(|t| t >= since);
                u64::from(fresh && path.extension().is_some_and(|x| x == "o"))
            }
        })
        .sum()
}
