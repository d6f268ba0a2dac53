//! BENCHMARKS.md from `book_sources::Sources`: the series, one row per patch with its best
//! and worst evidence and a verdict, then every raw file's figures grouped by the series they ran.

use crate::book_sources::{E2eRun, OpsRun, Series, Source, Sources};
use crate::stats::RatioSummary;
use std::fmt::Write;

/// `1.952 [1.710, 2.050] (6/0)`, bold when the whole interval lies above 1.
pub(crate) fn ratio(r: &RatioSummary) -> String {
    let Some(median) = r.median else {
        return "n/a".into();
    };
    let (mut text, above) = match r.ci95 {
        Some([low, high]) => (format!("{median:.3} [{low:.3}, {high:.3}]"), low > 1.0),
        None => (format!("{median:.3}"), false),
    };
    if above {
        text = format!("**{text}**");
    }
    let t = &r.sign_test;
    format!("{text} ({}/{})", t.greater, t.less)
}

fn short(commit: &str) -> &str {
    &commit[..commit.len().min(7)]
}

/// `2026-12-01 0fe28f5 #1a2b3c4d5e6f`: a row's series, short.
pub(crate) fn series_cell(s: &Series) -> String {
    match &s.commit {
        Some(c) => format!("{} {} #{}", s.day(), short(c), s.digest()),
        None => format!("current #{}", s.digest()),
    }
}

pub(crate) fn link(path: &str) -> String {
    let name = path.rsplit('/').next().unwrap_or(path);
    format!("[`{name}`]({path})")
}

/// A raw file's first four cells: the file, its date, machine and series.
fn source_cells(source: &Source) -> String {
    format!(
        "{} | {} | {} | {}",
        link(&source.path),
        source.date,
        source.machine,
        series_cell(&source.series)
    )
}

/// Arm B's patches: "all N patches" when they are its series' whole list.
pub(crate) fn arm_b(b_patches: &[String], series: &Series) -> String {
    if b_patches == series.ids() {
        format!("all {} patches", b_patches.len())
    } else {
        b_patches.join(", ")
    }
}

fn workload(run: &E2eRun) -> String {
    let chunk = if run.prefill_chunk >= run.prompt_len {
        String::new()
    } else {
        format!(" in chunks of {}", run.prefill_chunk)
    };
    format!(
        "`{}`, prompt {}{chunk}, {} new tokens, {} pairs",
        run.preset, run.prompt_len, run.gen_len, run.pairs
    )
}

fn outputs(run: &E2eRun) -> String {
    match run.verdict.as_str() {
        "identical" => format!("bit-identical {0}/{0}", run.pairs),
        "different" => "**outputs differ**".into(),
        "nondeterministic" => "not comparable: an arm nondeterministic".into(),
        other => other.into(),
    }
}

/// Every series a row names, current first, then newest first; commits sharing patch files
/// share a series.
pub(crate) fn series_groups(s: &Sources) -> Vec<(String, Vec<Series>)> {
    let mut all: Vec<&Series> = s
        .e2e
        .iter()
        .map(|r| &r.source.series)
        .chain(s.ops.iter().map(|r| &r.source.series))
        .chain(s.scripts.iter().map(|r| &r.source.series))
        .collect();
    all.sort_by(|a, b| b.date.cmp(&a.date).then(a.commit.cmp(&b.commit)));
    let mut groups: Vec<(String, Vec<Series>)> = Vec::new();
    for series in all {
        let digest = series.digest();
        match groups.iter_mut().find(|(d, _)| *d == digest) {
            Some((_, members)) => {
                if !members.contains(series) {
                    members.push(series.clone());
                }
            }
            None => groups.push((digest, vec![series.clone()])),
        }
    }
    let current = s.current.digest();
    groups.sort_by_key(|(d, _)| *d != current);
    groups
}

