//! MLX's element types and the Rust types that hold them on the host.

use std::fmt;

/// Every MLX dtype. The discriminants are MLX's `Dtype::Val` ordinals (the bridge's codes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Dtype {
    Bool = 0,
    Uint8 = 1,
    Uint16 = 2,
    Uint32 = 3,
    Uint64 = 4,
    Int8 = 5,
    Int16 = 6,
    Int32 = 7,
    Int64 = 8,
    Float16 = 9,
    Float32 = 10,
    Float64 = 11,
    Bfloat16 = 12,
    Complex64 = 13,
}

impl Dtype {
    /// All dtypes, in MLX's order.
    pub const ALL: [Dtype; 14] = [
        Dtype::Bool,
        Dtype::Uint8,
        Dtype::Uint16,
        Dtype::Uint32,
        Dtype::Uint64,
        Dtype::Int8,
        Dtype::Int16,
        Dtype::Int32,
        Dtype::Int64,
        Dtype::Float16,
        Dtype::Float32,
        Dtype::Float64,
        Dtype::Bfloat16,
        Dtype::Complex64,
    ];

    pub(crate) fn code(self) -> u8 {
        self as u8
    }

    /// The dtype of a bridge code; `None` for a dtype this crate does not know (the bridge
    /// reports 255 for those: an MLX newer than v0.32.4 may have more).
    pub(crate) fn from_code(code: u8) -> Option<Dtype> {
        Dtype::ALL.get(code as usize).copied()
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            Dtype::Bool | Dtype::Uint8 | Dtype::Int8 => 1,
            Dtype::Uint16 | Dtype::Int16 | Dtype::Float16 | Dtype::Bfloat16 => 2,
            Dtype::Uint32 | Dtype::Int32 | Dtype::Float32 => 4,
            Dtype::Uint64 | Dtype::Int64 | Dtype::Float64 | Dtype::Complex64 => 8,
        }
    }

    /// Real floating point (f16, bf16, f32, f64).
    pub fn is_float(self) -> bool {
        matches!(self, Dtype::Float16 | Dtype::Bfloat16 | Dtype::Float32 | Dtype::Float64)
    }

    /// Signed or unsigned integer (not bool).
    pub fn is_integer(self) -> bool {
        matches!(
            self,
            Dtype::Uint8
                | Dtype::Uint16
                | Dtype::Uint32
                | Dtype::Uint64
                | Dtype::Int8
                | Dtype::Int16
                | Dtype::Int32
                | Dtype::Int64
        )
    }

    /// MLX's name for the dtype (`float32`, `bfloat16`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Dtype::Bool => "bool",
            Dtype::Uint8 => "uint8",
            Dtype::Uint16 => "uint16",
            Dtype::Uint32 => "uint32",
            Dtype::Uint64 => "uint64",
            Dtype::Int8 => "int8",
            Dtype::Int16 => "int16",
            Dtype::Int32 => "int32",
            Dtype::Int64 => "int64",
            Dtype::Float16 => "float16",
            Dtype::Float32 => "float32",
            Dtype::Float64 => "float64",
            Dtype::Bfloat16 => "bfloat16",
            Dtype::Complex64 => "complex64",
        }
    }
}

impl fmt::Display for Dtype {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// MLX's `complex64`: two `f32`, real part first (layout of C++ `complex64_t`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
#[repr(C)]
pub struct Complex64 {
    pub re: f32,
    pub im: f32,
}

impl Complex64 {
    pub fn new(re: f32, im: f32) -> Self {
        Self { re, im }
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A Rust type whose values are the elements of one MLX dtype, bit for bit.
///
/// Sealed: implemented for `bool`, `u8`..`u64`, `i8`..`i64`, [`half::f16`], [`half::bf16`],
/// `f32`, `f64` and [`Complex64`]. All of them are plain data without padding.
pub trait Element: sealed::Sealed + Copy + Default + Send + Sync + 'static {
    /// The MLX dtype holding this type.
    const DTYPE: Dtype;
}

macro_rules! element {
    ($($t:ty => $d:ident),* $(,)?) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const DTYPE: Dtype = Dtype::$d;
        }
    )*};
}

element!(
    u8 => Uint8,
    u16 => Uint16,
    u32 => Uint32,
    u64 => Uint64,
    i8 => Int8,
    i16 => Int16,
    i32 => Int32,
    i64 => Int64,
    half::f16 => Float16,
    f32 => Float32,
    f64 => Float64,
    half::bf16 => Bfloat16,
    Complex64 => Complex64,
);

impl sealed::Sealed for bool {}
impl Element for bool {
    const DTYPE: Dtype = Dtype::Bool;
}

/// The bytes of a slice of elements (they have no padding).
pub(crate) fn as_bytes<T: Element>(data: &[T]) -> &[u8] {
    // SAFETY: Element types are plain data without padding; the length is the slice's size.
    unsafe { std::slice::from_raw_parts(data.as_ptr().cast::<u8>(), std::mem::size_of_val(data)) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_unknown_codes_are_none() {
        for dtype in Dtype::ALL {
            assert_eq!(Dtype::from_code(dtype.code()), Some(dtype));
        }
        for code in [14, 100, 255] {
            assert_eq!(Dtype::from_code(code), None, "code {code}");
        }
    }
}
