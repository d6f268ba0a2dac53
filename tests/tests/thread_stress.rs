//! MLX's eval walk (stock's, or a patched one added by `MLX_EXTRA_PATCHES`) used from several threads and
//! streams at once through MLX's C++ API, as upstream's thread model allows
//! (`mlx-ext/cpp/thread_stress.h`): every value must match the host's computation. Its own test
//! binary with one test, because those threads do not take mlx-sys's API lock. Under
//! ThreadSanitizer (`scripts/sanitize thread`) it is the check that the walk does not race;
//! here it checks the values. `MLX_STRESS_GRAPHS` (graphs per thread, default 25)
//! and `MLX_FUZZ_SEED` (printed by every run) size and replay it.

use mlx_ext::ffi::thread_stress::ffi::stress_eval_threads;

fn env_number(name: &str) -> Option<u64> {
    let value = std::env::var(name).ok()?;
    Some(value.parse().unwrap_or_else(|_| panic!("{name}={value:?} is not a number")))
}

#[test]
fn four_threads_evaluate_random_graphs_on_their_own_streams() {
    let graphs = env_number("MLX_STRESS_GRAPHS").unwrap_or(25) as u32;
    let seed = env_number("MLX_FUZZ_SEED").unwrap_or_else(|| {
        use std::hash::{BuildHasher, RandomState};
        RandomState::new().hash_one(0u8)
    });
    eprintln!(
        "stress: 4 threads x {graphs} graphs from seed {seed} (replay: MLX_FUZZ_SEED={seed})"
    );
    // SAFETY: the only test of this binary: nothing else uses MLX meanwhile.
    let mismatches = unsafe { stress_eval_threads(4, graphs, seed) }.unwrap();
    assert_eq!(mismatches, 0, "values that differ from the host's (seed {seed})");
}
