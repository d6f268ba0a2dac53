//! [`Array`]: an owned handle to a node of MLX's lazy compute graph.

use std::fmt;

use cxx::UniquePtr;
use mlx_sys::ffi::array::ffi as sys;

use crate::dtype::as_bytes;
use crate::{Dtype, Element, Error, Result};

/// An MLX array: a handle to a node of MLX's lazy compute graph.
///
/// Ops build graph nodes; nothing is computed until the array is evaluated ([`Array::eval`],
/// [`crate::eval`], or implicitly by [`Array::item`], [`Array::to_vec`] and printing).
/// `Clone` is shallow: both handles refer to the same node, as with C++ `array` copies.
///
/// # Threads
///
/// `Array` is `Send` and `Sync`. Every call into MLX made by this crate holds one process-wide
/// lock (in the mlx-sys shim) while it touches graph nodes, because MLX mutates them without
/// locking (in evaluation, reads and drops); with the lock, using arrays from several threads
/// is free of data races. Evaluation holds it only for MLX's graph walk, not while kernels run:
/// threads evaluating on their own streams compute at the same time, and a drop waits at most
/// for another thread's graph walk (the workspace README, "Threads", gives MLX's guarantees).
///
/// What does and does not work across threads (each is tested in `tests/threads.rs`):
/// - An evaluated array can be sent or shared and used by ops on any thread.
/// - An unevaluated array whose graph was built on thread A cannot be evaluated on thread B:
///   MLX v0.32 streams belong to the thread that made them, so evaluation there returns
///   `Err` ("There is no Stream(cpu, N) in current thread."). Evaluate before sending.
/// - [`crate::Stream`] is neither `Send` nor `Sync` for the same reason.
///
/// # Evaluation errors
///
/// When evaluation fails (e.g. a kernel or a file read raised an error), MLX has already
/// marked the graph's nodes as evaluated: arrays of that graph then hold unspecified values
/// (never invalid Rust values) and should be rebuilt, not read.
pub struct Array {
    // Never null.
    inner: UniquePtr<sys::array>,
}

// SAFETY: see "Threads" above: every access to a graph node goes through the shim, which
// serializes them with one recursive mutex; MLX's reference counts are atomic, and what runs
// unlocked (waiting on MLX's events) touches no node.
unsafe impl Send for Array {}
unsafe impl Sync for Array {}

impl Array {
    /// Wraps a handle returned by the bridge; refuses a null pointer. (The bridge refuses arrays
    /// of a dtype this crate does not know, see `mlx_sys::wrap`, so every `Array` has a
    /// [`Dtype`].)
    pub fn from_raw(ptr: UniquePtr<sys::array>) -> Result<Array> {
        if ptr.is_null() {
            return Err(Error::Mlx("MLX returned no array".into()));
        }
        Ok(Array { inner: ptr })
    }

    /// For bridge results, which are never null on success.
    pub(crate) fn wrap(
        ptr: std::result::Result<UniquePtr<sys::array>, cxx::Exception>,
    ) -> Result<Array> {
        Array::from_raw(ptr?)
    }

    /// The C++ array, for other bridges (e.g. `mlx-ext`) that take `const mlx::core::array&`.
    pub fn as_raw(&self) -> &sys::array {
        &self.inner
    }

    /// Gives up ownership of the C++ handle. Drop it with `mlx_sys::ffi::array::ffi::array_free`.
    pub fn into_raw(mut self) -> UniquePtr<sys::array> {
        std::mem::replace(&mut self.inner, UniquePtr::null())
    }