pub(crate) fn group_heading(
    md: &mut String,
    level: &str,
    digest: &str,
    members: &[Series],
    current: &Series,
) {
    let commits: Vec<String> = members
        .iter()
        .map(|m| format!("{} ({})", short(m.commit.as_deref().unwrap_or("now")), m.day()))
        .collect();
    let state = match members.first() {
        _ if digest == current.digest() => "current series",
        Some(m) if m.code_digest() == current.code_digest() => {
            "archive: the current series' diffs, older messages"
        }
        _ => "archive",
    };
    let _ = writeln!(
        md,
        "{level} Series {digest} ({state}): the patch files of commit {}\n",
        commits.join(", ")
    );
    let files: Vec<String> =
        members[0].patches.iter().map(|p| format!("`{}` {}", p.name, &p.sha256[..12])).collect();
    let _ = writeln!(md, "Patch files (sha256, first 12 digits): {}.\n", files.join(", "));
}

fn e2e_section(md: &mut String, s: &Sources) {
    let _ = writeln!(md, "## End to end: `mlx-ab run`\n");
    let _ = writeln!(
        md,
        "Stock (A) against B, interleaved pairs; B/A per pair, median [95% percentile bootstrap \
         of the median] (pairs B above / below A). Tokens per second: above 1, B is faster. Peak \
         memory: above 1, B uses more. Bold: the whole interval above 1.\n"
    );
    for (digest, members) in series_groups(s) {
        let runs: Vec<&E2eRun> =
            s.e2e.iter().filter(|r| r.source.series.digest() == digest).collect();
        if runs.is_empty() {
            continue;
        }
        group_heading(md, "###", &digest, &members, &s.current);
        let _ = writeln!(
            md,
            "| raw file | date | machine | series | device | B | workload | outputs | prefill B/A | decode B/A | peak memory B/A |"
        );
        let _ = writeln!(md, "|---|---|---|---|---|---|---|---|---|---|---|");
        let mut runs = runs;
        runs.sort_by(|a, b| {
            b.source.date.cmp(&a.source.date).then(a.source.path.cmp(&b.source.path))
        });
        for r in runs {
            let b = arm_b(&r.b_patches, &r.source.series);
            let memory = r.memory.median.map_or("n/a".into(), |m| format!("{m:.3}"));
            let _ = writeln!(
                md,
                "| {} | {} | {b} | {} | {} | {} | {} | {memory} |",
                source_cells(&r.source),
                r.device,
                workload(r),
                outputs(r),
                ratio(&r.prefill),
                ratio(&r.decode),
            );
        }
        md.push('\n');
        notes(
            md,
            runs_notes(
                s.e2e
                    .iter()
                    .filter(|r| r.source.series.digest() == digest)
                    .map(|r| (&r.source.path, &r.source.note)),
            ),
        );
    }
}

fn runs_notes<'a>(
    items: impl Iterator<Item = (&'a String, &'a Option<String>)>,
) -> Vec<(String, String)> {
    items.filter_map(|(p, n)| n.as_ref().map(|n| (p.clone(), n.clone()))).collect()
}

fn notes(md: &mut String, notes: Vec<(String, String)>) {
    for (path, note) in &notes {
        let _ = writeln!(md, "- {}: {note}", link(path));
    }
    if !notes.is_empty() {
        md.push('\n');
    }
}

