//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub use tempfile::TempDir;

/// A synthetic checkpoint of `preset` in a new temp dir.
pub fn synthetic(preset: &str, seed: u64) -> TempDir {
    let dir = tempfile::tempdir().expect("creating a temp dir");
    mlx_model::write_synthetic(dir.path(), preset, seed).expect("writing a synthetic checkpoint");
    dir
}

/// Largest value minus the second largest.
pub fn top2_gap(v: &[f32]) -> f32 {
    let mut s: Vec<f32> = v.to_vec();
    s.sort_by(|a, b| b.total_cmp(a));
    s[0] - s[1]
}
