//! Progress bars and notes on stderr (stdout carries results). Bars draw only on a terminal;
//! notes are printed either way so logs still say what happened, and off a terminal a spinner
//! prints its message every 30 s (a spinner is for work that may take minutes).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::Duration;

const PLAIN_EVERY: Duration = Duration::from_secs(30);

pub fn bar(length: u64, prefix: &str, unit: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(length), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template(&format!(
            "{{prefix:>12}} [{{elapsed_precise}}] {{wide_bar}} {{pos}}/{{len}} {unit} (eta {{eta}}) {{msg}}"
        ))
        .unwrap(),
    );
    bar.set_prefix(prefix.to_string());
    bar.enable_steady_tick(std::time::Duration::from_millis(250));
    bar
}

/// A spinner with the elapsed time and a message, for work of unknown length.
pub fn spinner(prefix: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{prefix:>12} [{elapsed_precise}] {spinner} {msg}").unwrap(),
    );
    bar.set_prefix(prefix.to_string());
    bar.enable_steady_tick(std::time::Duration::from_millis(250));
    if !std::io::stderr().is_terminal() {
        print_plain_lines(&bar);
    }
    bar
}

/// Until the spinner is finished or dropped: `PREFIX: MESSAGE after N s` every 30 s.
fn print_plain_lines(bar: &ProgressBar) {
    let weak = bar.downgrade();
    std::thread::spawn(move || {
        let mut next = PLAIN_EVERY;
        while let Some(bar) = weak.upgrade().filter(|b| !b.is_finished()) {
            if bar.elapsed() >= next {
                next += PLAIN_EVERY;
                eprintln!(
                    "{}: {} after {} s",
                    bar.prefix(),
                    bar.message(),
                    bar.elapsed().as_secs()
                );
            }
            drop(bar);
            std::thread::sleep(Duration::from_millis(500));
        }
    });
}

/// A line above the bar (or on stderr when there is no terminal).
pub fn note(bar: Option<&ProgressBar>, message: &str) {
    match bar {
        Some(bar) if std::io::stderr().is_terminal() => bar.println(message),
        _ => eprintln!("{message}"),
    }
}
