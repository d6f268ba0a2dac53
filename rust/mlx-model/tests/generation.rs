//! Greedy generation on synthetic checkpoints: determinism, chunked prefill, bookkeeping.

mod common;

use common::{synthetic, top2_gap};
use mlx_model::argmax;
use mlx_model::{
    generate, generate_with_phases, synthetic_prompt, write_synthetic, Error, Generation, Model,
    Phases,
};

fn bits(g: &Generation) -> Vec<Vec<u32>> {
    g.logits.iter().map(|l| l.iter().map(|x| x.to_bits()).collect()).collect()
}

#[test]
fn synthetic_checkpoints_are_deterministic_in_preset_and_seed() {
    let a = synthetic("tiny", 7);
    let b = synthetic("tiny", 7);
    let c = synthetic("tiny", 8);
    let read = |d: &common::TempDir, f: &str| std::fs::read(d.path().join(f)).unwrap();
    assert_eq!(read(&a, "config.json"), read(&b, "config.json"));
    assert_eq!(read(&a, "model.safetensors"), read(&b, "model.safetensors"));
    assert_ne!(read(&a, "model.safetensors"), read(&c, "model.safetensors"));
}

#[test]
fn generation_is_deterministic_and_well_formed() {
    for preset in ["tiny", "tiny-bf16", "tiny-dense"] {
        let dir = synthetic(preset, 11);
        let model = Model::load(dir.path()).unwrap();
        let vocab = model.config().vocab_size;
        let prompt = synthetic_prompt(vocab, 70, 5);
        let g1 = generate(&model, &prompt, 12, 32).unwrap();
        let g2 = generate(&model, &prompt, 12, 32).unwrap();
        assert_eq!(g1.tokens, g2.tokens, "{preset}");
        assert_eq!(bits(&g1), bits(&g2), "{preset}: logits differ between identical runs");

        assert_eq!(g1.tokens.len(), 12);
        assert_eq!(g1.logits.len(), 12);
        assert_eq!(g1.prompt_tokens, 70);
        for (step, (l, &t)) in g1.logits.iter().zip(&g1.tokens).enumerate() {
            assert_eq!(l.len(), vocab);
            assert!(l.iter().all(|x| x.is_finite()), "{preset} step {step}: non-finite logits");
            assert_eq!(
                argmax(l).map(|i| i as u32),
                Some(t),
                "{preset} step {step}: the token is not the argmax of its logits"
            );
        }
        assert!(g1.prefill_seconds > 0.0 && g1.decode_seconds > 0.0);
        assert!(g1.peak_memory_bytes > 0);
        // Synthetic weights are scaled so that greedy decoding does not collapse to one token.
        let distinct: std::collections::BTreeSet<_> = g1.tokens.iter().collect();
        assert!(distinct.len() > 1, "{preset}: all generated tokens are {:?}", g1.tokens);
    }
}

#[test]
fn a_fresh_load_of_the_same_checkpoint_generates_the_same() {
    let dir = synthetic("tiny", 12);
    let prompt = synthetic_prompt(512, 40, 1);
    let g1 = generate(&Model::load(dir.path()).unwrap(), &prompt, 6, 16).unwrap();
    let dir2 = synthetic("tiny", 12);
    let g2 = generate(&Model::load(dir2.path()).unwrap(), &prompt, 6, 16).unwrap();
    assert_eq!(bits(&g1), bits(&g2));
}

/// Chunk sizes change the shapes of every matmul and of attention, and whether the MoE sorts its
/// rows, so bit equality is not promised. What holds: while the tokens agree, the logits agree
/// within a small tolerance, and if a token differs it is because its top two logits were
/// within that tolerance (a near tie).
#[test]
fn chunked_prefill_matches_unchunked_up_to_rounding() {
    let dir = synthetic("tiny", 21);
    let model = Model::load(dir.path()).unwrap();
    let prompt = synthetic_prompt(512, 150, 9);
    let whole = generate(&model, &prompt, 10, 4096).unwrap();
    for chunk in [1, 7, 32, 64] {
        let chunked = generate(&model, &prompt, 10, chunk).unwrap();
        for step in 0..10 {
            let (a, b) = (&whole.logits[step], &chunked.logits[step]);
            let scale = a.iter().fold(1f32, |m, x| m.max(x.abs()));
            let diff = a.iter().zip(b).fold(0f32, |m, (x, y)| m.max((x - y).abs()));
            assert!(
                diff <= 1e-4 * scale,
                "chunk {chunk} step {step}: max |diff| {diff} (scale {scale})"
            );
            if whole.tokens[step] != chunked.tokens[step] {
                assert!(
                    top2_gap(a) <= 2.0 * diff,
                    "chunk {chunk} step {step}: tokens differ without a near tie"
                );
                break;
            }
        }
    }
}

