//! What `mlx-ab ops` and an arm's op worker (`op-bench`, benches/src/bin/op-bench.rs) say to
//! each other: one JSON [`OpRequest`] per line on the worker's stdin, one JSON [`OpReply`] per
//! line on its stdout. An [`Op`] is also written as words (`gather_qmm affine4 up 4 128 2048
//! 768`), the `args` every op report keys its points by; [`Op::parse`] reads them back, the
//! older reports' shorter forms included.

use crate::routing::Routing;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Qwen3-30B-A3B's experts: count, hidden size, expert width (a gather without a shape).
pub const QWEN3_30B_A3B: [u64; 3] = [128, 2048, 768];

/// The float dtypes an op may name.
pub const DTYPES: [&str; 3] = ["float32", "float16", "bfloat16"];
/// A quantized product's dtype when its args name none (every report before dtypes).
pub const QUANTIZED_DTYPE: &str = "bfloat16";

fn quantized_dtype() -> String {
    QUANTIZED_DTYPE.into()
}

/// A quantized product's operands: MODE (`affine4`, `mxfp4`, `nvfp4`, `mxfp8`), PROJ (`up`:
/// hidden -> width, `down`: width -> hidden), and `experts * rows_per_expert` rows of DTYPE.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Quantized {
    pub mode: String,
    pub proj: String,
    /// The mean: `routing` says how the rows spread over the experts.
    pub rows_per_expert: u64,
    /// experts, hidden size, expert width.
    pub shape: [u64; 3],
    pub routing: Routing,
    /// The activations' dtype, and the weights' before quantizing (so affine scales and biases
    /// are of it too, as in a model of that dtype). Absent in older requests: bf16.
    #[serde(default = "quantized_dtype")]
    pub dtype: String,
}

impl Quantized {
    /// The dtype word when it is not bf16: what args, labels and report fields carry, so a bf16
    /// point keeps the form it had before dtypes (older reports' keys).
    pub fn named_dtype(&self) -> Option<&str> {
        (self.dtype != QUANTIZED_DTYPE).then_some(self.dtype.as_str())
    }
}

/// Causal attention of one batch, head dim 128: DTYPE (`float32`, `float16`, `bfloat16`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attention {
    pub dtype: String,
    pub heads: u64,
    pub q_len: u64,
    pub kv_len: u64,
}

/// One op to time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Op {
    /// Sorted-rhs gather_qmm.
    GatherQmm(Quantized),
    /// Dense quantized_matmul of the same rows with one expert's weights: the gather's flops
    /// (upstream issue #4339's equal-flop comparison); uniform routing only.
    Qmm(Quantized),
    /// Causal scaled_dot_product_attention.
    Sdpa(Attention),
    /// The causal softmax stage of that attention's fallback on held scores.
    Softmax(Attention),
    /// Building and evaluating a graph of NODES scalar nodes on the CPU (`chain`, `fanin`,
    /// `multiout`, `streams`; `decode`: NODES decode-shaped layers): the eval walk's path.
    Graph { graph: String, nodes: u64 },
    /// One causal-attention training step on the CPU (float32): MASK `causal` (the mode string)
    /// or `array` (the same mask as a bool array: stock's chain in any build).
    SdpaGrad { mask: String, heads: u64, len: u64, head_dim: u64 },
}

