//! A point's time per call split into what each call costs and what each evaluated graph costs,
//! from the point timed at more than one graph size (`mlx-ab ops --rows-per-graph`): time per
//! call = K + P / calls per graph, fitted by least squares in 1 / calls (two sizes: solved
//! exactly). An inference from the sizes measured, not a measurement of either part: it holds
//! as far as a graph's cost does not grow with its calls.

/// (K, P) in the unit of the times, from (calls per graph, time per call) samples; `None` where
/// they hold fewer than two graph sizes.
pub fn split(samples: &[(u64, f64)]) -> Option<(f64, f64)> {
    let n = samples.len() as f64;
    let x = |calls: u64| 1.0 / calls as f64;
    let mean_x = samples.iter().map(|&(c, _)| x(c)).sum::<f64>() / n;
    let mean_t = samples.iter().map(|&(_, t)| t).sum::<f64>() / n;
    let sxx: f64 = samples.iter().map(|&(c, _)| (x(c) - mean_x).powi(2)).sum();
    if samples.is_empty() || sxx == 0.0 {
        return None;
    }
    let sxt: f64 = samples.iter().map(|&(c, t)| (x(c) - mean_x) * (t - mean_t)).sum();
    let per_graph = sxt / sxx;
    Some((mean_t - per_graph * mean_x, per_graph))
}

#[cfg(test)]
mod tests {
    use super::split;

    #[test]
    fn two_sizes_solve_exactly_and_more_are_fitted() {
        // 0.136 ms a call and 0.31 ms a graph: 0.446 ms at 1 call to a graph, 0.17475 at 8.
        let (k, p) = split(&[(1, 0.446), (8, 0.136 + 0.31 / 8.0)]).unwrap();
        assert!((k - 0.136).abs() < 1e-12 && (p - 0.31).abs() < 1e-12, "{k} {p}");
        // Three sizes off the line by +-e: the fit lies between them.
        let (k, p) =
            split(&[(1, 0.446 + 0.01), (8, 0.17475 - 0.01), (48, 0.136 + 0.31 / 48.0)]).unwrap();
        assert!((k - 0.136).abs() < 0.02 && (p - 0.31).abs() < 0.03, "{k} {p}");
    }

    #[test]
    fn one_size_splits_nothing() {
        assert_eq!(split(&[]), None);
        assert_eq!(split(&[(8, 0.2)]), None);
        assert_eq!(split(&[(8, 0.2), (8, 0.21)]), None);
    }
}
