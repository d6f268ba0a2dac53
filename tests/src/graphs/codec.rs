//! Outputs as bytes, and as text to carry them between processes.

use mlx::{Array, Dtype, Result};

/// One evaluated output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    pub dtype: Dtype,
    pub shape: Vec<i32>,
    /// Row-major elements in native byte order (bool: one byte, 0 or 1).
    pub bytes: Vec<u8>,
}

/// `a` evaluated, as an [`Output`].
pub fn output(a: &Array) -> Result<Output> {
    Ok(Output { dtype: a.dtype(), shape: a.shape(), bytes: a.to_bytes()? })
}

/// Position of `dtype` in [`Dtype::ALL`] (MLX's order), the dtype's code in [`encode`].
fn dtype_code(dtype: Dtype) -> usize {
    Dtype::ALL.iter().position(|&d| d == dtype).expect("every dtype is in Dtype::ALL")
}

/// One line per output: `dtype-code dims hex-bytes`, dims comma-separated (`-` for a scalar).
pub fn encode(outputs: &[Output]) -> String {
    let mut text = String::new();
    for o in outputs {
        let dims: Vec<String> = o.shape.iter().map(|d| d.to_string()).collect();
        let dims = if dims.is_empty() { "-".to_string() } else { dims.join(",") };
        let hex: String = o.bytes.iter().map(|b| format!("{b:02x}")).collect();
        text.push_str(&format!(
            "{} {} {}\n",
            dtype_code(o.dtype),
            dims,
            if hex.is_empty() { "-" } else { &hex }
        ));
    }
    text
}

/// Inverse of [`encode`]; Err names the line it cannot read.
pub fn decode(text: &str) -> std::result::Result<Vec<Output>, String> {
    text.lines()
        .filter(|l| !l.is_empty())
        .map(|line| {
            let bad = || format!("bad output line: {line:?}");
            let mut parts = line.split(' ');
            let (Some(code), Some(dims), Some(hex), None) =
                (parts.next(), parts.next(), parts.next(), parts.next())
            else {
                return Err(bad());
            };
            let code: usize = code.parse().map_err(|_| bad())?;
            let dtype = *Dtype::ALL.get(code).ok_or_else(bad)?;
            let shape = if dims == "-" {
                Vec::new()
            } else {
                dims.split(',')
                    .map(|d| d.parse().map_err(|_| bad()))
                    .collect::<std::result::Result<_, _>>()?
            };
            let hex = if hex == "-" { "" } else { hex };
            if hex.len() % 2 != 0 {
                return Err(bad());
            }
            let bytes = (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).map_err(|_| bad()))
                .collect::<std::result::Result<_, _>>()?;
            Ok(Output { dtype, shape, bytes })
        })
        .collect()
}
