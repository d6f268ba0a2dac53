//! The block's shape and its inputs: host data both bindings are given, bit for bit.

/// Shape of the block (qwen3: head_dim * heads need not equal hidden; here it does).
#[derive(Debug, Clone, Copy)]
pub struct Config {
    pub batch: i32,
    pub seq: i32,
    pub hidden: i32,
    pub heads: i32,
    pub kv_heads: i32,
    pub head_dim: i32,
    pub intermediate: i32,
    pub rope_base: f32,
    pub eps: f32,
}

impl Config {
    /// Small enough for CI, with grouped-query attention (2 query heads per kv head).
    pub const SMALL: Config = Config {
        batch: 1,
        seq: 16,
        hidden: 64,
        heads: 4,
        kv_heads: 2,
        head_dim: 16,
        intermediate: 128,
        rope_base: 1_000_000.0,
        eps: 1e-6,
    };
}

/// Activations and weights (row-major; linear weights are `[out, in]`, as in checkpoints).
#[derive(Debug, Clone)]
pub struct Inputs {
    pub x: Vec<f32>,
    pub input_norm: Vec<f32>,
    pub wq: Vec<f32>,
    pub wk: Vec<f32>,
    pub wv: Vec<f32>,
    pub wo: Vec<f32>,
    pub q_norm: Vec<f32>,
    pub k_norm: Vec<f32>,
    pub post_norm: Vec<f32>,
    pub w_gate: Vec<f32>,
    pub w_up: Vec<f32>,
    pub w_down: Vec<f32>,
}

impl Inputs {
    /// Deterministic for a seed: uniform in [-scale, scale) from a xorshift generator, so no
    /// MLX random op (whose streams differ between bindings) is involved.
    pub fn new(c: &Config, seed: u64) -> Inputs {
        let mut rng = XorShift(seed.max(1));
        let mut uniform = |n: i32, scale: f32| -> Vec<f32> {
            (0..n).map(|_| (rng.next_unit() * 2.0 - 1.0) * scale).collect()
        };
        let (d, q, kv, i) =
            (c.hidden, c.heads * c.head_dim, c.kv_heads * c.head_dim, c.intermediate);
        let w = |fan_in: i32| 1.0 / (fan_in as f32).sqrt();
        Inputs {
            x: uniform(c.batch * c.seq * d, 1.0),
            input_norm: uniform(d, 0.5).iter().map(|v| 1.0 + v).collect(),
            wq: uniform(q * d, w(d)),
            wk: uniform(kv * d, w(d)),
            wv: uniform(kv * d, w(d)),
            wo: uniform(d * q, w(q)),
            q_norm: uniform(c.head_dim, 0.5).iter().map(|v| 1.0 + v).collect(),
            k_norm: uniform(c.head_dim, 0.5).iter().map(|v| 1.0 + v).collect(),
            post_norm: uniform(d, 0.5).iter().map(|v| 1.0 + v).collect(),
            w_gate: uniform(i * d, w(d)),
            w_up: uniform(i * d, w(d)),
            w_down: uniform(d * i, w(i)),
        }
    }
}

struct XorShift(u64);

impl XorShift {
    /// In [0, 1), with 24 random bits (exact in f32).
    fn next_unit(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// The first index where the two outputs differ in any bit (lengths differing count at the
/// shorter length); `None` when they are bit-identical. NaNs compare by payload too.
pub fn first_difference(a: &[f32], b: &[f32]) -> Option<usize> {
    let common = a.len().min(b.len());
    (0..common)
        .find(|&i| a[i].to_bits() != b[i].to_bits())
        .or((a.len() != b.len()).then_some(common))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_flipped_bit_is_a_difference() {
        let a = Inputs::new(&Config::SMALL, 7).x;
        assert_eq!(first_difference(&a, &a), None);
        for bit in [0, 22, 31] {
            let mut b = a.clone();
            b[5] = f32::from_bits(b[5].to_bits() ^ (1 << bit));
            assert_eq!(first_difference(&a, &b), Some(5), "bit {bit}");
        }
        assert_eq!(first_difference(&a, &a[..3]), Some(3));
        // -0.0 == 0.0 as floats, not as bits.
        assert_eq!(first_difference(&[0.0], &[-0.0]), Some(0));
    }

    #[test]
    fn inputs_are_deterministic() {
        let (a, b) = (Inputs::new(&Config::SMALL, 3), Inputs::new(&Config::SMALL, 3));
        assert_eq!(first_difference(&a.w_down, &b.w_down), None);
        assert!(first_difference(&a.x, &Inputs::new(&Config::SMALL, 4).x).is_some());
    }
}
