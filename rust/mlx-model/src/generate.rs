//! Greedy generation in the manner of mlx-lm's `generate_step`.

use std::time::Instant;

use mlx::{memory, ops, Array, Dtype};
use serde::Serialize;

use crate::model::Model;
use crate::{Error, Result};

/// The outcome of [`generate`].
#[derive(Debug, Clone, PartialEq)]
pub struct Generation {
    /// The generated token ids (`max_tokens` of them).
    pub tokens: Vec<u32>,
    /// For each generated token, the logits it was chosen from: the whole vocabulary at the last
    /// position, converted to f32 (exact for f32/f16/bf16 models). `logits[0]` comes from the
    /// prompt's last token.
    pub logits: Vec<Vec<f32>>,
    pub prompt_tokens: usize,
    /// Prompt processing, up to and including the first generated token.
    pub prefill_seconds: f64,
    /// The remaining `max_tokens - 1` steps.
    pub decode_seconds: f64,
    /// MLX's peak of active memory during the call (reset at its start).
    pub peak_memory_bytes: usize,
    /// Where the prefill time went: only from [`generate_with_phases`].
    pub prefill_phases: Option<Phases>,
    /// Where the decode time went: only from [`generate_with_phases`].
    pub decode_phases: Option<Phases>,
}

/// Prefill's or decode's time split into its phases, summed over its chunks and steps (the
/// prefill: its chunks, then the first token's step; decode: the steps that `decode_seconds`
/// covers). Host-bound work shows up as `graph + submit` close to the whole; device-bound as
/// `wait`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Phases {
    /// Building each chunk's or step's lazy graph (the forward pass in Rust, no MLX kernels).
    pub graph_seconds: f64,
    /// `async_eval`: MLX's host work for it (the eval walk, encoding and launching).
    /// MLX waits there too once too many tasks are in flight (the CPU backend does, with a
    /// large step), so part of the device's time can land here.
    pub submit_seconds: f64,
    /// Waiting after that for its results.
    pub wait_seconds: f64,
    /// Copying the logits and the token to the host.
    pub readback_seconds: f64,
    /// `memory::clear_cache`: after each prefill chunk, and every 256 decode steps.
    pub clear_cache_seconds: f64,
}

impl Phases {
    /// Adds one chunk's or step's graph, submission and wait, from the instants that bound them.
    fn add_eval(&mut self, begun: Instant, built: Instant, submitted: Instant, done: Instant) {
        self.graph_seconds += (built - begun).as_secs_f64();
        self.submit_seconds += (submitted - built).as_secs_f64();
        self.wait_seconds += (done - submitted).as_secs_f64();
    }
}

impl Generation {
    pub fn prefill_tokens_per_second(&self) -> f64 {
        self.prompt_tokens as f64 / self.prefill_seconds
    }

    /// Decode speed over the steps after the first token (NaN with fewer than two tokens).
    pub fn decode_tokens_per_second(&self) -> f64 {
        (self.tokens.len() as f64 - 1.0) / self.decode_seconds
    }
}

/// mlx-lm's step: last-position logits, log-probabilities, and the greedy token (argmax of the
/// log-probabilities, as mlx-lm's greedy sampler takes it).
fn step(model: &Model, tokens: &Array, cache: &mut crate::cache::Cache) -> Result<(Array, Array)> {
    let h = model.hidden_states(tokens, cache)?;
    let logits = model.logits(&h)?;
    let s = logits.shape();
    let last = ops::slice(&logits, &[0, s[1] - 1, 0], &s, &[1, 1, 1])?.reshape(&[1, s[2]])?;
    let logprobs = ops::subtract(&last, &ops::logsumexp(&last, true)?)?;
    let token = ops::argmax_axis(&logprobs, -1, false)?;
    Ok((last, token))
}

/// A step submitted to MLX (`async_eval`), not yet read back.
struct Submitted {
    logits: Array,
    token: Array,
    begun: Instant,
    built: Instant,
    submitted: Instant,
}

impl Submitted {
    /// Builds the step on `input` (token ids, shape [1, n]) and submits it.
    fn new(model: &Model, input: &Array, cache: &mut crate::cache::Cache) -> Result<Self> {
        let begun = Instant::now();
        let (last, token) = step(model, input, cache)?;
        let logits = last.astype(Dtype::Float32)?;
        let built = Instant::now();
        mlx::async_eval(&[&logits, &token])?;
        Ok(Self { logits, token, begun, built, submitted: Instant::now() })
    }

    /// The next step's input: this step's token, still lazy.
    fn next_input(&self) -> Result<Array> {
        Ok(self.token.reshape(&[1, 1])?)
    }

