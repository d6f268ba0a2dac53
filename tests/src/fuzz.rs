//! How many cases each differential suite runs, and from which seed: the test's own count by
//! default (the short mode CI runs), `MLX_FUZZ_CASES` cases on demand (the long mode, e.g.
//! 10000), and a seed that every run prints, so that any failure replays with `MLX_FUZZ_SEED`.
//! Proptest suites take [`config`]; suites that count cases themselves take [`plan`].

use proptest::test_runner::{Config, RngSeed};
use std::hash::{BuildHasher, RandomState};

/// The proptest configuration of a differential suite whose short mode runs `short_cases`.
pub fn config(short_cases: u32) -> Config {
    let Plan { cases, seed } = plan(u64::from(short_cases));
    Config { cases: cases as u32, rng_seed: RngSeed::Fixed(seed), ..Config::default() }
}

/// A run of `cases` cases from `seed`. A suite counting cases itself derives case i from
/// `seed + i`, so that a failing case replays alone with `MLX_FUZZ_SEED=<seed + i>
/// MLX_FUZZ_CASES=1`.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    pub cases: u64,
    pub seed: u64,
}

/// The run of a suite whose short mode runs `short_cases`; prints how to replay it.
pub fn plan(short_cases: u64) -> Plan {
    let cases = env_number("MLX_FUZZ_CASES").unwrap_or(short_cases);
    // A fresh seed per run unless one is given (RandomState is randomly keyed per process).
    let seed = env_number("MLX_FUZZ_SEED").unwrap_or_else(|| RandomState::new().hash_one(0u8));
    // Shown with the test's output when it fails (and always with --nocapture).
    eprintln!("fuzz: {cases} cases from seed {seed} (replay: MLX_FUZZ_SEED={seed} MLX_FUZZ_CASES={cases})");
    Plan { cases, seed }
}

fn env_number(name: &str) -> Option<u64> {
    let value = std::env::var(name).ok()?;
    match value.parse() {
        Ok(n) => Some(n),
        Err(_) => panic!("{name}={value:?} is not a non-negative integer"),
    }
}
