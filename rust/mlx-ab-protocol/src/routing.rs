//! How a sorted gather_qmm's rows are spread over experts (op-bench's ROUTING word, which
//! `mlx-ab ops --routing` sends). A router sends `experts *
//! rows_per_expert` rows in all; `uniform` gives each expert the mean, the skewed loads give
//! some experts many times the mean and others none, as real routers do on a batch. The tile
//! rule of the gather-qmm-tiles-cuda patch sees only the mean (`m / group_count`), so these are
//! the loads that can make it lose.

/// A load pattern over experts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Routing {
    /// Every expert gets `rows_per_expert` rows.
    Uniform,
    /// Expert i's share falls as 1 / (i + 1) (Zipf, exponent 1): with 128 experts the first
    /// gets about 24 times the mean.
    Zipf,
    /// Expert 0 gets 8 times the mean (all rows if fewer); the others share the rest evenly.
    Hot,
}

impl Routing {
    pub const WORDS: [&'static str; 3] = ["uniform", "zipf", "hot"];

    pub fn word(self) -> &'static str {
        Routing::WORDS[self as usize]
    }

    pub fn parse(word: &str) -> Result<Routing, String> {
        match word {
            "uniform" => Ok(Routing::Uniform),
            "zipf" => Ok(Routing::Zipf),
            "hot" => Ok(Routing::Hot),
            _ => Err(format!("unknown routing {word:?} ({})", Routing::WORDS.join(", "))),
        }
    }

    /// Rows per expert, summing to `experts * rows_per_expert`.
    pub fn loads(self, experts: usize, rows_per_expert: usize) -> Vec<usize> {
        let total = experts * rows_per_expert;
        match self {
            Routing::Uniform => vec![rows_per_expert; experts],
            Routing::Zipf => {
                let weights: Vec<f64> = (0..experts).map(|i| 1.0 / (i + 1) as f64).collect();
                largest_remainder(&weights, total)
            }
            Routing::Hot => {
                let hot = total.min(8 * rows_per_expert);
                let mut loads = vec![hot];
                if experts > 1 {
                    let rest = vec![1.0; experts - 1];
                    loads.extend(largest_remainder(&rest, total - hot));
                }
                loads
            }
        }
    }

    /// The expert of each row, sorted (what gather_qmm's `rhs_indices` holds when sorted).
    pub fn sorted_experts(self, experts: usize, rows_per_expert: usize) -> Vec<u32> {
        let loads = self.loads(experts, rows_per_expert);
        (0u32..).zip(loads).flat_map(|(e, n)| std::iter::repeat_n(e, n)).collect()
    }
}

/// `total` split in proportion to `weights`, rounded so the parts sum to `total`: each part's
/// floor, then one more to the largest remainders (the lower index first on a tie).
fn largest_remainder(weights: &[f64], total: usize) -> Vec<usize> {
    let sum: f64 = weights.iter().sum();
    let exact: Vec<f64> = weights.iter().map(|w| w / sum * total as f64).collect();
    let mut parts: Vec<usize> = exact.iter().map(|x| x.floor() as usize).collect();
    let mut order: Vec<usize> = (0..weights.len()).collect();
    order.sort_by(|&a, &b| (exact[b] - exact[b].floor()).total_cmp(&(exact[a] - exact[a].floor())));
    let short = total - parts.iter().sum::<usize>();
    for &i in order.iter().take(short) {
        parts[i] += 1;
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_routing_keeps_the_total_and_the_order() {
        for routing in Routing::WORDS.map(|w| Routing::parse(w).unwrap()) {
            for (experts, r) in [(128, 1), (128, 4), (128, 256), (32, 3), (1, 5), (7, 1)] {
                let loads = routing.loads(experts, r);
                assert_eq!(loads.len(), experts, "{routing:?} {experts} {r}");
                assert_eq!(loads.iter().sum::<usize>(), experts * r, "{routing:?} {experts} {r}");
                let rows = routing.sorted_experts(experts, r);
                assert_eq!(rows.len(), experts * r);
                assert!(rows.windows(2).all(|w| w[0] <= w[1]), "not sorted");
                assert!(rows.iter().all(|&e| (e as usize) < experts));
            }
        }
        assert!(Routing::parse("skewed").unwrap_err().contains("uniform, zipf, hot"));
        for word in Routing::WORDS {
            assert_eq!(Routing::parse(word).unwrap().word(), word);
        }
    }

    #[test]
    fn uniform_gives_the_mean() {
        assert_eq!(Routing::Uniform.sorted_experts(3, 2), [0, 0, 1, 1, 2, 2]);
    }

    #[test]
    fn hot_expert_gets_eight_times_the_mean() {
        let loads = Routing::Hot.loads(128, 4);
        assert_eq!(loads[0], 32);
        // 480 rows left over 127 experts: 99 get 4, 28 get 3.
        assert_eq!(loads[1..].iter().filter(|&&n| n == 4).count(), 99);
        assert_eq!(loads[1..].iter().filter(|&&n| n == 3).count(), 28);
        // One row per expert: 8 on the hot one, 120 over the other 127 (7 get none).
        let loads = Routing::Hot.loads(128, 1);
        assert_eq!((loads[0], loads.iter().filter(|&&n| n == 0).count()), (8, 7));
        // Fewer experts than 8: the hot one takes everything.
        assert_eq!(Routing::Hot.loads(4, 2), [8, 0, 0, 0]);
    }

    #[test]
    fn zipf_falls_as_one_over_rank() {
        let loads = Routing::Zipf.loads(128, 256);
        assert!(loads.windows(2).all(|w| w[0] >= w[1]), "not falling");
        // H(128) = 5.4330...: the first expert gets 32768 / 5.433 = 6031.2 rows, the second half.
        assert_eq!(loads[0], 6031);
        assert!(loads[1].abs_diff(3016) <= 1, "{}", loads[1]);
        assert!(loads[127] == 47 || loads[127] == 48, "{}", loads[127]);
    }
}
