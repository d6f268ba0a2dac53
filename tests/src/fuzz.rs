//! How many cases each differential proptest runs, and from which seed: the test's own count by
//! default (the short mode CI runs), `MLX_FUZZ_CASES` cases on demand (the long mode, e.g.
//! 10000), and a seed that every run prints, so that any failure replays with `MLX_FUZZ_SEED`.

use proptest::test_runner::{Config, RngSeed};
use std::hash::{BuildHasher, RandomState};

/// The proptest configuration of a differential suite whose short mode runs `short_cases`.
pub fn config(short_cases: u32) -> Config {
    let cases = env_number("MLX_FUZZ_CASES").map_or(short_cases, |n| n as u32);
    // A fresh seed per run unless one is given (RandomState is randomly keyed per process).
    let seed = env_number("MLX_FUZZ_SEED").unwrap_or_else(|| RandomState::new().hash_one(0u8));
    // Shown with the test's output when it fails (and always with --nocapture).
    eprintln!("fuzz: {cases} cases from seed {seed} (replay: MLX_FUZZ_SEED={seed} MLX_FUZZ_CASES={cases})");
    Config { cases, rng_seed: RngSeed::Fixed(seed), ..Config::default() }
}

fn env_number(name: &str) -> Option<u64> {
    let value = std::env::var(name).ok()?;
    match value.parse() {
        Ok(n) => Some(n),
        Err(_) => panic!("{name}={value:?} is not a non-negative integer"),
    }
}