#[test]
fn phases_split_the_prefill_and_decode_time_and_change_no_output() {
    let dir = synthetic("tiny", 14);
    let model = Model::load(dir.path()).unwrap();
    let prompt = synthetic_prompt(model.config().vocab_size, 30, 3);
    let plain = generate(&model, &prompt, 9, 16).unwrap();
    let timed = generate_with_phases(&model, &prompt, 9, 16).unwrap();
    // The plain run overlaps each decode step with the next one's submission; the timed run
    // waits for each in turn: the same tokens and logits (a step built on a stale token differs).
    assert_eq!(plain.tokens, timed.tokens);
    assert_eq!(bits(&plain), bits(&timed), "overlapping the steps changed the logits");
    assert_eq!((plain.prefill_phases, plain.decode_phases), (None, None));
    let parts = |p: &Phases| {
        [
            p.graph_seconds,
            p.submit_seconds,
            p.wait_seconds,
            p.readback_seconds,
            p.clear_cache_seconds,
        ]
    };
    // The prefill: two chunks (16 and 13 tokens), each with its clear_cache, then the first
    // token's step. Each phase takes some time; together they lie inside the prefill interval
    // and cover most of it (outside them: making the inputs, a few bookkeeping calls).
    let p = timed.prefill_phases.expect("phases asked for");
    assert!(parts(&p).iter().all(|&t| t > 0.0), "{p:?}");
    let (sum, whole) = (parts(&p).iter().sum::<f64>(), timed.prefill_seconds);
    assert!(sum <= whole && sum >= 0.5 * whole, "{p:?} vs {whole}");
    // The 8 decode steps: the same, but no clear_cache (every 256 steps).
    let d = timed.decode_phases.expect("phases asked for");
    assert!(parts(&d)[..4].iter().all(|&t| t > 0.0), "{d:?}");
    assert_eq!(d.clear_cache_seconds, 0.0);
    let (sum, whole) = (parts(&d).iter().sum::<f64>(), timed.decode_seconds);
    assert!(sum <= whole && sum >= 0.5 * whole, "{d:?} vs {whole}");
    // With one new token there is no decode step to split; the prefill still has its phases.
    let one = generate_with_phases(&model, &prompt, 1, 16).unwrap();
    assert_eq!(one.decode_phases, Some(Phases::default()));
    assert!(one.prefill_phases.is_some_and(|p| p.readback_seconds > 0.0));
}

#[test]
fn invalid_arguments() {
    let dir = synthetic("tiny", 1);
    let model = Model::load(dir.path()).unwrap();
    assert!(matches!(generate(&model, &[], 4, 8), Err(Error::InvalidArgument(_))));
    assert!(matches!(generate(&model, &[1, 2, 3], 4, 0), Err(Error::InvalidArgument(_))));
    assert!(matches!(generate(&model, &[1, 512], 4, 8), Err(Error::InvalidArgument(_))));
}

#[test]
fn one_token_prompt_and_zero_new_tokens() {
    let dir = synthetic("tiny", 2);
    let model = Model::load(dir.path()).unwrap();
    let g = generate(&model, &[3], 3, 8).unwrap();
    assert_eq!(g.tokens.len(), 3);
    let g = generate(&model, &[3, 4, 5], 0, 8).unwrap();
    assert!(g.tokens.is_empty() && g.logits.is_empty());
}

#[test]
fn presets_are_listed_and_described() {
    let names = mlx_model::presets();
    assert_eq!(names[0], "bench");
    for p in names {
        let d = mlx_model::preset_description(p).unwrap();
        assert!(d.starts_with(p), "{d}");
    }
    // Every preset but the (large) bench ones is written and loaded in the other tests.
    let _ = write_synthetic;
}