impl Op {
    /// The op's name, its args' first word.
    pub fn name(&self) -> &'static str {
        match self {
            Op::GatherQmm(_) => "gather_qmm",
            Op::Qmm(_) => "qmm",
            Op::Sdpa(_) => "sdpa",
            Op::Softmax(_) => "softmax",
            Op::Graph { .. } => "graph",
            Op::SdpaGrad { .. } => "sdpa_grad",
        }
    }

    /// Reads an op's args back: `gather_qmm|qmm MODE PROJ ROWS [E H W [ROUTING] [DTYPE]]` (no
    /// shape: Qwen3-30B-A3B's; no routing: uniform; no dtype: bf16; qmm takes no routing),
    /// `sdpa|softmax DTYPE HEADS Q KV`, `graph SHAPE NODES`, `sdpa_grad MASK HEADS LEN HEAD_DIM`.
    pub fn parse(args: &str) -> Result<Op, String> {
        let w: Vec<&str> = args.split_whitespace().collect();
        let num = |i: usize| -> Result<u64, String> {
            w.get(i)
                .and_then(|s| s.parse::<u64>().ok())
                .filter(|&n| n > 0)
                .ok_or_else(|| format!("args `{args}`: word {} is not a positive number", i + 1))
        };
        let quantized = |routing_allowed: bool| -> Result<Quantized, String> {
            let shape = match w.len() {
                4 => QWEN3_30B_A3B,
                7..=9 => [num(4)?, num(5)?, num(6)?],
                _ => {
                    return Err(format!(
                        "args `{args}`: MODE PROJ ROWS [E H W [ROUTING] [DTYPE]] wanted"
                    ))
                }
            };
            // The dtype, if any, is the last word: no routing word is a dtype.
            let mut tail = w.get(7..).unwrap_or_default();
            let dtype = match tail.split_last() {
                Some((last, rest)) if DTYPES.contains(last) => {
                    tail = rest;
                    last.to_string()
                }
                _ => quantized_dtype(),
            };
            let not_dtype = |word: &str| {
                format!("args `{args}`: {word:?} is not a dtype ({})", DTYPES.join(", "))
            };
            let routing = match tail {
                [] => Routing::Uniform,
                [word] if routing_allowed => Routing::parse(word).map_err(|_| {
                    format!("{}, nor a routing ({})", not_dtype(word), Routing::WORDS.join(", "))
                })?,
                [word] => return Err(format!("{}; qmm takes no routing", not_dtype(word))),
                [.., last] => return Err(not_dtype(last)),
            };
            Ok(Quantized {
                mode: w[1].into(),
                proj: w[2].into(),
                rows_per_expert: num(3)?,
                shape,
                routing,
                dtype,
            })
        };
        let attention = || -> Result<Attention, String> {
            match w.len() {
                5 => Ok(Attention {
                    dtype: w[1].into(),
                    heads: num(2)?,
                    q_len: num(3)?,
                    kv_len: num(4)?,
                }),
                _ => Err(format!("args `{args}`: DTYPE HEADS Q_LEN KV_LEN wanted")),
            }
        };
        match w.first().copied() {
            Some("gather_qmm") => Ok(Op::GatherQmm(quantized(true)?)),
            Some("qmm") => Ok(Op::Qmm(quantized(false)?)),
            Some("sdpa") => Ok(Op::Sdpa(attention()?)),
            Some("softmax") => Ok(Op::Softmax(attention()?)),
            Some("graph") if w.len() == 3 => Ok(Op::Graph { graph: w[1].into(), nodes: num(2)? }),
            Some("sdpa_grad") if w.len() == 5 => Ok(Op::SdpaGrad {
                mask: w[1].into(),
                heads: num(2)?,
                len: num(3)?,
                head_dim: num(4)?,
            }),
            _ => Err(format!("args `{args}` not understood")),
        }
    }
}

/// The args: the op's words, every shape written out, the routing only when skewed, a quantized
/// product's dtype only when not bf16 (so older reports' args, their points' keys, stay as
/// they were).
impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let name = self.name();
        match self {
            Op::GatherQmm(q) | Op::Qmm(q) => {
                let [e, h, w] = q.shape;
                write!(f, "{name} {} {} {} {e} {h} {w}", q.mode, q.proj, q.rows_per_expert)?;
                if q.routing != Routing::Uniform {
                    write!(f, " {}", q.routing.word())?;
                }
                match q.named_dtype() {
                    Some(dtype) => write!(f, " {dtype}"),
                    None => Ok(()),
                }
            }
            Op::Sdpa(a) | Op::Softmax(a) => {
                write!(f, "{name} {} {} {} {}", a.dtype, a.heads, a.q_len, a.kv_len)
            }
            Op::Graph { graph, nodes } => write!(f, "{name} {graph} {nodes}"),
            Op::SdpaGrad { mask, heads, len, head_dim } => {
                write!(f, "{name} {mask} {heads} {len} {head_dim}")
            }
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "request", rename_all = "snake_case")]
pub enum OpRequest {
    /// Evaluate `calls` independent calls of `op` as one graph, `reps` times (for graph and
    /// sdpa_grad, `calls` is ignored: one graph or step per timing).
    Time {
        op: Op,
        calls: u64,
        reps: u64,
    },
    Quit,
}

/// What a timed request measured: the median over the reps of seconds per call, the peak
/// memory, and a digest of one output's bits (every float dtype widened to f32), for the
/// driver's bitwise check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Timing {
    pub seconds_per_call: f64,
    pub peak_bytes: u64,
    pub digest: String,
    /// Quantized products only: ||y - r|| / ||r|| over up to 16 rows of the output, r the
    /// float32 product of the same inputs with the dequantized weights (on the CPU). What a
    /// kernel that cannot be bit-identical to stock's is held to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference_error: Option<f64>,
    /// Median seconds per call until MLX returned from `async_eval`: the host's share (graph
    /// walk, encoding, launches). Near `seconds_per_call`, the host bounds the op, not the GPU.
    /// Older workers send none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_seconds_per_call: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "reply", rename_all = "snake_case")]
