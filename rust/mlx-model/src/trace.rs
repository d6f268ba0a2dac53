//! Taps: named references to the forward pass's intermediate (lazy) arrays, recorded only while
//! a [`capture`] runs on this thread (`crate::determinism` compares them between runs).
//!
//! The model calls [`tap`] after about every op, in graph order, and [`scope`] around each layer
//! (names read `prefill0.layer3.moe.up`). Outside a capture a tap is one thread-local check and
//! records nothing, so the model's outputs do not depend on tracing. Inside one, each tap holds
//! a clone of its array (a shallow handle), which keeps that intermediate alive until the taps
//! are evaluated: the values are the same, but MLX cannot reuse (donate) those buffers.

use std::cell::RefCell;
use std::fmt;

use mlx::Array;

#[derive(Default)]
struct Recorder {
    prefix: Vec<String>,
    taps: Vec<(String, Array)>,
}

thread_local! {
    static RECORDER: RefCell<Option<Recorder>> = const { RefCell::new(None) };
}

/// Records `a` under `name` (after the open scopes' names) while a capture is active on this
/// thread; otherwise does nothing.
pub fn tap(name: &str, a: &Array) {
    RECORDER.with_borrow_mut(|r| {
        if let Some(r) = r {
            let mut full = r.prefix.join(".");
            if !full.is_empty() {
                full.push('.');
            }
            full.push_str(name);
            r.taps.push((full, a.clone()));
        }
    });
}

/// A name part for the taps recorded while it lives (see [`scope`]).
#[must_use = "the scope ends when this guard is dropped"]
pub struct Scope {
    pushed: bool,
}

/// Prefixes `part` to the names of the taps recorded until the guard drops (formatted only
/// while a capture is active).
pub fn scope(part: fmt::Arguments<'_>) -> Scope {
    let pushed = RECORDER.with_borrow_mut(|r| r.as_mut().map(|r| r.prefix.push(part.to_string())));
    Scope { pushed: pushed.is_some() }
}

impl Drop for Scope {
    fn drop(&mut self) {
        if self.pushed {
            RECORDER.with_borrow_mut(|r| r.as_mut().and_then(|r| r.prefix.pop()));
        }
    }
}

/// Runs `f` with taps recorded; returns its result and the taps, in the order they were made.
/// A capture inside another records into the inner one only.
pub fn capture<R>(f: impl FnOnce() -> R) -> (R, Vec<(String, Array)>) {
    struct Restore(Option<Recorder>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let outer = self.0.take();
            RECORDER.with_borrow_mut(|r| *r = outer);
        }
    }
    let _restore = Restore(RECORDER.replace(Some(Recorder::default())));
    let out = f();
    let taps = RECORDER.with_borrow_mut(Option::take).map(|r| r.taps).unwrap_or_default();
    (out, taps)
}
