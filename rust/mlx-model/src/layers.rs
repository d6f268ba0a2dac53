//! The layers mlx-lm builds these models from, each holding its (possibly quantized) weights:
//! `nn.Linear` / `nn.QuantizedLinear`, `nn.Embedding` / `nn.QuantizedEmbedding`, `nn.RMSNorm`,
//! and the experts' `SwitchLinear` / `QuantizedSwitchLinear`.

use mlx::quantized::{self, QuantParams};
use mlx::{fast, ops, Array, Dtype};

use crate::weights::Weights;
use crate::{Error, Result};
use mlx_workload::QuantizationConfig;

const GROUP_SIZES: [i32; 3] = [32, 64, 128];
const BITS: [i32; 6] = [2, 3, 4, 5, 6, 8];

/// A weight matrix (or a stack of them, one per expert) with its quantization, if any.
#[derive(Clone)]
pub(crate) enum Weight {
    Dense(Array),
    Quantized { weight: Array, scales: Array, biases: Array, params: QuantParams },
}

/// How the module at `path` is stored, as mlx-lm's loader decides it: a per-module entry of the
/// `quantization` block wins; otherwise a module with `{path}.scales` is quantized with the
/// group size and bits its shapes imply (mlx-lm's `infer_quant_config`), falling back to the
/// block's default so that a misshapen tensor is reported against the expected shape.
fn quant_params(
    weights: &Weights,
    q: Option<&QuantizationConfig>,
    path: &str,
    in_dims: i32,
) -> Option<QuantParams> {
    let q = q?;
    if let Some(entry) = q.per_module.get(path) {
        return entry.as_ref().map(|s| QuantParams::affine(s.group_size, s.bits));
    }
    let scales = weights.get(&format!("{path}.scales"))?;
    let default = QuantParams::affine(q.default.group_size, q.default.bits);
    let inferred = (|| {
        let packed = *weights.get(&format!("{path}.weight"))?.shape().last()?;
        let groups = *scales.shape().last()?;
        if groups <= 0 || in_dims % groups != 0 || (packed * 32) % in_dims != 0 {
            return None;
        }
        let (group_size, bits) = (in_dims / groups, packed * 32 / in_dims);
        (GROUP_SIZES.contains(&group_size) && BITS.contains(&bits))
            .then(|| QuantParams::affine(group_size, bits))
    })();
    Some(inferred.unwrap_or(default))
}

fn check_float(name: &str, a: &Array) -> Result<()> {
    if !a.dtype().is_float() {
        return Err(Error::Dtype {
            name: name.to_owned(),
            expected: "a float type".into(),
            actual: a.dtype(),
        });
    }
    Ok(())
}

impl Weight {
    /// Takes `{path}.weight` (and `.scales`, `.biases` when quantized) of logical shape
    /// `[lead.., out_dims, in_dims]`.
    pub(crate) fn load(
        weights: &mut Weights,
        q: Option<&QuantizationConfig>,
        path: &str,
        lead: &[i32],
        out_dims: i32,
        in_dims: i32,
    ) -> Result<Weight> {
        let shape = |last: i32| [lead, &[out_dims, last]].concat();
        let wname = format!("{path}.weight");
        let Some(params) = quant_params(weights, q, path, in_dims) else {
            let w = weights.take(&wname, &shape(in_dims))?;
            check_float(&wname, &w)?;
            return Ok(Weight::Dense(w));
        };
        let (g, b) = (params.group_size.unwrap_or(64), params.bits.unwrap_or(4));
        if in_dims % g != 0 || (in_dims * b) % 32 != 0 {
            return Err(Error::Config(format!(
                "{path}: input size {in_dims} cannot be quantized with group size {g} and {b} bits"
            )));
        }
        let weight = weights.take(&wname, &shape(in_dims * b / 32))?;
        if weight.dtype() != Dtype::Uint32 {
            return Err(Error::Dtype {
                name: wname,
                expected: "uint32 (packed)".into(),
                actual: weight.dtype(),
            });
        }
        let mut scale_like = |suffix: &str| -> Result<Array> {
            let name = format!("{path}.{suffix}");
            let a = weights.take(&name, &shape(in_dims / g))?;
            check_float(&name, &a)?;
            Ok(a)
        };
        let scales = scale_like("scales")?;
        let biases = scale_like("biases")?;
        Ok(Weight::Quantized { weight, scales, biases, params })
    }

    /// The float type this weight produces (the scales' type when quantized).
    pub(crate) fn dtype(&self) -> Dtype {
        match self {
            Weight::Dense(w) => w.dtype(),
            Weight::Quantized { scales, .. } => scales.dtype(),
        }
    }

    /// `x @ W^T` (nn.Linear without bias / nn.QuantizedLinear, and `Embedding.as_linear`).
    pub(crate) fn linear(&self, x: &Array) -> Result<Array> {
        Ok(match self {
            Weight::Dense(w) => ops::matmul(x, &w.t()?)?,
            Weight::Quantized { weight, scales, biases, params } => {
                quantized::quantized_matmul(x, weight, scales, Some(biases), true, *params)?
            }
        })
    }

    /// Rows `ids` of the matrix (nn.Embedding / nn.QuantizedEmbedding).
    pub(crate) fn embed(&self, ids: &Array) -> Result<Array> {
        Ok(match self {
            Weight::Dense(w) => ops::take(w, ids, 0)?,
            Weight::Quantized { weight, scales, biases, params } => quantized::dequantize(
                &ops::take(weight, ids, 0)?,
                &ops::take(scales, ids, 0)?,
                Some(&ops::take(biases, ids, 0)?),
                *params,
                None,
            )?,
        })
    }

    /// `x @ W[indices]^T` for a stack of expert matrices (SwitchLinear / QuantizedSwitchLinear).
    pub(crate) fn gather_linear(&self, x: &Array, indices: &Array, sorted: bool) -> Result<Array> {
        Ok(match self {
            Weight::Dense(w) => {
                quantized::gather_mm(x, &w.swapaxes(-1, -2)?, None, Some(indices), sorted)?
            }
            Weight::Quantized { weight, scales, biases, params } => quantized::gather_qmm(
                x,
                weight,
                scales,
                Some(biases),
                None,
                Some(indices),
                true,
                *params,
                sorted,
            )?,
        })
    }
}

/// nn.RMSNorm.
pub(crate) struct RmsNorm {
    weight: Array,
    eps: f32,
}

impl RmsNorm {
    pub(crate) fn load(weights: &mut Weights, path: &str, dims: i32, eps: f32) -> Result<RmsNorm> {
        let name = format!("{path}.weight");
        let weight = weights.take(&name, &[dims])?;
        check_float(&name, &weight)?;
        Ok(RmsNorm { weight, eps })
    }

    pub(crate) fn forward(&self, x: &Array) -> Result<Array> {
        Ok(fast::rms_norm(x, Some(&self.weight), self.eps)?)
    }
}
