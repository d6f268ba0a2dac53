//! Progress of a cold MLX build, drawn on the terminal (cargo captures a build script's own
//! output): objects compiled so far against the objects the generated Makefile lists.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

pub struct Progress {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Progress {
    /// Starts drawing if there is a terminal; otherwise does nothing.
    pub fn watch(build_dir: PathBuf, label: String) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let thread = terminal().map(|target| {
            let stop = stop.clone();
            std::thread::spawn(move || draw(&build_dir, label, target, &stop))
        });
        Progress { stop, thread }
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

fn draw(build_dir: &Path, label: String, target: ProgressDrawTarget, stop: &AtomicBool) {
    let bar = ProgressBar::with_draw_target(None, target);
    bar.set_style(
        ProgressStyle::with_template("{msg} [{elapsed_precise}] {wide_bar} {pos}/{len} objects")
            .unwrap(),
    );
    bar.set_message(label);
    let objects_dir = build_dir.join("CMakeFiles/mlx.dir");
    while !stop.load(Ordering::Relaxed) {
        if let Ok(makefile) = std::fs::read_to_string(objects_dir.join("build.make")) {
            bar.set_length(makefile.lines().filter(|l| is_object_rule(l)).count() as u64);
            bar.set_position(count_objects(&objects_dir));
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    bar.finish_and_clear();
}

/// `CMakeFiles/mlx.dir/mlx/array.cpp.o: CMakeFiles/mlx.dir/flags.make`: once per object.
fn is_object_rule(line: &str) -> bool {
    line.ends_with(".o: CMakeFiles/mlx.dir/flags.make")
}

fn count_objects(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    entries
        .filter_map(Result::ok)
        .map(|e| {
            let path = e.path();
            if path.is_dir() {
                count_objects(&path)
            } else {
                u64::from(path.extension().is_some_and(|x| x == "o"))
            }
        })
        .sum()
}