    /// A new array of `shape` holding a copy of `data` (row-major).
    ///
    /// Errors if `data.len()` is not the product of `shape` or a dimension is negative.
    pub fn from_slice<T: Element>(data: &[T], shape: &[i32]) -> Result<Array> {
        if shape.iter().any(|&d| d < 0) {
            return Err(Error::InvalidArgument(format!("negative dimension in shape {shape:?}")));
        }
        let count = shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d as usize));
        if count != Some(data.len()) {
            return Err(Error::InvalidArgument(format!(
                "{} elements do not fill shape {shape:?}",
                data.len()
            )));
        }
        Array::wrap(sys::array_from_bytes(as_bytes(data), shape, T::DTYPE.code()))
    }

    /// A 1-d array holding a copy of `data`.
    pub fn from_vec1<T: Element>(data: &[T]) -> Result<Array> {
        let len = i32::try_from(data.len())
            .map_err(|_| Error::InvalidArgument(format!("{} elements exceed i32", data.len())))?;
        Array::from_slice(data, &[len])
    }

    /// A 0-d array holding `value`.
    ///
    /// # Panics
    /// Only if MLX cannot allocate one element (as `Box::new` would).
    pub fn scalar<T: Element>(value: T) -> Array {
        Array::from_slice(&[value], &[]).expect("allocating a scalar array")
    }

    /// A 0-d array of `dtype` holding `value` converted by MLX (as C++ `array(value, dtype)`).
    pub fn scalar_as(value: f64, dtype: Dtype) -> Result<Array> {
        Array::wrap(sys::array_from_f64(value, dtype.code()))
    }

    /// The dimensions.
    pub fn shape(&self) -> Vec<i32> {
        sys::array_shape(&self.inner)
    }

    /// Size of dimension `axis`; negative counts from the end.
    pub fn dim(&self, axis: i32) -> Result<i32> {
        let shape = self.shape();
        let n = shape.len() as i32;
        let i = if axis < 0 { axis + n } else { axis };
        if i < 0 || i >= n {
            return Err(Error::InvalidArgument(format!(
                "axis {axis} is out of bounds for an array with {n} dimensions"
            )));
        }
        Ok(shape[i as usize])
    }

    /// Element strides of the underlying buffer (meaningful once evaluated).
    pub fn strides(&self) -> Vec<i64> {
        sys::array_strides(&self.inner)
    }

    pub fn ndim(&self) -> usize {
        sys::array_ndim(&self.inner)
    }

    /// Number of elements.
    pub fn size(&self) -> usize {
        sys::array_size(&self.inner)
    }

    pub fn nbytes(&self) -> usize {
        sys::array_nbytes(&self.inner)
    }

    pub fn itemsize(&self) -> usize {
        sys::array_itemsize(&self.inner)
    }

    pub fn dtype(&self) -> Dtype {
        Dtype::from_code(sys::array_dtype(&self.inner))
            .expect("the bridge hands out known dtypes only")
    }

    /// Identity of the graph node: equal for clones of one array.
    pub fn id(&self) -> usize {
        sys::array_id(&self.inner)
    }

    /// True once the data can be read without waiting (after eval, or a constant).
    pub fn is_available(&self) -> bool {
        sys::array_status(&self.inner) == 2
    }

    /// Computes the array (and what it depends on). Errors raised by MLX while evaluating,
    /// including those from kernels on stream threads, are returned.
    pub fn eval(&self) -> Result<()> {
        Ok(sys::array_eval(&self.inner)?)
    }

    /// The value of a one-element array (evaluates it).
    ///
    /// Errors if the array has not exactly one element (MLX's message) or `T` is not the
    /// array's dtype ([`Error::DtypeMismatch`]; convert with [`Array::astype`] first).
    pub fn item<T: Element>(&self) -> Result<T> {
        self.check_dtype::<T>()?;
        let mut bytes = vec![0u8; std::mem::size_of::<T>()];
        sys::array_item_to(&self.inner, &mut bytes)?;
        Ok(from_bytes::<T>(&bytes).pop().expect("one element"))
    }

    /// Every element's bytes in row-major order, native byte order, whatever the dtype (bool:
    /// one byte, 0 or 1); evaluates, views are made contiguous first. For comparing bits.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let mut bytes = vec![0u8; self.size() * self.itemsize()];
        sys::array_copy_to(&self.inner, &mut bytes)?;
        Ok(bytes)
    }

    /// All elements in row-major order (evaluates; views are made contiguous first).
    ///
    /// Errors if `T` is not the array's dtype, or if evaluation fails.
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>> {
        self.check_dtype::<T>()?;
        let n = self.size();
        if T::DTYPE == Dtype::Bool {
            return Ok(from_bytes::<T>(&self.to_bytes()?));
        }
        let mut out = vec![T::default(); n];
        // SAFETY: non-bool Element types are plain data for which every bit pattern is valid;
        // the byte view covers exactly the vector's elements.
        let bytes = unsafe {
            std::slice::from_raw_parts_mut(
                out.as_mut_ptr().cast::<u8>(),
                n * std::mem::size_of::<T>(),
            )
        };
        sys::array_copy_to(&self.inner, bytes)?;
        Ok(out)
    }

    fn check_dtype<T: Element>(&self) -> Result<()> {
        let actual = self.dtype();
        if actual != T::DTYPE {
            return Err(Error::DtypeMismatch { requested: T::DTYPE, actual });
        }
        Ok(())
    }

    /// MLX's text form of the array (evaluates it).
    pub fn try_to_string(&self) -> Result<String> {
        Ok(sys::array_to_string(&self.inner)?)
    }
}

/// Elements from native-endian bytes; bools compare against zero (not every byte is a bool).
fn from_bytes<T: Element>(bytes: &[u8]) -> Vec<T> {
    if T::DTYPE == Dtype::Bool {
        let bools: Vec<bool> = bytes.iter().map(|&b| b != 0).collect();
        let boxed: Box<dyn std::any::Any> = Box::new(bools);
        return *boxed.downcast::<Vec<T>>().expect("T is bool for Dtype::Bool");
    }
    let n = bytes.len() / std::mem::size_of::<T>();
    let mut out = vec![T::default(); n];
    // SAFETY: as in `to_vec`: plain data, every bit pattern valid, exact length.
    unsafe {
        std::ptr::copy_nonoverlapping(
            bytes.as_ptr(),
            out.as_mut_ptr().cast::<u8>(),
            n * std::mem::size_of::<T>(),
        );
    }
    out
}

impl Clone for Array {
    /// Another handle to the same graph node (no data is copied).
    fn clone(&self) -> Self {
        Array { inner: sys::array_clone(&self.inner) }
    }
}

impl Drop for Array {
    fn drop(&mut self) {
        let ptr = std::mem::replace(&mut self.inner, UniquePtr::null());
        if !ptr.is_null() {
            // Under the shim's lock: releasing a node can free graph nodes shared with others.
            sys::array_free(ptr);
        }
    }
}

impl AsRef<Array> for Array {
    fn as_ref(&self) -> &Array {
        self
    }
}

impl fmt::Display for Array {
    /// MLX's printer; evaluates the array. If evaluation fails, prints the error instead.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.try_to_string() {
            Ok(s) => f.write_str(&s),
            Err(e) => write!(f, "<array could not be evaluated: {e}>"),
        }
    }
}

impl fmt::Debug for Array {
    /// Shape, dtype and MLX's printout (evaluates the array).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Array")
            .field("shape", &self.shape())
            .field("dtype", &self.dtype())
            .field("data", &format_args!("{self}"))
            .finish()
    }
}
