//! `mlx::core` ops from `ops.h`: element-wise, shape, indexing, reductions, sorting,
//! creation and matmul. Families of same-signature ops (`cpp/ops.def`, their one list) share
//! one bridge function each, selected by the op's index in that list, so the bridge stays small.
//!
//! Flags named `all_axes` select MLX's overload without an axis argument (over all axes).

#[cxx::bridge(namespace = "mlx_sys")]
pub mod ffi {
    unsafe extern "C++" {
        include!("shim_ops.h");

        #[namespace = "mlx::core"]
        type array = crate::ffi::array::ffi::array;

        // `op`: the position of the op among its family's lines in `cpp/ops.def`, the one
        // list of these ops (the safe crate generates its wrappers from it).
        fn unary(op: u8, a: &array) -> Result<UniquePtr<array>>;
        fn binary(op: u8, a: &array, b: &array) -> Result<UniquePtr<array>>;
        fn reduce(
            op: u8,
            a: &array,
            axes: &[i32],
            all_axes: bool,
            keepdims: bool,
        ) -> Result<UniquePtr<array>>;
        fn arg_reduce(
            op: u8,
            a: &array,
            axis: i32,
            all_axes: bool,
            keepdims: bool,
        ) -> Result<UniquePtr<array>>;
        /// SORT lines ignore `k`; SORT_K lines take it (kth, or topk's count).
        fn sort_op(
            op: u8,
            a: &array,
            k: i32,
            axis: i32,
            all_axes: bool,
        ) -> Result<UniquePtr<array>>;

        fn softmax(
            a: &array,
            axes: &[i32],
            all_axes: bool,
            precise: bool,
        ) -> Result<UniquePtr<array>>;
        fn cumsum(a: &array, axis: i32, reverse: bool, inclusive: bool)
            -> Result<UniquePtr<array>>;
        fn array_equal(a: &array, b: &array, equal_nan: bool) -> Result<UniquePtr<array>>;
        fn where_(cond: &array, x: &array, y: &array) -> Result<UniquePtr<array>>;
        fn astype(a: &array, dtype: u8) -> Result<UniquePtr<array>>;
        fn matmul(a: &array, b: &array) -> Result<UniquePtr<array>>;
        fn addmm(
            c: &array,
            a: &array,
            b: &array,
            alpha: f32,
            beta: f32,
        ) -> Result<UniquePtr<array>>;
        fn contiguous(a: &array) -> Result<UniquePtr<array>>;

        fn reshape(a: &array, shape: &[i32]) -> Result<UniquePtr<array>>;
        fn transpose(a: &array) -> Result<UniquePtr<array>>;
        fn transpose_axes(a: &array, axes: &[i32]) -> Result<UniquePtr<array>>;
        fn swapaxes(a: &array, axis1: i32, axis2: i32) -> Result<UniquePtr<array>>;
        fn moveaxis(a: &array, source: i32, destination: i32) -> Result<UniquePtr<array>>;
        fn expand_dims(a: &array, axes: &[i32]) -> Result<UniquePtr<array>>;
        fn squeeze(a: &array, axes: &[i32], all_axes: bool) -> Result<UniquePtr<array>>;
        fn flatten(a: &array, start_axis: i32, end_axis: i32) -> Result<UniquePtr<array>>;
        fn unflatten(a: &array, axis: i32, shape: &[i32]) -> Result<UniquePtr<array>>;
        fn broadcast_to(a: &array, shape: &[i32]) -> Result<UniquePtr<array>>;
        fn slice(
            a: &array,
            start: &[i32],
            stop: &[i32],
            strides: &[i32],
        ) -> Result<UniquePtr<array>>;
        fn slice_update(
            src: &array,
            update: &array,
            start: &[i32],
            stop: &[i32],
            strides: &[i32],
        ) -> Result<UniquePtr<array>>;
        fn concatenate(arrays: &CxxVector<array>, axis: i32) -> Result<UniquePtr<array>>;
        fn stack(arrays: &CxxVector<array>, axis: i32) -> Result<UniquePtr<array>>;
        fn split_sections(a: &array, num: i32, axis: i32) -> Result<UniquePtr<CxxVector<array>>>;
        fn split_indices(
            a: &array,
            indices: &[i32],
            axis: i32,
        ) -> Result<UniquePtr<CxxVector<array>>>;

        fn take(a: &array, indices: &array, axis: i32) -> Result<UniquePtr<array>>;
        fn take_flat(a: &array, indices: &array) -> Result<UniquePtr<array>>;
        fn take_along_axis(a: &array, indices: &array, axis: i32) -> Result<UniquePtr<array>>;
        fn put_along_axis(
            a: &array,
            indices: &array,
            values: &array,
            axis: i32,
        ) -> Result<UniquePtr<array>>;

        fn arange(start: f64, stop: f64, step: f64, dtype: u8) -> Result<UniquePtr<array>>;
        fn zeros(shape: &[i32], dtype: u8) -> Result<UniquePtr<array>>;
        fn ones(shape: &[i32], dtype: u8) -> Result<UniquePtr<array>>;
        fn full(shape: &[i32], vals: &array, dtype: u8) -> Result<UniquePtr<array>>;
        fn tri(n: i32, m: i32, k: i32, dtype: u8) -> Result<UniquePtr<array>>;
        fn tril(a: &array, k: i32) -> Result<UniquePtr<array>>;
        fn triu(a: &array, k: i32) -> Result<UniquePtr<array>>;
    }
}
