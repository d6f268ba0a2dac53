//! The Markdown summary of a report, for a pull request description.

use crate::compare::{AgainstNoise, DivergenceSummary};
use crate::gpu_name::describe_gpu;
use crate::provenance::Nvidia;
use crate::report::{ArmReport, Report, Samples, Verdict};
use crate::stats::RatioSummary;
use mlx_ab_protocol::DeviceKind;
use std::fmt::Write;

pub fn render(r: &Report) -> String {
    let (a, b) = (&r.arms.a, &r.arms.b);
    let mut md = String::new();
    let _ = writeln!(md, "### MLX A/B: {} (A) vs {} (B)\n", a.label, b.label);
    let steps = r.workload.gen_len;
    let vocab = r.workload.model.vocab_size;
    let device = device_phrase(r);
    // Every verdict word below follows a field of the JSON report: `verdict`, `exit_status`,
    // each arm's `self_divergence`, `ab_against_noise`, `provenance.determinism`.
    let _ =
        writeln!(md, "Verdict: `{}` (exit status {}).\n", verdict_name(r.verdict), r.exit_status);
    let determinism = &r.provenance.determinism;
    match r.verdict {
        Verdict::Identical => {
            let _ = writeln!(
                md,
                "**Outputs identical** ({device}). Tokens and logits bit-identical in {0}/{0} pairs \
                 ({steps} steps × {vocab} logits per run); {1}.\n",
                r.pairs,
                self_reproduction(a, b).0
            );
        }
        Verdict::Different => {
            let differing = r.ab_divergence.differing;
            let _ = writeln!(
                md,
                "**Outputs differ** ({device}) in {differing}/{} pairs (tokens identical: {}, logits \
                 bit-identical: {}); {}.",
                r.pairs,
                yes_no(r.token_identical),
                yes_no(r.logits_bitwise_identical),
                match self_reproduction(a, b) {
                    (checked, true) => format!("{checked}, so the difference is the arms', not noise"),
                    (unchecked, false) => unchecked,
                }
            );
            first_divergence(&mut md, r, vocab);
            md.push('\n');
        }
        Verdict::Nondeterministic => {
            let names: Vec<String> =
                r.nondeterministic_arms.iter().map(|n| format!("arm {n}")).collect();
            let _ = writeln!(
                md,
                "**Not comparable bit for bit** ({device}): {} {} not deterministic, so bit identity \
                 cannot be claimed either way; the comparison falls back to KL divergence and top-1 \
                 agreement.\n",
                names.join(" and "),
                if names.len() == 1 { "is" } else { "are" }
            );
            for (name, arm) in [("A", a), ("B", b)] {
                let s = &arm.self_divergence;
                match arm.first_nondeterministic_run {
                    Some(run) => {
                        let _ = writeln!(
                            md,
                            "- Arm {name} against its own first run: {}/{} runs differ (first: run {run}); \
                             {}.",
                            s.differing,
                            s.compared,
                            divergence_numbers(s)
                        );
                    }
                    None => {
                        let _ = writeln!(
                            md,
                            "- Arm {name} reproduced its first run bit for bit in {0}/{0} runs.",
                            s.compared
                        );
                    }
                }
            }
            let ab = &r.ab_divergence;
            let _ = writeln!(
                md,
                "- A against B: {}/{} pairs differ, tokens identical in {}/{}; {}.",
                ab.differing,
                ab.compared,
                ab.token_identical,
                ab.compared,
                divergence_numbers(ab)
            );
            let _ = writeln!(md, "\n{}\n", against_noise_sentence(r.ab_against_noise));
            if determinism.deterministic_mode {
                let _ = writeln!(
                    md,
                    "Deterministic mode was on, yet {} did not reproduce {}: a source of \
                     nondeterminism remains that its settings do not cover.\n",
                    names.join(" and "),
                    if names.len() == 1 { "itself" } else { "themselves" }
                );
            }
        }
    }
    if determinism.deterministic_mode {
        let _ = writeln!(md, "Deterministic mode {}.\n", determinism.describe());
    }
    let _ = writeln!(md, "| metric | A | B | B/A median [95% CI] | B>A / B<A (sign test p) |");
    let _ = writeln!(md, "|---|---:|---:|---:|---:|");
    row(&mut md, "prefill tokens/s", &a.prefill_tps, &b.prefill_tps, &r.ratio.prefill_tps, fixed1);
    row(&mut md, "decode tokens/s", &a.decode_tps, &b.decode_tps, &r.ratio.decode_tps, fixed1);
    row(
        &mut md,
        "peak memory",
        &a.peak_memory_bytes,
        &b.peak_memory_bytes,
        &r.ratio.peak_memory_bytes,
        mib,
    );
    let _ = writeln!(
        md,
        "\nMedians of {} pairs run in the balanced order {} after {} warm-up round(s); every sample is \
         in the JSON report. CI: percentile bootstrap of the median of per-pair ratios ({} resamples).\n",
        r.pairs,
        abbreviate(&r.order),
        r.warmup_rounds,
        r.bootstrap.iterations
    );
    let _ = writeln!(md, "Workload: {}.\n", r.workload.describe());
    for warning in &r.warnings {
        let _ = writeln!(md, "> **Warning:** {warning}\n");
    }
    let p = &r.provenance;
    let _ = writeln!(md, "<details><summary>Provenance</summary>\n");
    arm_line(&mut md, "A", a);
    arm_line(&mut md, "B", b);
    let _ = writeln!(
        md,
        "- host: {} ({}, {} logical CPUs, {}), {}",
        p.host.hostname,
        p.host.cpu,
        p.host.logical_cpus,
        p.host
            .memory_bytes
            .map_or("memory ?".into(), |m| format!("{:.1} GiB", m as f64 / (1u64 << 30) as f64)),
        p.host.os
    );
    nvidia_line(&mut md, &p.nvidia);
    let overridden = |name: &str| p.determinism.knobs.iter().any(|k| k.name == name);
    let inherited: Vec<String> = p
        .determinism
        .environment
        .iter()
        .map(|(k, v)| {
            let note = if overridden(k) { " (overridden by the mode)" } else { "" };
            format!("`{k}={v}`{note}")
        })
        .collect();
    let _ = writeln!(
        md,
        "- determinism: deterministic mode {}; MLX/cuBLAS/cuDNN variables inherited: {}",
        p.determinism.describe(),
        if inherited.is_empty() { "none".into() } else { inherited.join(", ") }
    );
    let _ = writeln!(md, "- compilers: {}; {}", p.cxx_compiler, p.rustc);
    let _ = writeln!(
        md,
        "- repository commit: {}; mlx-ab {}; date {}",
        p.repo_commit, p.mlx_ab_version, p.date
    );
    let _ = writeln!(md, "\n</details>");
    md
}

