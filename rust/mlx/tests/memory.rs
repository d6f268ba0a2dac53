//! Allocator statistics. One test only: the counters are process-wide, and tests in one
//! binary run on parallel threads.

use mlx::{memory, ops, Dtype};

const MB: usize = 1 << 20;

#[test]
fn active_peak_cache_and_limits() {
    memory::clear_cache();
    let base = memory::active_memory();
    memory::reset_peak_memory();
    assert!(
        memory::peak_memory() <= base + MB,
        "reset peak {} vs active {}",
        memory::peak_memory(),
        base
    );

    // 16 MiB of float32.
    let a = ops::ones(&[4 * MB as i32], Dtype::Float32).unwrap();
    a.eval().unwrap();
    let with_a = memory::active_memory();
    assert!(with_a >= base + 16 * MB, "active {with_a} after 16 MiB from {base}");
    assert!(memory::peak_memory() >= with_a);

    drop(a);
    let after = memory::active_memory();
    assert!(after + 16 * MB <= with_a, "active {after} after drop, was {with_a}");
    // The freed buffer stays in the cache until cleared; the peak remembers it.
    assert!(memory::cache_memory() >= 16 * MB, "cache {}", memory::cache_memory());
    assert!(memory::peak_memory() >= with_a);
    memory::clear_cache();
    assert_eq!(memory::cache_memory(), 0);
    memory::reset_peak_memory();
    assert!(memory::peak_memory() < with_a);

    let old = memory::set_cache_limit(0).unwrap();
    assert_eq!(memory::set_cache_limit(old).unwrap(), 0);
    let limit = memory::memory_limit();
    assert!(limit > 0);
    assert_eq!(memory::set_memory_limit(limit / 2).unwrap(), limit);
    assert_eq!(memory::memory_limit(), limit / 2);
    memory::set_memory_limit(limit).unwrap();
}
