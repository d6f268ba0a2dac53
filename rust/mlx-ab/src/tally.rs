//! Collects the runs as they finish: checks each arm against its own first run, compares the two
//! arms within each pair as soon as both have run, and keeps every speed and memory sample.

use crate::compare::{compare, Comparison, Output};
use crate::schedule::{b_first, Arm};
use mlx_ab_protocol::protocol::RunResult;

/// One finished run: its result and its `[steps][vocab]` logits.
pub struct RunOutput {
    pub result: RunResult,
    pub logits: Vec<f32>,
}

impl RunOutput {
    fn output(&self) -> Output<'_> {
        Output { tokens: &self.result.tokens, logits: &self.logits, vocab: self.result.vocab }
    }
}

#[derive(Default)]
pub struct ArmTally {
    /// The arm's first run (warm-up or measured): what every later run must reproduce.
    reference: Option<RunOutput>,
    runs: usize,
    pub first_nondeterministic_run: Option<usize>,
    /// Every later run (warm-up or measured) against the first, in run order.
    pub self_comparisons: Vec<Comparison>,
    /// Measured results by pair.
    pub measured: Vec<Option<RunResult>>,
}

pub struct Tally {
    pub a: ArmTally,
    pub b: ArmTally,
    pending: Vec<[Option<RunOutput>; 2]>,
    pub comparisons: Vec<Option<Comparison>>,
}

impl Tally {
    pub fn new(pairs: usize) -> Self {
        let arm =
            || ArmTally { measured: (0..pairs).map(|_| None).collect(), ..ArmTally::default() };
        Tally {
            a: arm(),
            b: arm(),
            pending: (0..pairs).map(|_| [None, None]).collect(),
            comparisons: (0..pairs).map(|_| None).collect(),
        }
    }

    fn arm_mut(&mut self, arm: Arm) -> &mut ArmTally {
        match arm {
            Arm::A => &mut self.a,
            Arm::B => &mut self.b,
        }
    }

    /// Records a run; `pair` is `None` for a warm-up.
    pub fn record(&mut self, arm: Arm, pair: Option<usize>, run: RunOutput) -> Result<(), String> {
        let tally = self.arm_mut(arm);
        let index = tally.runs;
        tally.runs += 1;
        match &tally.reference {
            None => tally.reference = Some(run_copy(&run)),
            Some(reference) => {
                let same = compare(&reference.output(), &run.output())
                    .map_err(|e| format!("arm {}: {e}", arm.name()))?;
                if (!same.tokens_equal || !same.logits_bitwise_equal)
                    && tally.first_nondeterministic_run.is_none()
                {
                    tally.first_nondeterministic_run = Some(index);
                }
                tally.self_comparisons.push(same);
            }
        }
        let Some(pair) = pair else { return Ok(()) };
        tally.measured[pair] = Some(run.result.clone());
        let slot = usize::from(arm == Arm::B);
        self.pending[pair][slot] = Some(run);
        if let [Some(a), Some(b)] = &self.pending[pair] {
            self.comparisons[pair] = Some(compare(&a.output(), &b.output())?);
            self.pending[pair] = [None, None]; // free the logits
        }
        Ok(())
    }

    /// `AB` or `BA` for each pair.
    pub fn order_of(pair: usize) -> &'static str {
        if b_first(pair) {
            "BA"
        } else {
            "AB"
        }
    }
}

fn run_copy(run: &RunOutput) -> RunOutput {
    RunOutput { result: run.result.clone(), logits: run.logits.clone() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(tokens: &[u32], logits: &[f32], prefill_tps: f64) -> RunOutput {
        RunOutput {
            result: RunResult {
                tokens: tokens.to_vec(),
                vocab: 2,
                prompt_tokens: 4,
                prefill_seconds: 1.0,
                decode_seconds: 1.0,
                prefill_tps,
                decode_tps: 1.0,
                peak_memory_bytes: 10,
            },
            logits: logits.to_vec(),
        }
    }

    #[test]
    fn pairs_are_compared_once_both_arms_ran() {
        let mut t = Tally::new(2);
        t.record(Arm::A, None, run(&[1], &[0.0, 1.0], 1.0)).unwrap();
        t.record(Arm::B, None, run(&[1], &[0.0, 1.0], 1.0)).unwrap();
        t.record(Arm::A, Some(0), run(&[1], &[0.0, 1.0], 2.0)).unwrap();
        assert!(t.comparisons[0].is_none());
        t.record(Arm::B, Some(0), run(&[1], &[0.0, 1.0], 3.0)).unwrap();
        assert!(t.comparisons[0].as_ref().unwrap().logits_bitwise_equal);
        // Pair 1 runs B first; B's logits differ by one bit.
        t.record(Arm::B, Some(1), run(&[1], &[0.0, f32::from_bits(1.0f32.to_bits() + 1)], 3.0))
            .unwrap();
        t.record(Arm::A, Some(1), run(&[1], &[0.0, 1.0], 2.0)).unwrap();
        let c = t.comparisons[1].as_ref().unwrap();
        assert!(c.tokens_equal && !c.logits_bitwise_equal);
        assert_eq!(t.a.first_nondeterministic_run, None);
        // B's third run (index 2) differs from its warm-up.
        assert_eq!(t.b.first_nondeterministic_run, Some(2));
        assert_eq!(t.b.self_comparisons.len(), 2);
        assert!(
            t.b.self_comparisons[0].logits_bitwise_equal
                && !t.b.self_comparisons[1].logits_bitwise_equal
        );
        assert_eq!(t.a.measured[1].as_ref().unwrap().prefill_tps, 2.0);
        assert_eq!(Tally::order_of(1), "BA");
    }
}