/// The verdict as the JSON spells it.
fn verdict_name(verdict: Verdict) -> String {
    serde_json::to_value(verdict)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| format!("{verdict:?}"))
}

/// What the arms' `self_divergence` says, for the verdicts whose arms differed from nothing of
/// their own: `each arm reproduced its first run bit for bit (A: 2/2 runs, B: 2/2)`, or which arm
/// ran once and so was never checked; and whether both were checked.
fn self_reproduction(a: &ArmReport, b: &ArmReport) -> (String, bool) {
    let unchecked: Vec<&str> = [("A", a), ("B", b)]
        .into_iter()
        .filter(|(_, arm)| arm.self_divergence.compared == 0)
        .map(|(name, _)| name)
        .collect();
    if !unchecked.is_empty() {
        let (verb, object) = if unchecked.len() == 1 {
            ("it reproduces", "itself")
        } else {
            ("they reproduce", "themselves")
        };
        let text = format!(
            "arm {} ran only once, so whether {verb} {object} was not checked",
            unchecked.join(" and arm ")
        );
        return (text, false);
    }
    let (sa, sb) = (&a.self_divergence, &b.self_divergence);
    let text = format!(
        "each arm reproduced its first run bit for bit (A: {}/{} runs, B: {}/{})",
        sa.compared - sa.differing,
        sa.compared,
        sb.compared - sb.differing,
        sb.compared
    );
    (text, true)
}

/// The sentence `ab_against_noise` allows; "consistent" only for `within`.
fn against_noise_sentence(against: Option<AgainstNoise>) -> &'static str {
    match against {
        Some(AgainstNoise::Within) => {
            "A against B is no further apart than the arms' own runs by any measure (largest KL, \
             lowest top-1 agreement, largest |Δ logit|): consistent with the arms computing the \
             same thing, not proof of it."
        }
        Some(AgainstNoise::Beyond) => {
            "A against B is further apart than the arms' own runs by at least one measure (largest \
             KL, lowest top-1 agreement, largest |Δ logit|): run-to-run noise does not explain the \
             difference."
        }
        Some(AgainstNoise::Undecided) | None => {
            "Whether A against B is further apart than the arms' own runs cannot be told (a KL is \
             undefined, or no run-to-run difference was recorded)."
        }
    }
}

/// `on gpu (NVIDIA H200 (sm_90, ...))`, `on cpu`, or per arm when they differ.
fn device_phrase(r: &Report) -> String {
    let one = |arm: &ArmReport| match (&arm.device, &arm.mlx.gpu) {
        (DeviceKind::Gpu, Some(gpu)) => format!("gpu: {}", describe_gpu(gpu)),
        (device, _) => device.to_string(),
    };
    let (a, b) = (one(&r.arms.a), one(&r.arms.b));
    if a == b {
        format!("on {a}")
    } else {
        format!("A on {a}, B on {b}")
    }
}

fn divergence_numbers(s: &DivergenceSummary) -> String {
    format!(
        "mean KL {} nats (max {}), top-1 agreement {:.1}% (lowest {:.1}%), largest |Δ logit| {}",
        s.kl_mean.map_or("n/a".into(), sci),
        s.kl_max.map_or("n/a".into(), sci),
        100.0 * s.top1_agreement_mean,
        100.0 * s.top1_agreement_min,
        sci(s.max_abs_logit_diff)
    )
}

