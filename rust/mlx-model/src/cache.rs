//! The KV cache, as mlx-lm's `KVCache`: buffers grown in steps of 256 positions, new keys and
//! values written in place with `slice_update`, and the filled prefix handed to attention.

use mlx::{ops, Array};

use crate::Result;

/// Positions added per growth step (mlx-lm's `KVCache.step`).
const STEP: i32 = 256;

/// One layer's keys and values, `[batch, kv_heads, capacity, head_dim]`.
#[derive(Default)]
pub(crate) struct LayerCache {
    keys: Option<Array>,
    values: Option<Array>,
    offset: i32,
}

impl LayerCache {
    /// Appends `keys`/`values` (`[B, H, L, D]`) and returns all cached positions so far.
    pub(crate) fn update_and_fetch(
        &mut self,
        keys: &Array,
        values: &Array,
    ) -> Result<(Array, Array)> {
        let prev = self.offset;
        let new_len = keys.dim(2)?;
        let capacity = match &self.keys {
            Some(k) => k.dim(2)?,
            None => 0,
        };
        if self.keys.is_none() || prev + new_len > capacity {
            let n_steps = (STEP + new_len - 1) / STEP;
            let grow = |a: &Array, old: Option<&Array>| -> Result<Array> {
                let shape = a.shape();
                let fresh = ops::zeros(&[shape[0], shape[1], n_steps * STEP, shape[3]], a.dtype())?;
                Ok(match old {
                    None => fresh,
                    Some(old) => {
                        // mlx-lm trims a partly filled buffer before growing it.
                        let old = if prev % STEP != 0 { prefix(old, prev)? } else { old.clone() };
                        ops::concatenate(&[old, fresh], 2)?
                    }
                })
            };
            self.keys = Some(grow(keys, self.keys.as_ref())?);
            self.values = Some(grow(values, self.values.as_ref())?);
        }
        self.offset += new_len;
        let write = |buf: &Array, update: &Array| -> Result<Array> {
            let s = buf.shape();
            Ok(ops::slice_update(
                buf,
                update,
                &[0, 0, prev, 0],
                &[s[0], s[1], self.offset, s[3]],
                &[1, 1, 1, 1],
            )?)
        };
        let k = write(self.keys.as_ref().expect("allocated above"), keys)?;
        let v = write(self.values.as_ref().expect("allocated above"), values)?;
        let filled = |a: &Array| -> Result<Array> {
            if self.offset < a.dim(2)? {
                prefix(a, self.offset)
            } else {
                Ok(a.clone())
            }
        };
        let out = (filled(&k)?, filled(&v)?);
        self.keys = Some(k);
        self.values = Some(v);
        Ok(out)
    }

    /// Number of cached positions.
    pub(crate) fn offset(&self) -> i32 {
        self.offset
    }

    /// The buffers (mlx-lm's `state`), for evaluating after a prefill chunk.
    pub(crate) fn state(&self) -> impl Iterator<Item = &Array> {
        self.keys.iter().chain(self.values.iter())
    }
}

/// `a[:, :, :len, :]`.
fn prefix(a: &Array, len: i32) -> Result<Array> {
    let s = a.shape();
    Ok(ops::slice(a, &[0, 0, 0, 0], &[s[0], s[1], len, s[3]], &[1, 1, 1, 1])?)
}

/// The KV cache of a whole model: one [`LayerCache`] per decoder layer.
pub struct Cache {
    pub(crate) layers: Vec<LayerCache>,
}

impl Cache {
    pub(crate) fn new(num_layers: usize) -> Cache {
        Cache { layers: (0..num_layers).map(|_| LayerCache::default()).collect() }
    }

    /// Number of positions processed so far.
    pub fn offset(&self) -> usize {
        self.layers.first().map_or(0, |l| l.offset() as usize)
    }

    /// Evaluates every layer's buffers (what mlx-lm does after each prefill chunk).
    pub fn eval(&self) -> Result<()> {
        Ok(mlx::eval(&self.state())?)
    }

    /// Starts evaluating every layer's buffers without waiting for them.
    pub fn async_eval(&self) -> Result<()> {
        Ok(mlx::async_eval(&self.state())?)
    }

    fn state(&self) -> Vec<&Array> {
        self.layers.iter().flat_map(LayerCache::state).collect()
    }
}
