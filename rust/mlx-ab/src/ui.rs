//! Progress bars and notes on stderr (stdout carries results). Bars draw only on a terminal;
//! notes are printed either way so logs still say what happened.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

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
    bar
}

/// A line above the bar (or on stderr when there is no terminal).
pub fn note(bar: Option<&ProgressBar>, message: &str) {
    match bar {
        Some(bar) if std::io::stderr().is_terminal() => bar.println(message),
        _ => eprintln!("{message}"),
    }
}
