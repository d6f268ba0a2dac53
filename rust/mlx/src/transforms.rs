//! Evaluating several arrays at once.

use mlx_sys::ffi::array::ffi as sys;

use crate::array_list::ArrayList;
use crate::{Array, Result};

/// Evaluates all `arrays` in one graph walk and waits for the results.
pub fn eval<A: AsRef<Array>>(arrays: &[A]) -> Result<()> {
    let list = ArrayList::from_arrays(arrays);
    Ok(sys::eval_all(list.raw())?)
}

/// Schedules evaluation of `arrays` and returns without waiting; reading the arrays (or
/// [`eval`], [`crate::synchronize`]) waits. Errors found while scheduling are returned here;
/// errors raised later by kernels surface at the next wait.
pub fn async_eval<A: AsRef<Array>>(arrays: &[A]) -> Result<()> {
    let list = ArrayList::from_arrays(arrays);
    Ok(sys::async_eval_all(list.raw())?)
}
