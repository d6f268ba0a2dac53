//! SiLU, dtype conversion, and the `+ - * /` operators (the element-wise functions come from
//! the op table, `table.rs`).

use mlx_sys::ffi::ops::ffi as sys;

use super::{add, divide, multiply, negative, sigmoid, subtract};
use crate::{Array, Dtype, Result};

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
