//! The tensors of a checkpoint directory, taken one by one by the layers that use them, so that
//! missing, misshapen and left-over tensors are all reported by name.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use mlx::{ops, Array};

use crate::{Error, Result};

pub(crate) struct Weights {
    tensors: BTreeMap<String, Array>,
}

/// `model*.safetensors` in `dir`, sorted (the files mlx-lm's loader reads).
pub(crate) fn weight_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let entries = std::fs::read_dir(dir).map_err(|source| match source.kind() {
        std::io::ErrorKind::NotFound => Error::MissingFile(dir.to_path_buf()),
        _ => Error::Io { path: dir.to_path_buf(), source },
    })?;
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|source| Error::Io { path: dir.to_path_buf(), source })?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with("model") && name.ends_with(".safetensors") {
            files.push(entry.path());
        }
    }
    files.sort();
    if files.is_empty() {
        return Err(Error::MissingFile(dir.join("model.safetensors")));
    }
    Ok(files)
}

impl Weights {
    /// Reads the headers of every weight file in `dir` (data is read lazily by MLX).
    pub(crate) fn load_dir(dir: &Path) -> Result<Weights> {
        let mut tensors = BTreeMap::new();
        for file in weight_files(dir)? {
            let loaded = mlx::io::load_safetensors(&file)
                .map_err(|e| Error::BadFile { path: file.clone(), message: e.to_string() })?;
            tensors.extend(loaded.tensors);
        }
        Ok(Weights { tensors })
    }

    pub(crate) fn get(&self, name: &str) -> Option<&Array> {
        self.tensors.get(name)
    }

    /// The tensor `name`, which must have shape `expected`.
    pub(crate) fn take(&mut self, name: &str, expected: &[i32]) -> Result<Array> {
        let a = self.tensors.remove(name).ok_or_else(|| Error::MissingTensor(name.to_owned()))?;
        check_shape(name, &a, expected)?;
        Ok(a)
    }

    /// Every tensor must have been taken: a left-over one means the checkpoint does not match the
    /// config (mlx-lm's strict loading refuses these as well).
    pub(crate) fn finish(self) -> Result<()> {
        match self.tensors.into_keys().next() {
            Some(name) => Err(Error::UnexpectedTensor(name)),
            None => Ok(()),
        }
    }

    /// mlx-lm's `sanitize` for these models: drop `lm_head.weight` when embeddings are tied, and
    /// stack per-expert weights (`experts.{e}.{proj}.weight`) into `switch_mlp.{proj}.weight`.
    pub(crate) fn sanitize(&mut self, tie_word_embeddings: bool, num_experts: usize) -> Result<()> {
        if tie_word_embeddings {
            self.tensors.remove("lm_head.weight");
        }
        let moe_layers: Vec<String> = self
            .tensors
            .keys()
            .filter_map(|k| k.strip_suffix(".mlp.experts.0.up_proj.weight"))
            .filter(|p| p.starts_with("model.layers."))
            .map(str::to_owned)
            .collect();
        for prefix in moe_layers {
            for proj in ["up_proj", "down_proj", "gate_proj"] {
                let parts = (0..num_experts)
                    .map(|e| {
                        let name = format!("{prefix}.mlp.experts.{e}.{proj}.weight");
                        self.tensors.remove(&name).ok_or(Error::MissingTensor(name))
                    })
                    .collect::<Result<Vec<_>>>()?;
                self.tensors.insert(
                    format!("{prefix}.mlp.switch_mlp.{proj}.weight"),
                    ops::stack(&parts, 0)?,
                );
            }
        }
        Ok(())
    }
}

pub(crate) fn check_shape(name: &str, a: &Array, expected: &[i32]) -> Result<()> {
    let actual = a.shape();
    if actual != expected {
        return Err(Error::Shape { name: name.to_owned(), expected: expected.to_vec(), actual });
    }
    Ok(())
}
