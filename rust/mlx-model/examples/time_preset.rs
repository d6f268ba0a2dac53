//! Writes a preset's synthetic checkpoint and times one generation of its run shape.
//!
//!     cargo run --release -p mlx-model --example time_preset -- [preset] [seed]

use mlx_model::{
    generate, preset_description, preset_run_shape, synthetic_prompt, write_synthetic, Model,
};

fn main() -> mlx_model::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let preset = args.get(1).map_or("bench", String::as_str);
    let seed: u64 = args.get(2).map_or(0, |s| s.parse().expect("seed must be an integer"));
    println!("{}", preset_description(preset)?);
    let dir = std::env::temp_dir().join(format!("mlx-model-{preset}-{seed}"));
    let t = std::time::Instant::now();
    write_synthetic(&dir, preset, seed)?;
    println!("wrote {} in {:.1} s", dir.display(), t.elapsed().as_secs_f64());
    let model = Model::load(&dir)?;
    let run = preset_run_shape(preset)?;
    let prompt = synthetic_prompt(model.config().vocab_size, run.prompt_len, seed);
    let g = generate(&model, &prompt, run.gen_len, run.prefill_chunk)?;
    println!(
        "prompt {} (chunk {}), {} new tokens: prefill {:.2} s ({:.1} tok/s), decode {:.2} s ({:.2} tok/s), peak {:.1} MB",
        run.prompt_len,
        run.prefill_chunk,
        run.gen_len,
        g.prefill_seconds,
        g.prefill_tokens_per_second(),
        g.decode_seconds,
        g.decode_tokens_per_second(),
        g.peak_memory_bytes as f64 / 1e6
    );
    println!("tokens: {:?}", g.tokens);
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
