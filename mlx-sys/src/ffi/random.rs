//! `mlx::core::random`: keys, uniform, normal, randint, bernoulli, categorical.
//!
//! `key` is a nullable raw pointer (null = MLX's global key sequence), hence `unsafe fn`:
//! the caller guarantees a non-null pointer refers to a live `array` for the call.

#[allow(clippy::missing_safety_doc, clippy::too_many_arguments)] // Safety: see the module docs.
#[cxx::bridge(namespace = "mlx_sys")]
pub mod ffi {
    unsafe extern "C++" {
        include!("shim_random.h");

        #[namespace = "mlx::core"]
        type array = crate::ffi::array::ffi::array;

        fn random_key(seed: u64) -> Result<UniquePtr<array>>;
        fn random_seed(seed: u64) -> Result<()>;
        fn random_split(key: &array, num: i32) -> Result<UniquePtr<array>>;
        unsafe fn random_uniform(
            low: f32,
            high: f32,
            shape: &[i32],
            dtype: u8,
            key: *const array,
        ) -> Result<UniquePtr<array>>;
        unsafe fn random_normal(
            shape: &[i32],
            dtype: u8,
            loc: f32,
            scale: f32,
            key: *const array,
        ) -> Result<UniquePtr<array>>;
        unsafe fn random_randint(
            low: i64,
            high: i64,
            shape: &[i32],
            dtype: u8,
            key: *const array,
        ) -> Result<UniquePtr<array>>;
        unsafe fn random_bernoulli(
            p: &array,
            shape: &[i32],
            key: *const array,
        ) -> Result<UniquePtr<array>>;
        /// `num_samples < 0`: one sample per distribution.
        unsafe fn random_categorical(
            logits: &array,
            axis: i32,
            num_samples: i32,
            key: *const array,
        ) -> Result<UniquePtr<array>>;
    }
}
