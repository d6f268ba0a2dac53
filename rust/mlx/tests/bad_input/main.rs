//! Every public fallible function of the safe API, called with bad input: each returns `Err`
//! with MLX's message (or ours where the binding checks first), never a panic or an abort.
//! `rows_*.rs` hold the table, `no_bad_input.rs` the functions without a bad input, and
//! `coverage` fails naming any public fallible function that is in neither.

#[path = "../common/mod.rs"]
mod common;
mod fixtures;
mod no_bad_input;
mod public_fns;
mod rows_api;
mod rows_ops;

use std::collections::BTreeSet;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// One bad call: the function's public path, the call, and words its error message must
/// contain (matched case-insensitively: MLX's wording around them may change).
pub struct Row {
    pub name: &'static str,
    pub call: fn() -> mlx::Result<String>,
    pub expect: &'static [&'static str],
}

/// `"path" => call, ["word", ...];` rows; `Ok` values are kept as text for the failure report.
#[macro_export]
macro_rules! rows {
    ($($name:literal => $call:expr, [$($word:literal),+ $(,)?];)*) => {
        vec![$($crate::Row {
            name: $name,
            call: || ($call).map(|v| format!("{v:?}")),
            expect: &[$($word),+],
        }),*]
    };
}

fn table() -> Vec<Row> {
    let mut rows = rows_api::rows();
    rows.extend(rows_ops::rows());
    rows
}

#[test]
fn every_bad_call_is_an_err_with_the_expected_words() {
    let mut failures = Vec::new();
    for row in table() {
        let outcome = catch_unwind(AssertUnwindSafe(row.call));
        let problem = match outcome {
            Err(panic) => Some(format!("panicked: {:?}", panic_text(&panic))),
            Ok(Ok(value)) => Some(format!("returned Ok({value})")),
            Ok(Err(e)) => {
                let message = e.to_string();
                let lower = message.to_lowercase();
                let missing: Vec<_> =
                    row.expect.iter().filter(|w| !lower.contains(&w.to_lowercase())).collect();
                (!missing.is_empty()).then(|| format!("message {message:?} lacks {missing:?}"))
            }
        };
        if let Some(problem) = problem {
            failures.push(format!("{}: {problem}", row.name));
        }
    }
    fixtures::cleanup();
    assert!(
        failures.is_empty(),
        "{} bad calls misbehaved:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn panic_text(panic: &Box<dyn std::any::Any + Send>) -> &str {
    panic
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| panic.downcast_ref::<&str>().copied())
        .unwrap_or("<not text>")
}

#[test]
fn coverage_every_public_fallible_fn_has_a_row_or_a_reason() {
    let public = public_fns::public_fallible_fns();
    let rows: BTreeSet<&str> = table().iter().map(|r| r.name).collect();
    let exempt: BTreeSet<&str> = no_bad_input::LIST.iter().map(|(name, _)| *name).collect();
    let mut problems = Vec::new();
    for name in &public {
        if !rows.contains(name.as_str()) && !exempt.contains(name.as_str()) {
            problems.push(format!("{name}: no row in the table and not in no_bad_input::LIST"));
        }
    }
    for name in rows.iter().chain(&exempt) {
        if !public.contains(*name) {
            problems.push(format!("{name}: not a public fallible fn of src/ (renamed? removed?)"));
        }
    }
    for name in rows.intersection(&exempt) {
        problems.push(format!("{name}: both in the table and in no_bad_input::LIST"));
    }
    assert!(problems.is_empty(), "coverage of the safe API:\n{}", problems.join("\n"));
    eprintln!(
        "{} public fallible fns: {} with bad-input rows, {} without a bad input",
        public.len(),
        rows.len(),
        exempt.len()
    );
}