fn ops_section(md: &mut String, s: &Sources) {
    let _ = writeln!(md, "## Single ops: `mlx-ab ops`\n");
    let _ = writeln!(
        md,
        "Stock (A) against B, one worker process per build, pairs in a balanced order; stock time \
         / B time, median [95% bootstrap] (pairs B faster / A faster): above 1, B is faster. \
         Times: medians in milliseconds. Bits: the outputs of both builds compared bit for bit at \
         that point. Non-square attention points (queries != keys) are marked. Tool: `mlx-ab ops` \
         (Thue-Morse pairs, 10,000 bootstrap resamples, type-7 quantiles: `mlx-ab run`'s \
         statistics) or `scripts/op_ab.py`, which it replaced (ABBA pairs, 2,000 resamples, \
         index quantiles), so intervals of the two differ slightly for the same times.\n"
    );
    for (digest, members) in series_groups(s) {
        let mut runs: Vec<&OpsRun> =
            s.ops.iter().filter(|r| r.source.series.digest() == digest).collect();
        if runs.is_empty() {
            continue;
        }
        group_heading(md, "###", &digest, &members, &s.current);
        runs.sort_by(|a, b| {
            a.source.machine.cmp(&b.source.machine).then(a.source.path.cmp(&b.source.path))
        });
        let _ = writeln!(
            md,
            "| raw file | date | machine | series | tool | B (measures) | point | stock ms | B ms | stock/B | bits |"
        );
        let _ = writeln!(md, "|---|---|---|---|---|---|---|---:|---:|---|---|");
        for r in &runs {
            let b = arm_b(&r.b_patches, &r.source.series);
            for p in &r.points {
                let measures = p.measures.as_deref().unwrap_or("none: a control");
                let shape = if p.non_square() { " (non-square)" } else { "" };
                let _ = writeln!(
                    md,
                    "| {} | `{}` | {b} ({measures}) | `{}`{shape} | {:.3} | {:.3} | {} | {} |",
                    source_cells(&r.source),
                    r.tool,
                    p.args,
                    p.a_seconds * 1e3,
                    p.b_seconds * 1e3,
                    ratio(&p.ratio),
                    if p.identical { "equal" } else { "**differ**" },
                );
            }
        }
        md.push('\n');
        notes(md, runs_notes(runs.iter().map(|r| (&r.source.path, &r.source.note))));
    }
}

pub fn render(s: &Sources, plots: &Plots) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "# Benchmarks\n");
    let _ = writeln!(
        md,
        "Generated by `cargo run -p mlx-ab -- book` from the raw files under `reports/`, each \
         folder's `RUNS.json` (which commit's patch files each raw file ran, on which machine) \
         and `reports/series.json` (the patch files of each such commit, with their sha256). Do \
         not edit it by hand: `mlx-ab book --check` (in `scripts/test-all`) fails when it differs \
         from what those files give. The analysis behind the figures (why, what bounds them) is in \
         `reports/h200/README.md` and the patches' messages.\n"
    );
    let current = &s.current;
    let _ = writeln!(md, "## The current series: {}\n", current.digest());
    let _ = writeln!(
        md,
        "`patches/series` with each file as it is now. A series is named by the first 12 hex \
         digits of `cd patches && sha256sum $(cat series) | sha256sum`, and each row below by the \
         date and commit of the patch files it ran and that digest.\n"
    );
    let _ = writeln!(md, "| patch | sha256 | what it changes |\n|---|---|---|");
    for p in &current.patches {
        let _ = writeln!(md, "| `{}` | `{}` | {} |", p.name, &p.sha256[..12], s.subjects[p.id()]);
    }
    md.push('\n');
    let total = s.e2e.len() + s.ops.len() + s.scripts.len();
    let on_current = s
        .e2e
        .iter()
        .map(|r| &r.source.series)
        .chain(s.ops.iter().map(|r| &r.source.series))
        .chain(s.scripts.iter().map(|r| &r.source.series))
        .filter(|x| x.digest() == current.digest())
        .count();
    if on_current == 0 {
        let _ = writeln!(
            md,
            "**None of the {total} raw files below ran the current series.** Every figure is from \
             an older series (archive sections, labelled by series): it describes those patch \
             files, which may differ from the current ones.\n"
        );
    } else {
        let _ =
            writeln!(md, "{on_current} of the {total} raw files below ran the current series.\n");
    }
    crate::book_patches::per_patch(&mut md, s);
    e2e_section(&mut md, s);
    ops_section(&mut md, s);
    crate::book_scripts::section(&mut md, s);
    plots_section(&mut md, s, plots);
    let _ = writeln!(md, "## Metal\n\nNot run: no Apple hardware.");
    md
}

