//! A test gate (`cpp/gate.h`): an identity op whose CPU kernel reports that it started and
//! then blocks until the gate opens, so a test can hold an evaluation in flight for as long
//! as it needs (the safe API's thread tests).

#[cxx::bridge(namespace = "mlx_ext")]
pub mod ffi {
    unsafe extern "C++" {
        include!("gate.h");

        #[namespace = "mlx::core"]
        type array = mlx_sys::ffi::array::ffi::array;

        type Gate;

        fn new_gate() -> UniquePtr<Gate>;
        /// Identity of `x` on this thread's default CPU stream; errors on another device.
        fn gate_pass(x: &array, gate: &Gate) -> Result<UniquePtr<array>>;
        /// True once a kernel of `gate` started; false after `timeout_ms` without one.
        fn gate_wait_entered(gate: &Gate, timeout_ms: u64) -> bool;
        /// Releases every kernel of `gate`, running or future.
        fn gate_open(gate: &Gate);
    }
}

// SAFETY: the gate's state is a mutex and a condition variable (cpp/gate.h).
unsafe impl Send for ffi::Gate {}
unsafe impl Sync for ffi::Gate {}
