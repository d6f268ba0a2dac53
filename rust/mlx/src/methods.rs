//! Method forms of the most used ops, so chains read left to right.

use crate::{ops, Array, Dtype, Result};

impl Array {
    pub fn astype(&self, dtype: Dtype) -> Result<Array> {
        ops::astype(self, dtype)
    }

    pub fn reshape(&self, shape: &[i32]) -> Result<Array> {
        ops::reshape(self, shape)
    }

    /// Reverses the axes.
    pub fn t(&self) -> Result<Array> {
        ops::transpose(self)
    }

    pub fn transpose_axes(&self, axes: &[i32]) -> Result<Array> {
        ops::transpose_axes(self, axes)
    }

    pub fn swapaxes(&self, axis1: i32, axis2: i32) -> Result<Array> {
        ops::swapaxes(self, axis1, axis2)
    }

    pub fn expand_dims(&self, axes: &[i32]) -> Result<Array> {
        ops::expand_dims(self, axes)
    }

    pub fn flatten(&self, start_axis: i32, end_axis: i32) -> Result<Array> {
        ops::flatten(self, start_axis, end_axis)
    }

    pub fn add(&self, other: &Array) -> Result<Array> {
        ops::add(self, other)
    }

    pub fn subtract(&self, other: &Array) -> Result<Array> {
        ops::subtract(self, other)
    }

    pub fn multiply(&self, other: &Array) -> Result<Array> {
        ops::multiply(self, other)
    }

    pub fn divide(&self, other: &Array) -> Result<Array> {
        ops::divide(self, other)
    }

    pub fn matmul(&self, other: &Array) -> Result<Array> {
        ops::matmul(self, other)
    }

    pub fn sum_axes(&self, axes: &[i32], keepdims: bool) -> Result<Array> {
        ops::sum_axes(self, axes, keepdims)
    }

    pub fn mean_axes(&self, axes: &[i32], keepdims: bool) -> Result<Array> {
        ops::mean_axes(self, axes, keepdims)
    }

    pub fn max_axes(&self, axes: &[i32], keepdims: bool) -> Result<Array> {
        ops::max_axes(self, axes, keepdims)
    }

    pub fn argmax_axis(&self, axis: i32, keepdims: bool) -> Result<Array> {
        ops::argmax_axis(self, axis, keepdims)
    }

    pub fn softmax_axes(&self, axes: &[i32], precise: bool) -> Result<Array> {
        ops::softmax_axes(self, axes, precise)
    }
}
