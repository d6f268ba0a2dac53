//! A gate around `mlx-ext`'s test primitive: `pass(x)` is `x` on this thread's CPU stream,
//! and any evaluation through it cannot finish until the gate opens, so a test can hold an
//! evaluation in flight and know it (`wait_entered`) without guessing from timings.

use std::time::Duration;

use cxx::UniquePtr;
use mlx::Array;
use mlx_ext::ffi::gate::ffi as sys;

pub struct Gate(UniquePtr<sys::Gate>);

impl Gate {
    pub fn new() -> Gate {
        Gate(sys::new_gate())
    }

    pub fn pass(&self, x: &Array) -> Array {
        Array::from_raw(sys::gate_pass(x.as_raw(), &self.0).expect("gate op")).expect("array")
    }

    /// True once an evaluation reached the gate; false if none did within `timeout`.
    pub fn wait_entered(&self, timeout: Duration) -> bool {
        sys::gate_wait_entered(&self.0, timeout.as_millis() as u64)
    }

    pub fn open(&self) {
        sys::gate_open(&self.0);
    }
}

impl Drop for Gate {
    /// A failing test never leaves a stream worker blocked.
    fn drop(&mut self) {
        self.open();
    }
}
