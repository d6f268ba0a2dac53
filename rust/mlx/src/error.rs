//! The crate's error type: MLX's own message when MLX refused, or what the Rust side checked.

use crate::Dtype;

/// Everything that can go wrong in this crate. No call aborts the process: MLX exceptions,
/// including those raised while evaluating a graph, arrive here as [`Error::Mlx`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// MLX threw; the text is the exception's `what()`, unchanged.
    #[error("{0}")]
    Mlx(String),
    /// Host data of one element type was asked of an array of another dtype.
    #[error("dtype mismatch: the array is {actual}, the requested element type is {requested}")]
    DtypeMismatch { requested: Dtype, actual: Dtype },
    /// An argument the Rust side rejects before calling MLX (where MLX would not check it).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
}

/// `Result` with this crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

impl From<cxx::Exception> for Error {
    fn from(e: cxx::Exception) -> Self {
        Error::Mlx(e.what().to_owned())
    }
}

impl Error {
    /// The message MLX gave, if MLX raised this error.
    pub fn mlx_message(&self) -> Option<&str> {
        match self {
            Error::Mlx(m) => Some(m),
            _ => None,
        }
    }
}
