//! `std::vector<array>` owned from Rust, for ops that take or return several arrays.

use cxx::{CxxVector, UniquePtr};
use mlx_sys::ffi::array::ffi as sys;

use crate::{Array, Error, Result};

pub(crate) struct ArrayList {
    // Never null.
    inner: UniquePtr<CxxVector<sys::array>>,
}

impl ArrayList {
    pub(crate) fn new() -> Self {
        ArrayList { inner: sys::new_array_vec() }
    }

    pub(crate) fn from_arrays<A: AsRef<Array>>(arrays: &[A]) -> Self {
        let mut list = ArrayList::new();
        for a in arrays {
            sys::array_vec_push(list.inner.pin_mut(), a.as_ref().as_raw());
        }
        list
    }

    /// Takes a vector returned by the bridge.
    pub(crate) fn wrap(
        v: std::result::Result<UniquePtr<CxxVector<sys::array>>, cxx::Exception>,
    ) -> Result<Self> {
        let inner = v?;
        if inner.is_null() {
            return Err(Error::Mlx("MLX returned no arrays".into()));
        }
        Ok(ArrayList { inner })
    }

    pub(crate) fn raw(&self) -> &CxxVector<sys::array> {
        &self.inner
    }

    pub(crate) fn raw_mut(&mut self) -> std::pin::Pin<&mut CxxVector<sys::array>> {
        self.inner.pin_mut()
    }

    pub(crate) fn to_arrays(&self) -> Result<Vec<Array>> {
        (0..self.inner.len()).map(|i| Array::wrap(sys::array_vec_get(&self.inner, i))).collect()
    }
}

impl Drop for ArrayList {
    fn drop(&mut self) {
        let v = std::mem::replace(&mut self.inner, UniquePtr::null());
        if !v.is_null() {
            sys::array_vec_free(v);
        }
    }
}
