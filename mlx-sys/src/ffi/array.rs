//! `mlx::core::array` and the calls that create, inspect, evaluate and read arrays.
//!
//! Every function that can throw returns `Result`, so cxx turns the C++ exception into an
//! `Err` carrying MLX's message. Every call takes the process-wide API lock of the shim
//! (see `cpp/shim_common.h`), evaluations only while they touch graph nodes; drop arrays with [`ffi::array_free`] so that drops take it too.
//!
//! Dtype codes are the ordinals of `mlx::core::Dtype::Val`: 0 bool, 1 uint8, 2 uint16,
//! 3 uint32, 4 uint64, 5 int8, 6 int16, 7 int32, 8 int64, 9 float16, 10 float32, 11 float64,
//! 12 bfloat16, 13 complex64.

#[cxx::bridge(namespace = "mlx_sys")]
pub mod ffi {
    unsafe extern "C++" {
        include!("shim_array.h");

        /// MLX's array: a shared, reference-counted node of the lazy compute graph.
        #[namespace = "mlx::core"]
        type array;

        /// `mlx::core::version()`.
        fn mlx_version() -> String;

        fn array_from_bytes(data: &[u8], shape: &[i32], dtype: u8) -> Result<UniquePtr<array>>;
        fn array_from_f64(value: f64, dtype: u8) -> Result<UniquePtr<array>>;
        fn array_from_i64(value: i64, dtype: u8) -> Result<UniquePtr<array>>;

        /// A new handle to the same graph node (shallow, like C++ copy).
        fn array_clone(a: &array) -> UniquePtr<array>;
        /// Drops a handle under the API lock.
        fn array_free(a: UniquePtr<array>);

        fn array_ndim(a: &array) -> usize;
        fn array_shape(a: &array) -> Vec<i32>;
        fn array_strides(a: &array) -> Vec<i64>;
        fn array_size(a: &array) -> usize;
        fn array_nbytes(a: &array) -> usize;
        fn array_itemsize(a: &array) -> usize;
        fn array_dtype(a: &array) -> u8;
        fn array_id(a: &array) -> usize;
        /// 0 unscheduled, 1 evaluated but not yet available, 2 available.
        fn array_status(a: &array) -> u8;

        fn array_eval(a: &array) -> Result<()>;
        /// Evaluates and copies the row-major elements into `out` (exactly nbytes long).
        fn array_copy_to(a: &array, out: &mut [u8]) -> Result<()>;
        /// `a.item<T>()` for T of a's dtype, bytes into `out` (exactly itemsize long).
        fn array_item_to(a: &array, out: &mut [u8]) -> Result<()>;
        fn array_to_string(a: &array) -> Result<String>;

        fn new_array_vec() -> UniquePtr<CxxVector<array>>;
        fn array_vec_push(v: Pin<&mut CxxVector<array>>, a: &array);
        fn array_vec_get(v: &CxxVector<array>, i: usize) -> Result<UniquePtr<array>>;
        fn array_vec_free(v: UniquePtr<CxxVector<array>>);

        fn eval_all(v: &CxxVector<array>) -> Result<()>;
        fn async_eval_all(v: &CxxVector<array>) -> Result<()>;
    }

    impl UniquePtr<array> {}
    impl CxxVector<array> {}
}
