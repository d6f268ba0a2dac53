//! Benchmarks that time more than one op (`cpp/bench_graphs.h`): a graph's cost per node and a
//! causal-attention training step, for op-bench's `graph` and `sdpa_grad` requests.

// The Safety section is on the functions; items cxx generates at the bridge's span carry none.
#[allow(clippy::missing_safety_doc)]
#[cxx::bridge(namespace = "mlx_ext")]
pub mod ffi {
    /// One timed case: median seconds (per node for a graph), peak bytes of one timing above
    /// what was allocated before it, and the first timing's result, flattened into one array
    /// (op-bench digests it as it digests its own ops' outputs).
    struct BenchTiming {
        seconds: f64,
        peak_bytes: u64,
        output: UniquePtr<array>,
    }

    unsafe extern "C++" {
        include!("bench_graphs.h");

        #[namespace = "mlx::core"]
        type array = mlx_sys::ffi::array::ffi::array;

        /// Seconds per node of building and evaluating a `shape` graph of `nodes` nodes on the
        /// CPU (`chain`, `fanin`, `multiout`, `streams`, `decode`; Err: an unknown shape or
        /// MLX's error).
        ///
        /// # Safety
        /// Nothing else in the process may use MLX meanwhile: MLX is called without mlx-sys's
        /// API lock.
        unsafe fn eval_graph_bench(shape: &str, nodes: u32, reps: u32) -> Result<BenchTiming>;

        /// Seconds of one causal-attention training step on the CPU (float32, the causal mask
        /// as the mode string or, with `array_mask`, as a bool array).
        ///
        /// # Safety
        /// As for [`eval_graph_bench`].
        unsafe fn causal_sdpa_train_step_bench(
            heads: u32,
            len: u32,
            head_dim: u32,
            reps: u32,
            array_mask: bool,
        ) -> Result<BenchTiming>;
    }
}
