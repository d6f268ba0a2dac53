//! Several threads evaluating random graphs at once through MLX's C++ API, without mlx-sys's
//! lock (`cpp/thread_stress.h`): for ThreadSanitizer, and a correctness check in every build.

// The Safety section is on the function; an item cxx generates for it at the bridge's span
// carries none, which clippy flags in test builds.
#[allow(clippy::missing_safety_doc)]
#[cxx::bridge(namespace = "mlx_ext")]
pub mod ffi {
    unsafe extern "C++" {
        include!("thread_stress.h");

        /// `threads` threads, `graphs` random graphs each, from `seed`: the number of values
        /// that differ from the host's computation (Err: a thread's MLX error).
        ///
        /// # Safety
        /// Nothing else in the process may use MLX meanwhile: these threads do not take the
        /// API lock (they share no array with anyone, but MLX's default device is a plain
        /// global that a concurrent `set_default_device` would race on).
        unsafe fn stress_eval_threads(threads: u32, graphs: u32, seed: u64) -> Result<u64>;
    }
}