    /// Waits for the step and copies its logits and token to the host.
    fn read_back(
        self,
        logits: &mut Vec<Vec<f32>>,
        tokens: &mut Vec<u32>,
        phases: Option<&mut Phases>,
    ) -> Result<()> {
        mlx::eval(&[&self.logits, &self.token])?;
        let done = Instant::now();
        logits.push(self.logits.to_vec::<f32>()?);
        tokens.push(self.token.item::<u32>()?);
        if let Some(p) = phases {
            p.add_eval(self.begun, self.built, self.submitted, done);
            p.readback_seconds += done.elapsed().as_secs_f64();
        }
        Ok(())
    }
}

/// Generates `max_tokens` tokens greedily after `prompt`.
///
/// As mlx-lm's `generate_step`: all prompt tokens but the last are run through the model in
/// chunks of at most `prefill_chunk` tokens, evaluating the KV cache after each chunk (and
/// clearing MLX's buffer cache); the last prompt token then gives the first logits; each
/// generated token is fed back one at a time, its step built on the token still lazy and
/// submitted before that token is read back, so the host's work on a step overlaps the device's
/// on the one before.
pub fn generate(
    model: &Model,
    prompt: &[u32],
    max_tokens: usize,
    prefill_chunk: usize,
) -> Result<Generation> {
    run(model, prompt, max_tokens, prefill_chunk, false)
}

/// [`generate`], with the prefill's and the decode steps' time split into [`Phases`]. Its chunks
/// and steps are evaluated with `async_eval` and then waited for one at a time, where
/// [`generate`] waits for a prefill chunk with one `eval` and overlaps decode steps, so its
/// timings are for finding where the time goes, not for comparing with [`generate`]'s.
pub fn generate_with_phases(
    model: &Model,
    prompt: &[u32],
    max_tokens: usize,
    prefill_chunk: usize,
) -> Result<Generation> {
    run(model, prompt, max_tokens, prefill_chunk, true)
}

fn run(
    model: &Model,
    prompt: &[u32],
    max_tokens: usize,
    prefill_chunk: usize,
    with_phases: bool,
) -> Result<Generation> {
    if prompt.is_empty() {
        return Err(Error::InvalidArgument("the prompt is empty".into()));
    }
    if prefill_chunk == 0 {
        return Err(Error::InvalidArgument("prefill_chunk must be positive".into()));
    }
    let prompt_array = model.tokens_array(prompt)?;
    memory::reset_peak_memory();
    let mut cache = model.new_cache();
    let mut tokens = Vec::with_capacity(max_tokens);
    let mut logits = Vec::with_capacity(max_tokens);
    let mut prefill_phases = with_phases.then(Phases::default);
    let mut decode_phases = with_phases.then(Phases::default);

    let start = Instant::now();
    let (body, last) = prompt.split_at(prompt.len() - 1);
    for chunk in body.chunks(prefill_chunk) {
        // Only the cache is evaluated: the chunk's logits are never computed, as in mlx-lm.
        let begun = Instant::now();
        model.hidden_states(&model.tokens_array(chunk)?, &mut cache)?;
        let built = Instant::now();
        if with_phases {
            cache.async_eval()?;
        }
        let submitted = Instant::now();
        cache.eval()?;
        let done = Instant::now();
        memory::clear_cache();
        if let Some(p) = prefill_phases.as_mut() {
            p.add_eval(begun, built, submitted, done);
            p.clear_cache_seconds += done.elapsed().as_secs_f64();
        }
    }
    drop(prompt_array);
    // The first token is read back before the prefill's clock stops.
    let mut input = model.tokens_array(last)?;
    if max_tokens > 0 {
        let first = Submitted::new(model, &input, &mut cache)?;
        input = first.next_input()?;
        first.read_back(&mut logits, &mut tokens, prefill_phases.as_mut())?;
    }
    let prefill_seconds = start.elapsed().as_secs_f64();

    let start = Instant::now();
    let mut in_flight: Option<Submitted> = None;
    for n in 1..max_tokens {
        let next = Submitted::new(model, &input, &mut cache)?;
        input = next.next_input()?;
        if with_phases {
            // Each step waited for at once, so that its phases are its own.
            next.read_back(&mut logits, &mut tokens, decode_phases.as_mut())?;
        } else if let Some(previous) = in_flight.replace(next) {
            // As mlx-lm: the next step is built on this one's lazy token and submitted before
            // this one is read back, so the host's work overlaps the device's.
            previous.read_back(&mut logits, &mut tokens, None)?;
        }
        if n % 256 == 0 {
            let cleared = Instant::now();
            memory::clear_cache();
            if let Some(p) = decode_phases.as_mut() {
                p.clear_cache_seconds += cleared.elapsed().as_secs_f64();
            }
        }
    }
    if let Some(last) = in_flight {
        last.read_back(&mut logits, &mut tokens, None)?;
    }
    let decode_seconds = start.elapsed().as_secs_f64();

    Ok(Generation {
        tokens,
        logits,
        prompt_tokens: prompt.len(),
        prefill_seconds,
        decode_seconds,
        peak_memory_bytes: memory::peak_memory(),
        prefill_phases,
        decode_phases,
    })
}
