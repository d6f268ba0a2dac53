//! `mlx::core` ops from `ops.h`: element-wise, shape, indexing, reductions, sorting,
//! creation and matmul. Families of same-signature ops are selected by a shared enum so the
//! bridge stays small; each variant maps to the MLX function of the same name.
//!
//! The selector enums are defined in `cpp/shim_ops.h` (extern shared enums), so the shim does
//! not depend on where the build puts cxx's generated headers.
//!
//! Flags named `all_axes` select MLX's overload without an axis argument (over all axes).

#[cxx::bridge(namespace = "mlx_sys")]
pub mod ffi {
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    #[repr(u8)]
    enum UnaryOp {
        Abs,
        Negative,
        Sign,
        Exp,
        Expm1,
        Log,
        Log1p,
        Log2,
        Log10,
        Sqrt,
        Rsqrt,
        Square,
        Reciprocal,
        Sigmoid,
        Tanh,
        Sin,
        Cos,
        Erf,
        Floor,
        Ceil,
        Round,
        LogicalNot,
        IsNan,
        IsInf,
        IsFinite,
        Copy,
        StopGradient,
    }

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    #[repr(u8)]
    enum BinaryOp {
        Add,
        Subtract,
        Multiply,
        Divide,
        FloorDivide,
        Remainder,
        Power,
        Maximum,
        Minimum,
        Equal,
        NotEqual,
        Greater,
        GreaterEqual,
        Less,
        LessEqual,
        LogicalAnd,
        LogicalOr,
        LogAddExp,
        Arctan2,
    }

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    #[repr(u8)]
    enum ReduceOp {
        Sum,
        Mean,
        Max,
        Min,
        Prod,
        All,
        Any,
        LogSumExp,
        Var,
    }

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    #[repr(u8)]
    enum ArgReduceOp {
        Argmax,
        Argmin,
    }

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    #[repr(u8)]
    enum SortOp {
        Sort,
        Argsort,
        Partition,
        Argpartition,
        Topk,
    }

    unsafe extern "C++" {
        include!("shim_ops.h");

        #[namespace = "mlx::core"]
        type array = crate::ffi::array::ffi::array;

        // Defined in shim_ops.h; cxx checks the variants match.
        type UnaryOp;
        type BinaryOp;
        type ReduceOp;
        type ArgReduceOp;
        type SortOp;

        fn unary(op: UnaryOp, a: &array) -> Result<UniquePtr<array>>;
        fn binary(op: BinaryOp, a: &array, b: &array) -> Result<UniquePtr<array>>;
        fn reduce(
            op: ReduceOp,
            a: &array,
            axes: &[i32],
            all_axes: bool,
            keepdims: bool,
        ) -> Result<UniquePtr<array>>;
        fn arg_reduce(
            op: ArgReduceOp,
            a: &array,
            axis: i32,
            all_axes: bool,
            keepdims: bool,
        ) -> Result<UniquePtr<array>>;
        /// Sort/Argsort ignore `k`; Partition/Argpartition take it as kth; Topk as the count.
        fn sort_op(
            op: SortOp,
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
