//! Deterministic prompts for synthetic models.

/// `len` token ids in `[0, vocab_size)` from `seed` (splitmix64 on the host: the same ids on every
/// machine and build, independent of MLX's random generator).
pub fn synthetic_prompt(vocab_size: usize, len: usize, seed: u64) -> Vec<u32> {
    assert!(
        vocab_size > 0 && vocab_size <= u32::MAX as usize,
        "vocab_size must be in 1..=u32::MAX"
    );
    let mut state = seed;
    (0..len).map(|_| (splitmix64(&mut state) % vocab_size as u64) as u32).collect()
}

/// One step of SplitMix64 (Vigna): advances `state` and returns the next output. The one copy of
/// the workspace's small seeded generator (prompts, the harness's bootstrap, the tests' inputs).
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
