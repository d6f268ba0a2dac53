//! MLX's allocator: bytes in use, peak, cache and limits.

use mlx_sys::ffi::memory::ffi as sys;

use crate::Result;

/// Bytes held by live arrays (not counting the allocator's cache).
pub fn active_memory() -> usize {
    sys::get_active_memory()
}

/// Highest [`active_memory`] since start or the last [`reset_peak_memory`].
pub fn peak_memory() -> usize {
    sys::get_peak_memory()
}

pub fn reset_peak_memory() {
    sys::reset_peak_memory()
}

/// Bytes freed by arrays but kept by the allocator for reuse.
pub fn cache_memory() -> usize {
    sys::get_cache_memory()
}

/// Returns the previous limit.
pub fn set_memory_limit(limit: usize) -> Result<usize> {
    Ok(sys::set_memory_limit(limit)?)
}

pub fn memory_limit() -> usize {
    sys::get_memory_limit()
}

/// Returns the previous limit; 0 disables the cache.
pub fn set_cache_limit(limit: usize) -> Result<usize> {
    Ok(sys::set_cache_limit(limit)?)
}

/// Returns cached buffers to the system.
pub fn clear_cache() {
    sys::clear_cache()
}