fn first_divergence(md: &mut String, r: &Report, vocab: usize) {
    if let Some(d) = &r.first_divergence {
        let _ = writeln!(
            md,
            "First divergence: pair {}, step {}: token A {} vs B {}, {} of {vocab} logits differ, \
             largest |Δ logit| {}. Over the steps with identical context: mean KL(A‖B) {} nats, \
             top-1 agreement {:.1}%.",
            d.pair,
            d.at.step,
            token(d.at.token_a),
            token(d.at.token_b),
            d.at.differing_logits,
            sci(d.at.max_abs_logit_diff),
            d.kl_mean.map_or("n/a".into(), sci),
            100.0 * d.top1_agreement
        );
    }
}

fn arm_line(md: &mut String, name: &str, arm: &ArmReport) {
    let mlx = &arm.mlx;
    let patches = if mlx.patches.is_empty() { "none".to_string() } else { mlx.patches.join(", ") };
    let extra = if mlx.extra_patches.is_empty() {
        String::new()
    } else {
        format!(", extra patches: {}", mlx.extra_patches.join(", "))
    };
    let env = crate::ops_report::with_env(&arm.spec.env);
    let _ = writeln!(
        md,
        "- {name}: MLX {} ({} source, digest `{}`), patches: {patches}{extra}{env}; build `{}`; on {}; \
         MLX code from `{}` ({} worker `{}`)",
        mlx.mlx_version,
        mlx.source,
        short(&mlx.source_digest),
        mlx.build_key,
        match (&arm.device, &mlx.gpu) {
            (DeviceKind::Gpu, Some(gpu)) => format!("gpu {}", describe_gpu(gpu)),
            (device, _) => device.to_string(),
        },
        mlx.library_path,
        if arm.prebuilt { "prebuilt" } else { "built" },
        arm.worker
    );
}

/// `- NVIDIA: 1x NVIDIA H200 (driver 550.54.15), CUDA 12.4` or why nothing is known.
fn nvidia_line(md: &mut String, nvidia: &Nvidia) {
    if !nvidia.nvidia_smi {
        let _ = writeln!(
            md,
            "- NVIDIA: {}",
            nvidia.note.as_deref().unwrap_or("nvidia-smi gave nothing")
        );
        return;
    }
    let mut counted: Vec<(String, usize)> = Vec::new();
    for gpu in &nvidia.gpus {
        let label = format!("{} (driver {})", gpu.name, gpu.driver_version);
        match counted.iter_mut().find(|(l, _)| *l == label) {
            Some((_, n)) => *n += 1,
            None => counted.push((label, 1)),
        }
    }
    let gpus: Vec<String> = counted.into_iter().map(|(label, n)| format!("{n}x {label}")).collect();
    let _ = writeln!(
        md,
        "- NVIDIA: {}; CUDA {} (nvidia-smi)",
        if gpus.is_empty() { "no GPU listed".to_string() } else { gpus.join(", ") },
        nvidia.cuda_version.as_deref().unwrap_or("version ?")
    );
}

fn row(
    md: &mut String,
    metric: &str,
    a: &Samples,
    b: &Samples,
    ratio: &RatioSummary,
    fmt: fn(f64) -> String,
) {
    let value = |s: &Samples| s.median.map_or("n/a".into(), fmt);
    let ratio_text = match (ratio.median, ratio.ci95) {
        (Some(m), Some([lo, hi])) => format!("{m:.3} [{lo:.3}, {hi:.3}]"),
        (Some(m), None) => format!("{m:.3}"),
        _ => "n/a".into(),
    };
    let t = &ratio.sign_test;
    let _ = writeln!(
        md,
        "| {metric} | {} | {} | {ratio_text} | {}/{} (p = {}) |",
        value(a),
        value(b),
        t.greater,
        t.less,
        pval(t.p_value)
    );
}

fn yes_no(v: bool) -> &'static str {
    if v {
        "yes"
    } else {
        "no"
    }
}

fn token(t: Option<u32>) -> String {
    t.map_or("(none)".into(), |t| t.to_string())
}

fn fixed1(v: f64) -> String {
    format!("{v:.1}")
}

fn mib(v: f64) -> String {
    format!("{:.1} MiB", v / (1u64 << 20) as f64)
}

fn sci(v: f64) -> String {
    if v.is_infinite() {
        "inf".into()
    } else if v == 0.0 {
        "0".into()
    } else {
        format!("{v:.3e}")
    }
}

fn pval(p: f64) -> String {
    if p >= 0.01 {
        format!("{p:.3}")
    } else {
        format!("{p:.2e}")
    }
}

fn short(digest: &str) -> &str {
    &digest[..digest.len().min(16)]
}

fn abbreviate(order: &str) -> String {
    if order.len() <= 32 {
        order.to_string()
    } else {
        format!("{}…", &order[..32])
    }
}
