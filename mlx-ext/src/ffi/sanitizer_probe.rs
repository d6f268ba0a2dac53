//! Deliberate bugs (`cpp/sanitizer_probe.h`) for the test that a sanitized build
//! (`MLX_SANITIZE`) is instrumented, in our C++ and in libmlx, and stops on a finding. Each is
//! undefined behaviour: only for that test, in a child process, in a sanitized build.

// Every function here is undefined behaviour by design, so there is no safe way to call one
// (only a sanitized build's child process does, tests/tests/sanitizers.rs): no Safety sections.
#[allow(clippy::missing_safety_doc)]
#[cxx::bridge(namespace = "mlx_ext")]
pub mod ffi {
    unsafe extern "C++" {
        include!("sanitizer_probe.h");

        /// Reads one int past a heap array.
        unsafe fn probe_heap_overflow() -> i32;
        /// `i32::MAX + x`, in C++.
        unsafe fn probe_signed_overflow(x: i32) -> i32;
        /// Two threads increment one plain int.
        unsafe fn probe_data_race() -> i32;
        /// `take` of an n-element array at index n (MLX does not check it).
        unsafe fn probe_mlx_out_of_range_take() -> f32;
        /// Two threads set MLX's default device without the API lock.
        unsafe fn probe_mlx_default_device_race();
    }
}