pub enum OpReply {
    Timed(Timing),
    Error { message: String },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn args_round_trip_and_older_forms_read() {
        for args in [
            "gather_qmm affine4 up 4 128 2048 768",
            "gather_qmm mxfp4 down 16 32 512 512 hot",
            "gather_qmm affine4 up 2 32 512 1024 float32",
            "gather_qmm mxfp4 down 16 32 512 512 hot float16",
            "qmm nvfp4 up 1 128 2048 768",
            "qmm affine4 up 1 32 512 1024 float32",
            "sdpa bfloat16 8 8192 8192",
            "softmax float32 1 32768 32768",
            "graph chain 10000",
            "sdpa_grad array 8 1024 64",
        ] {
            let op = Op::parse(args).unwrap();
            assert_eq!(op.to_string(), args);
            assert_eq!(op.name(), args.split(' ').next().unwrap());
        }
        // Before shapes were written out: the default shape, uniform.
        assert_eq!(
            Op::parse("gather_qmm affine4 down 8").unwrap().to_string(),
            "gather_qmm affine4 down 8 128 2048 768"
        );
        // bf16 named: the same op, written as every report before dtypes wrote it.
        assert_eq!(
            Op::parse("gather_qmm affine4 up 2 32 512 1024 uniform bfloat16").unwrap(),
            Op::parse("gather_qmm affine4 up 2 32 512 1024").unwrap()
        );
        for bad in [
            "sdpa float32 8 2048",
            "matmul 1 2 3",
            "gather_qmm affine4 up 0",
            "qmm affine4 up 4 1 2 3 hot",
            "gather_qmm affine4 up 4 1 2 3 skewed",
            // An unknown trailing word is neither a routing nor a dtype.
            "gather_qmm affine4 up 4 1 2 3 float64",
            "gather_qmm affine4 up 4 1 2 3 hot float64",
            "qmm affine4 up 4 1 2 3 float64",
            "qmm affine4 up 4 1 2 3 hot float32",
            // Routing before dtype, one of each.
            "gather_qmm affine4 up 4 1 2 3 float32 hot",
            "gather_qmm affine4 up 4 1 2 3 hot zipf",
            "gather_qmm affine4 up 4 1 2 3 hot float32 float32",
            "",
        ] {
            assert!(Op::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn requests_and_replies_are_one_line_of_json() {
        let request = OpRequest::Time {
            op: Op::parse("gather_qmm mxfp4 up 4 128 2048 768 zipf").unwrap(),
            calls: 8,
            reps: 3,
        };
        let text = serde_json::to_string(&request).unwrap();
        assert!(!text.contains('\n'));
        assert!(
            text.starts_with(r#"{"request":"time","op":{"op":"gather_qmm","mode":"mxfp4""#),
            "{text}"
        );
        assert!(text.contains(r#""routing":"zipf""#), "{text}");
        assert_eq!(serde_json::from_str::<OpRequest>(&text).unwrap(), request);
        // A request from before dtypes: bf16.
        let older = text.replace(r#","dtype":"bfloat16""#, "");
        assert_ne!(older, text);
        assert_eq!(serde_json::from_str::<OpRequest>(&older).unwrap(), request);
        assert_eq!(
            serde_json::from_str::<OpRequest>(r#"{"request":"quit"}"#).unwrap(),
            OpRequest::Quit
        );
        let reply = OpReply::Timed(Timing {
            seconds_per_call: 2.5e-3,
            peak_bytes: 4096,
            digest: "00ff".into(),
            reference_error: None,
            host_seconds_per_call: None,
        });
        let text = serde_json::to_string(&reply).unwrap();
        assert_eq!(
            text,
            r#"{"reply":"timed","seconds_per_call":0.0025,"peak_bytes":4096,"digest":"00ff"}"#
        );
        assert_eq!(serde_json::from_str::<OpReply>(&text).unwrap(), reply);
        let OpReply::Timed(timing) = reply else { unreachable!() };
        let with_error = OpReply::Timed(Timing { reference_error: Some(1.5e-3), ..timing.clone() });
        let text = serde_json::to_string(&with_error).unwrap();
        assert!(text.ends_with(r#","reference_error":0.0015}"#), "{text}");
        assert_eq!(serde_json::from_str::<OpReply>(&text).unwrap(), with_error);
        let with_host = OpReply::Timed(Timing { host_seconds_per_call: Some(1e-4), ..timing });
        let text = serde_json::to_string(&with_host).unwrap();
        assert!(text.ends_with(r#","host_seconds_per_call":0.0001}"#), "{text}");
        assert_eq!(serde_json::from_str::<OpReply>(&text).unwrap(), with_host);
    }
}
