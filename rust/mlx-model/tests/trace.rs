//! Taps (`mlx_model::trace`) and repeat runs (`mlx_model::determinism`) on synthetic
//! checkpoints: tracing changes no output, a repeated run on the CPU is bit-identical at every
//! tap, and a changed input is found at its first tap.

mod common;

use common::synthetic;
use mlx_model::determinism::{self, Comparison};
use mlx_model::trace;
use mlx_model::{synthetic_prompt, Model};

fn logit_bits(model: &Model, prompt: &[u32], chunk: usize, traced: bool) -> Vec<Vec<u32>> {
    let mut cache = model.new_cache();
    let mut out = Vec::new();
    for tokens in prompt.chunks(chunk) {
        let (logits, taps) = if traced {
            trace::capture(|| model.forward(tokens, &mut cache))
        } else {
            (model.forward(tokens, &mut cache), Vec::new())
        };
        let logits = logits.unwrap().astype(mlx::Dtype::Float32).unwrap();
        // Traced: every tap is evaluated with the logits, as the determinism run does.
        let all: Vec<&mlx::Array> = taps.iter().map(|(_, a)| a).chain([&logits]).collect();
        mlx::eval(&all).unwrap();
        assert_eq!(taps.is_empty(), !traced);
        out.push(logits.to_vec::<f32>().unwrap().iter().map(|x| x.to_bits()).collect());
    }
    out
}

#[test]
fn tracing_changes_no_logit() {
    for preset in ["tiny", "tiny-bf16", "tiny-dense"] {
        let dir = synthetic(preset, 3);
        let model = Model::load(dir.path()).unwrap();
        let prompt = synthetic_prompt(model.config().vocab_size, 57, 2);
        let plain = logit_bits(&model, &prompt, 40, false);
        assert_eq!(plain, logit_bits(&model, &prompt, 40, true), "{preset}");
        // Outside a capture nothing is recorded, and captures do not leak into each other.
        let ((), taps) = trace::capture(|| trace::tap("x", &mlx::Array::scalar(1.0f32)));
        assert_eq!(taps.len(), 1);
        assert_eq!(taps[0].0, "x");
    }
}

#[test]
fn a_repeated_run_on_the_cpu_is_identical_at_every_tap() {
    let dir = synthetic("tiny", 5);
    let model = Model::load(dir.path()).unwrap();
    let prompt = synthetic_prompt(model.config().vocab_size, 56, 4);
    // Chunks of 40 and 16 tokens: the MoE takes its sorted path (80 token-experts), then the
    // unsorted one, as do the two decode steps.
    let c = determinism::run(&model, &prompt, 3, 40, 2).unwrap();
    assert_eq!(c.repeats, 3);
    assert_eq!(c.first_difference(), None, "{}", c.summary());
    assert_eq!(c.summary(), format!("all {} taps bit-identical over 3 repeats", c.taps.len()));

    let names: Vec<&str> = c.taps.iter().map(|t| t.name.as_str()).collect();
    for pass in ["prefill0", "prefill1", "decode0", "decode1"] {
        let of_pass: Vec<&str> =
            names.iter().filter(|n| n.starts_with(&format!("{pass}."))).copied().collect();
        assert_eq!(of_pass.first(), Some(&format!("{pass}.embed").as_str()));
        assert_eq!(of_pass.last(), Some(&format!("{pass}.logits").as_str()));
        assert!(of_pass.contains(&format!("{pass}.layer0.mlp.swiglu").as_str()), "{of_pass:?}");
        assert!(of_pass.contains(&format!("{pass}.layer3.moe.down").as_str()), "{of_pass:?}");
        assert!(of_pass.contains(&format!("{pass}.layer2.attn.sdpa").as_str()), "{of_pass:?}");
    }
    assert!(names.contains(&"prefill0.layer1.moe.inv_order"), "sorted path: {names:?}");
    assert!(!names.contains(&"prefill1.layer1.moe.inv_order"), "unsorted path: {names:?}");
    let at = |n: &str| names.iter().position(|&m| m == n).unwrap();
    let order =
        ["input_norm", "attn.q_proj", "attn.q_rope", "attn.sdpa", "attn.o_proj", "attn_residual"];
    let order: Vec<usize> = order.iter().map(|t| at(&format!("prefill0.layer1.{t}"))).collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "graph order: {order:?}");
    let line = c.taps[0].to_string();
    assert!(
        line.starts_with(
            "prefill0.embed float32 [1,40,128] differ 0 elements 0/5120 max_abs 0e0 fnv1a "
        ),
        "{line}"
    );
}

#[test]
fn a_changed_input_is_found_at_the_embedding() {
    let dir = synthetic("tiny", 5);
    let model = Model::load(dir.path()).unwrap();
    let prompt = synthetic_prompt(model.config().vocab_size, 20, 4);
    let mut other = prompt.clone();
    other[7] = (other[7] + 1) % 512;
    let first = determinism::record(&model, &prompt, 16, 1, &mut Vec::new()).unwrap();
    let changed = determinism::record(&model, &other, 16, 1, &mut Vec::new()).unwrap();
    let mut c = Comparison::new(&first);
    c.add(&first, &changed).unwrap();
    let t = c.first_difference().unwrap();
    assert_eq!(t.name, "prefill0.embed", "{}", c.summary());
    assert_eq!(t.worst_differing_elements, 128, "one token's row of the embedding");
    assert!(
        c.summary().starts_with("first difference: tap prefill0.embed (1 of 1"),
        "{}",
        c.summary()
    );
}