/// What `op-plots` draws from the single-op raw files (its `plan`, which reads no image: CI
/// draws nothing): per folder and machine, one PNG per plot whose ops the files hold.
pub struct Plots {
    pub figures: Vec<op_plots::Figure>,
    /// Points of ops neither plot draws: `file: args (why)`.
    pub elsewhere: Vec<String>,
}

/// The book's Plots section: each figure `op-plots` draws, with its raw files and series.
fn plots_section(md: &mut String, s: &Sources, plots: &Plots) {
    let _ = writeln!(md, "## Plots\n");
    let _ = writeln!(
        md,
        "Drawn by `cargo run --release -p op-plots` (`benches/op-plots`) from the single-op raw \
         files above, which it finds through each folder's `RUNS.json` (file, commit, machine): \
         one figure per plot and machine, never two machines on one axis (their shapes differ), \
         a panel per gather_qmm mode and shape or per attention op. Each shows stock time / \
         patched time, the median with its 95% interval as error bars, against rows per expert or \
         the key/value length on a log2 axis, with the line y = 1 (no change). A line joins the \
         points of one mode and projection (or op, dtype and heads) of one series only; its \
         legend names the commit and the run's day. Dashed: down projections, and non-square \
         attention (L_q != L_kv), drawn against L_kv with L_q in the legend. The figures are \
         not drawn in CI: `op-plots`' test checks that each PNG named here is committed and is \
         the one op-plots draws from these files; after a new raw file, run op-plots and then \
         this book.\n"
    );
    for fig in &plots.figures {
        let title = fig.kind.title();
        let (machine, path) = (&fig.machine, format!("{}/{}", op_plots::PLOTS_DIR, fig.file));
        let _ = writeln!(md, "### {title}, {machine}\n");
        let _ = writeln!(md, "![{title} on {machine}]({path})\n");
        let from: Vec<String> = fig
            .inputs
            .iter()
            .map(|input| {
                let control = if input.measures.is_none() { ", a control" } else { "" };
                match s.ops.iter().find(|r| r.source.path == input.path) {
                    Some(r) => format!(
                        "{} ({}, B {}{control})",
                        link(&input.path),
                        series_cell(&r.source.series),
                        arm_b(&r.b_patches, &r.source.series)
                    ),
                    None => format!("{}{control}", link(&input.path)),
                }
            })
            .collect();
        let lines = || fig.panels.iter().flat_map(|p| &p.lines);
        let drawn: usize = lines().map(|l| l.points.len()).sum();
        let non_square: usize = lines()
            .filter(|l| l.what.contains("L_q=") && !l.what.contains("L_q=L_kv"))
            .map(|l| l.points.len())
            .sum();
        let panels: Vec<&str> = fig.panels.iter().map(|p| p.title.as_str()).collect();
        let mut line = format!(
            "{}: panels {}; from {}. {drawn} of {} points drawn",
            link(&path),
            panels.join("; "),
            from.join(", "),
            drawn + fig.not_drawn.len()
        );
        if non_square > 0 {
            let _ = write!(line, ", {non_square} of them non-square (dashed, against L_kv)");
        }
        if fig.not_drawn.is_empty() {
            line.push('.');
        } else {
            let _ = write!(line, "; not drawn: {}.", fig.not_drawn.join(", "));
        }
        let _ = writeln!(md, "{line}\n");
    }
    if plots.figures.is_empty() {
        let _ = writeln!(md, "No single-op raw file holds points of these plots.\n");
    }
    if !plots.elsewhere.is_empty() {
        let _ =
            writeln!(md, "In no plot (ops neither plot draws): {}.\n", plots.elsewhere.join(", "));
    }
}
