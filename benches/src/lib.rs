//! Interleaved A/B timing inside one process: both sides of a case compute the same bits, one
//! through a patched path and one through the stock computation it replaces.

use mlx_model::median;
use std::time::Instant;

/// One side of a case: runs the computation to completion (evaluated) and returns its result.
pub type Side<'a, T> = Box<dyn FnMut() -> T + 'a>;

pub struct Measurement {
    pub name: String,
    /// Seconds per run of each side, in run order.
    pub stock: Vec<f64>,
    pub patched: Vec<f64>,
}

impl Measurement {
    /// Median over pairs of patched time / stock time (below 1 = the patch is faster).
    pub fn median_ratio(&self) -> f64 {
        let ratios: Vec<f64> = self.patched.iter().zip(&self.stock).map(|(p, s)| p / s).collect();
        median(&ratios).unwrap_or(f64::NAN)
    }
}

/// Runs `pairs` pairs in ABBA order after one warm-up of each side; checks both sides agree.
pub fn compare<T: PartialEq + std::fmt::Debug>(
    name: &str,
    pairs: usize,
    mut stock: Side<'_, T>,
    mut patched: Side<'_, T>,
) -> Measurement {
    assert_eq!(stock(), patched(), "{name}: the two sides must compute the same result");
    let mut m = Measurement { name: name.to_string(), stock: Vec::new(), patched: Vec::new() };
    for pair in 0..pairs {
        let time = |f: &mut Side<'_, T>| {
            let start = Instant::now();
            std::hint::black_box(f());
            start.elapsed().as_secs_f64()
        };
        if pair % 2 == 0 {
            m.stock.push(time(&mut stock));
            m.patched.push(time(&mut patched));
        } else {
            m.patched.push(time(&mut patched));
            m.stock.push(time(&mut stock));
        }
    }
    m
}

pub fn print_table(measurements: &[Measurement], patches: &[&str]) {
    println!("patches in this build: {patches:?}");
    println!(
        "| case | stock median (ms) | patched median (ms) | patched/stock (median of pairs) |"
    );
    println!("|---|---|---|---|");
    for m in measurements {
        let ms = |v: &[f64]| median(v).unwrap_or(f64::NAN) * 1e3;
        println!(
            "| {} | {:.2} | {:.2} | {:.3} |",
            m.name,
            ms(&m.stock),
            ms(&m.patched),
            m.median_ratio()
        );
    }
}
