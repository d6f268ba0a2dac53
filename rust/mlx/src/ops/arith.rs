//! Element-wise arithmetic and math, dtype conversion, and the `+ - * /` operators.

use mlx_sys::ffi::ops::ffi::{self as sys, BinaryOp, UnaryOp};

use crate::{Array, Dtype, Result};

fn unary(op: UnaryOp, a: &Array) -> Result<Array> {
    Array::wrap(sys::unary(op, a.as_raw()))
}

pub(crate) fn binary(op: BinaryOp, a: &Array, b: &Array) -> Result<Array> {
    Array::wrap(sys::binary(op, a.as_raw(), b.as_raw()))
}

macro_rules! unary_ops {
    ($($(#[$doc:meta])* $name:ident => $op:ident;)*) => {$(
        $(#[$doc])*
        pub fn $name(a: &Array) -> Result<Array> {
            unary(UnaryOp::$op, a)
        }
    )*};
}

macro_rules! binary_ops {
    ($($(#[$doc:meta])* $name:ident => $op:ident;)*) => {$(
        $(#[$doc])*
        pub fn $name(a: &Array, b: &Array) -> Result<Array> {
            binary(BinaryOp::$op, a, b)
        }
    )*};
}

unary_ops! {
    /// |a|.
    abs => Abs;
    /// -a.
    negative => Negative;
    /// -1, 0 or 1 by the sign of a.
    sign => Sign;
    exp => Exp;
    /// exp(a) - 1, accurate near 0.
    expm1 => Expm1;
    /// Natural logarithm.
    log => Log;
    /// log(1 + a), accurate near 0.
    log1p => Log1p;
    log2 => Log2;
    log10 => Log10;
    sqrt => Sqrt;
    /// 1 / sqrt(a).
    rsqrt => Rsqrt;
    square => Square;
    /// 1 / a.
    reciprocal => Reciprocal;
    /// 1 / (1 + exp(-a)).
    sigmoid => Sigmoid;
    tanh => Tanh;
    sin => Sin;
    cos => Cos;
    erf => Erf;
    floor => Floor;
    ceil => Ceil;
    /// Round half to even.
    round => Round;
    /// A new node with the same values.
    copy => Copy;
    /// Identity that blocks gradients.
    stop_gradient => StopGradient;
}

binary_ops! {
    /// a + b with broadcasting.
    add => Add;
    /// a - b with broadcasting.
    subtract => Subtract;
    /// a * b with broadcasting.
    multiply => Multiply;
    /// a / b with broadcasting (true division: integers give floats).
    divide => Divide;
    /// floor(a / b).
    floor_divide => FloorDivide;
    /// a mod b, with the sign of b.
    remainder => Remainder;
    /// a ** b.
    power => Power;
    maximum => Maximum;
    minimum => Minimum;
    /// log(exp(a) + exp(b)).
    logaddexp => LogAddExp;
    arctan2 => Arctan2;
}

/// a * sigmoid(a) (SiLU), as two MLX ops.
pub fn silu(a: &Array) -> Result<Array> {
    multiply(a, &sigmoid(a)?)
}

/// Converts to `dtype` (as C++ `astype`).
pub fn astype(a: &Array, dtype: Dtype) -> Result<Array> {
    Array::wrap(sys::astype(a.as_raw(), dtype.code()))
}

macro_rules! operator {
    ($tr:ident, $method:ident, $f:ident, $sym:literal) => {
        /// Element-wise with broadcasting; use the function of the same name to get a `Result`.
        ///
        /// # Panics
        #[doc = concat!("If MLX rejects the operands (e.g. shapes that do not broadcast); `", $sym, "` cannot return an error.")]
        impl std::ops::$tr<&Array> for &Array {
            type Output = Array;
            fn $method(self, rhs: &Array) -> Array {
                $f(self, rhs).unwrap_or_else(|e| panic!("{}", e))
            }
        }
        impl std::ops::$tr<Array> for Array {
            type Output = Array;
            fn $method(self, rhs: Array) -> Array {
                std::ops::$tr::$method(&self, &rhs)
            }
        }
        impl std::ops::$tr<&Array> for Array {
            type Output = Array;
            fn $method(self, rhs: &Array) -> Array {
                std::ops::$tr::$method(&self, rhs)
            }
        }
        impl std::ops::$tr<Array> for &Array {
            type Output = Array;
            fn $method(self, rhs: Array) -> Array {
                std::ops::$tr::$method(self, &rhs)
            }
        }
    };
}

operator!(Add, add, add, "+");
operator!(Sub, sub, subtract, "-");
operator!(Mul, mul, multiply, "*");
operator!(Div, div, divide, "/");

impl std::ops::Neg for &Array {
    type Output = Array;
    /// # Panics
    /// If MLX rejects the operand (negating a bool array).
    fn neg(self) -> Array {
        negative(self).unwrap_or_else(|e| panic!("{}", e))
    }
}

impl std::ops::Neg for Array {
    type Output = Array;
    fn neg(self) -> Array {
        -&self
    }
}
