//! Safetensors files.

use std::collections::BTreeMap;
use std::path::Path;

use mlx_sys::ffi::io::ffi as sys;

use crate::array_list::ArrayList;
use crate::{Array, Error, Result};

/// The tensors and metadata of a safetensors file, by name.
#[derive(Debug, Clone, Default)]
pub struct Safetensors {
    pub tensors: BTreeMap<String, Array>,
    pub metadata: BTreeMap<String, String>,
}

fn path_str(path: &Path) -> Result<&str> {
    path.to_str()
        .ok_or_else(|| Error::InvalidArgument(format!("path {} is not UTF-8", path.display())))
}

/// Reads the header of `path` now (a missing, truncated or malformed file is an `Err`
/// here); tensor data is read from the file when the arrays are evaluated.
pub fn load_safetensors(path: impl AsRef<Path>) -> Result<Safetensors> {
    let path = path_str(path.as_ref())?;
    let (mut names, mut keys, mut values) = (Vec::new(), Vec::new(), Vec::new());
    let mut list = ArrayList::new();
    sys::load_safetensors(path, &mut names, list.raw_mut(), &mut keys, &mut values)?;
    let tensors = names.into_iter().zip(list.to_arrays()?).collect();
    let metadata = keys.into_iter().zip(values).collect();
    Ok(Safetensors { tensors, metadata })
}

/// Writes `tensors` (evaluating them) and string `metadata` to `path`.
pub fn save_safetensors<'a>(
    path: impl AsRef<Path>,
    tensors: impl IntoIterator<Item = (&'a str, &'a Array)>,
    metadata: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Result<()> {
    let mut names = Vec::new();
    let mut arrays = Vec::new();
    for (name, a) in tensors {
        names.push(name.to_owned());
        arrays.push(a);
    }
    let (keys, values): (Vec<String>, Vec<String>) =
        metadata.into_iter().map(|(k, v)| (k.to_owned(), v.to_owned())).unzip();
    let list = ArrayList::from_arrays(&arrays);
    Ok(sys::save_safetensors(path_str(path.as_ref())?, &names, list.raw(), &keys, &values)?)
}
