//! BENCHMARKS.md from `book_sources::Sources`: the series, one row per patch with its best
//! and worst evidence and a verdict, then every raw file's figures grouped by the series they ran.

use crate::book_sources::{E2eRun, OpsRun, Series, Source, Sources};
use crate::stats::RatioSummary;
use std::collections::BTreeSet;
use std::fmt::Write;

/// How a verdict is reached, printed above the table that uses it.
pub const VERDICT_RULE: &str = "Verdict: **outputs differ** when any of the patch's rows \
     (op points, or end-to-end runs of the patch alone) has outputs that are not bit-identical \
     between deterministic arms; else **faster** when at least one row's 95% interval lies above 1 \
     (named with its machines); else **no gain shown** when rows exist; else **not measured**. \
     Rows whose interval lies below 1 add **slower at some rows** (with their machines): a gain \
     somewhere does not hide a loss elsewhere. \
     Where a machine has rows that ran the patch's current code, only those count (for that \
     machine and level): a row ran it when its series' diffs are today's, or when its arm B is \
     the patch alone and that patch's diff is today's (\"patch file as now\", \"its diff as now\"). \
     Otherwise its older rows stand, marked **older code**, and a verdict resting only on them \
     says so: it describes that code, not the current one.";

/// One figure a patch can be judged by.
struct Evidence<'a> {
    machine: &'a str,
    /// "op level" or "end to end".
    level: &'static str,
    ratio: &'a RatioSummary,
    what: String,
    path: &'a str,
    series: &'a Series,
    /// The row ran the patch's current code (see `VERDICT_RULE`).
    current: bool,
}

impl Evidence<'_> {
    fn low(&self) -> f64 {
        self.ratio.ci95.map_or(f64::NEG_INFINITY, |c| c[0])
    }

    fn high(&self) -> f64 {
        self.ratio.ci95.map_or(f64::INFINITY, |c| c[1])
    }
}

/// `1.952 [1.710, 2.050] (6/0)`, bold when the whole interval lies above 1.
pub fn ratio(r: &RatioSummary) -> String {
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
fn series_cell(s: &Series) -> String {
    match &s.commit {
        Some(c) => format!("{} {} #{}", s.day(), short(c), s.digest()),
        None => format!("current #{}", s.digest()),
    }
}

fn link(path: &str) -> String {
    let name = path.rsplit('/').next().unwrap_or(path);
    format!("[`{name}`]({path})")
}

/// Did a row whose arm B held `b_patches` of series `row` run patch `id`'s current code? Yes
/// when its series' code is today's, or when B is the patch alone and its diff is today's.
fn runs_current_code(row: &Series, b_patches: &[String], current: &Series, id: &str) -> bool {
    let alone = b_patches.len() == 1 && b_patches[0] == id;
    row.code_digest() == current.code_digest()
        || alone
            && matches!((row.patch(id), current.patch(id)), (Some(a), Some(b)) if a.diff == b.diff)
}

/// Is this patch's file at the row's commit the file now, or at least its diff (the code)?
fn same_file(row: &Series, current: &Series, id: &str) -> &'static str {
    match (row.patch(id), current.patch(id)) {
        (Some(then), Some(now)) if then.sha256 == now.sha256 => "patch file as now",
        (Some(then), Some(now)) if then.diff == now.diff => "its diff as now, the message changed",
        (Some(_), _) => "patch file changed since",
        (None, _) => "its change was in another patch then",
    }
}

fn e2e_alone(run: &E2eRun, id: &str) -> bool {
    run.a_patches.is_empty() && run.b_patches.len() == 1 && run.b_patches[0] == id
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
fn arm_b(b_patches: &[String], series: &Series) -> String {
    if b_patches == series.ids() {
        format!("all {} patches", b_patches.len())
    } else {
        b_patches.join(", ")
    }
}

fn e2e_whole(run: &E2eRun) -> bool {
    run.a_patches.is_empty() && run.b_patches == run.source.series.ids()
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

/// A run's prefill and decode figures, or only `phase`'s; `current`: it ran today's code.
fn e2e_evidence<'a>(
    run: &'a E2eRun,
    phase: Option<&str>,
    current: bool,
    out: &mut Vec<Evidence<'a>>,
) {
    for (metric, r) in [("prefill", &run.prefill), ("decode", &run.decode)] {
        if phase.is_some_and(|p| p != metric) {
            continue;
        }
        out.push(Evidence {
            machine: &run.source.machine,
            level: "end to end",
            ratio: r,
            what: format!("{metric}, `{}` {} tokens", run.preset, run.prompt_len),
            path: &run.source.path,
            series: &run.source.series,
            current,
        });
    }
}

/// The run's points of ops the patch changes (controls left out).
fn op_evidence<'a>(run: &'a OpsRun, id: &str, current: &Series, out: &mut Vec<Evidence<'a>>) {
    let now = runs_current_code(&run.source.series, &run.b_patches, current, id);
    for p in run.points.iter().filter(|p| p.measures(id) && !crate::ops_points::is_control(&p.args))
    {
        out.push(Evidence {
            machine: &run.source.machine,
            level: "op level",
            ratio: &p.ratio,
            what: format!("`{}`", p.args),
            path: &run.source.path,
            series: &run.source.series,
            current: now,
        });
    }
}

/// The rows that stand for a machine: those that ran the current code, else all its rows.
fn standing<'e, 'a>(evidence: &'e [Evidence<'a>], machine: &str) -> Vec<&'e Evidence<'a>> {
    let on = evidence.iter().filter(|e| e.machine == machine);
    let now: Vec<&Evidence> = on.clone().filter(|e| e.current).collect();
    if now.is_empty() {
        on.collect()
    } else {
        now
    }
}

/// A machine's best standing row (the highest low end of the interval) and, when another row's
/// interval ends lower, its worst (the lowest high end), so one good point does not stand for all.
fn best_cell(evidence: &[Evidence], machine: &str, current: &Series, id: Option<&str>) -> String {
    let on = standing(evidence, machine);
    let median = |e: &Evidence| e.ratio.median.unwrap_or(0.0);
    let best =
        on.iter().max_by(|a, b| a.low().total_cmp(&b.low()).then(median(a).total_cmp(&median(b))));
    let worst = on
        .iter()
        .min_by(|a, b| a.high().total_cmp(&b.high()).then(median(a).total_cmp(&median(b))));
    let describe = |e: &Evidence| {
        let file =
            id.map(|id| format!("; {}", same_file(e.series, current, id))).unwrap_or_default();
        let older = if e.current { "" } else { "**older code**: " };
        format!(
            "{older}{} {}; {}, {}{file}",
            ratio(e.ratio),
            e.what,
            link(e.path),
            series_cell(e.series)
        )
    };
    match (best, worst) {
        (Some(best), Some(worst)) if !std::ptr::eq(*best, *worst) => {
            format!("best: {}<br>worst: {}", describe(best), describe(worst))
        }
        (Some(best), _) => describe(best),
        _ => "not run".into(),
    }
}

/// The verdict on the standing rows (`standing`, per machine and level).
fn verdict(evidence: &[&Evidence], differ: bool) -> String {
    if differ {
        return "**outputs differ**".into();
    }
    if evidence.is_empty() {
        return "not measured".into();
    }
    // The machines with a row that passes `test`, comma separated ("" if none); a machine
    // whose rows ran older code says so.
    let machines = |test: fn(&Evidence) -> bool| {
        let name = |e: &&Evidence| {
            if e.current {
                e.machine.to_string()
            } else {
                format!("{} {}: older code", e.machine, e.level)
            }
        };
        let set: BTreeSet<String> = evidence.iter().filter(|e| test(e)).map(name).collect();
        set.into_iter().collect::<Vec<_>>().join(", ")
    };
    let faster = machines(|e| e.low() > 1.0);
    let mut text =
        if faster.is_empty() { "no gain shown".to_string() } else { format!("faster ({faster})") };
    let slower = machines(|e| e.high() < 1.0);
    if !slower.is_empty() {
        let _ = write!(text, "; **slower at some rows** ({slower})");
    }
    if !evidence.iter().any(|e| e.current) {
        text.push_str("; older code only");
    }
    text
}

/// `op points 45/45 bit-identical; runs 9/9 bit-identical, 6 not comparable`.
fn identity(points: (usize, usize), runs: &[&E2eRun]) -> String {
    let mut parts = Vec::new();
    if points.1 > 0 {
        parts.push(format!("op points {}/{} bit-identical", points.0, points.1));
    }
    if !runs.is_empty() {
        let identical = runs.iter().filter(|r| r.verdict == "identical").count();
        let comparable = runs.iter().filter(|r| r.verdict != "nondeterministic").count();
        let mut text = format!("end to end {identical}/{comparable} bit-identical");
        if comparable < runs.len() {
            let _ = write!(
                text,
                ", {} not comparable (an arm nondeterministic)",
                runs.len() - comparable
            );
        }
        parts.push(text);
    }
    if parts.is_empty() {
        "not run".into()
    } else {
        parts.join("; ")
    }
}

fn machines(s: &Sources) -> Vec<String> {
    let set: BTreeSet<&str> = s
        .ops
        .iter()
        .map(|r| r.source.machine.as_str())
        .chain(s.e2e.iter().map(|r| r.source.machine.as_str()))
        .collect();
    set.into_iter().map(String::from).collect()
}

fn per_patch(md: &mut String, s: &Sources) {
    let machines = machines(s);
    let _ = writeln!(md, "## Per patch\n");
    let _ = writeln!(
        md,
        "Each patch's best figure per machine: the row whose 95% interval has the highest low end, \
         and its worst when another row's interval ends lower: the row with the lowest high end \
         (stock/patched, or B/A tokens per second: above 1, the patch is faster). Op level: the \
         single-op points (`mlx-ab ops`, earlier `scripts/op_ab.py`) of the ops the patch changes on that machine (the manifests' \
         `measures`; control points, which no patch changes, left out). End to end: `mlx-ab run` of the patch alone against stock, in the phase its change is in \
         (`reports/series.json`'s `end_to_end_phase`: decode for eval-walk, prefill for the \
         others; the other phase's figure is in the tables below). Each names its \
         raw file and series, and whether the patch's file there is its file now.\n"
    );
    let _ = writeln!(md, "{VERDICT_RULE}\n");
    let mut header = String::from("| patch | what it changes |");
    let mut rule = String::from("|---|---|");
    for level in ["op level", "end to end"] {
        for m in &machines {
            let _ = write!(header, " {level}, {m} |");
            rule.push_str("---|");
        }
    }
    let _ = writeln!(md, "{header} bit identity | not run | verdict |\n{rule}---|---|---|");
    for patch in &s.current.patches {
        let id = patch.id();
        let runs: Vec<&E2eRun> = s.e2e.iter().filter(|r| e2e_alone(r, id)).collect();
        let mut op_ev = Vec::new();
        s.ops.iter().for_each(|r| op_evidence(r, id, &s.current, &mut op_ev));
        let mut run_ev = Vec::new();
        let phase = s.phases.get(id).map(String::as_str);
        for r in &runs {
            let now = runs_current_code(&r.source.series, &r.b_patches, &s.current, id);
            e2e_evidence(r, phase, now, &mut run_ev);
        }
        let points = s.ops.iter().flat_map(|r| &r.points).filter(|p| p.measures(id));
        let identical = points.clone().filter(|p| p.identical).count();
        let total = points.count();
        let differ = identical < total || runs.iter().any(|r| r.verdict == "different");
        let mut row = format!("| `{}` | {} |", patch.name, s.subjects[id]);
        let mut not_run = vec!["Metal (no Apple hardware)".to_string()];
        let mut stand = Vec::new();
        for (level, ev) in [("op level", &op_ev), ("end to end", &run_ev)] {
            for m in &machines {
                let cell = best_cell(ev, m, &s.current, Some(id));
                if cell == "not run" {
                    not_run.push(format!("{level} on {m}"));
                }
                let _ = write!(row, " {cell} |");
                stand.extend(standing(ev, m));
            }
        }
        if !stand.iter().any(|e| e.current) {
            not_run.push("anything on its current code".into());
        }
        let _ = writeln!(
            md,
            "{row} {} | {} | {} |",
            identity((identical, total), &runs),
            not_run.join("; "),
            verdict(&stand, differ)
        );
    }
    // The series as a whole: its end-to-end runs with every patch of their series.
    let runs: Vec<&E2eRun> = s.e2e.iter().filter(|r| e2e_whole(r)).collect();
    let mut ev = Vec::new();
    for r in &runs {
        let now = r.source.series.code_digest() == s.current.code_digest();
        e2e_evidence(r, None, now, &mut ev);
    }
    let mut row = String::from("| all patches of a series | the whole series together |");
    let mut not_run = vec!["Metal (no Apple hardware)".to_string()];
    for _ in &machines {
        row.push_str(" (per patch) |");
    }
    let mut stand = Vec::new();
    for m in &machines {
        let cell = best_cell(&ev, m, &s.current, None);
        if cell == "not run" {
            not_run.push(format!("end to end on {m}"));
        }
        let _ = write!(row, " {cell} |");
        stand.extend(standing(&ev, m));
    }
    if !stand.iter().any(|e| e.current) {
        not_run.push("anything on the current series".into());
    }
    let differ = runs.iter().any(|r| r.verdict == "different");
    let _ = writeln!(
        md,
        "{row} {} | {} | {} |\n",
        identity((0, 0), &runs),
        not_run.join("; "),
        verdict(&stand, differ)
    );
}

/// Every series a row names, current first, then newest first; commits sharing patch files
/// share a series.
fn series_groups(s: &Sources) -> Vec<(String, Vec<Series>)> {
    let mut all: Vec<&Series> = s
        .e2e
        .iter()
        .map(|r| &r.source.series)
        .chain(s.ops.iter().map(|r| &r.source.series))
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

fn group_heading(md: &mut String, level: &str, digest: &str, members: &[Series], current: &Series) {
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
    let total = s.e2e.len() + s.ops.len();
    let on_current = s
        .e2e
        .iter()
        .map(|r| &r.source.series)
        .chain(s.ops.iter().map(|r| &r.source.series))
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
    per_patch(&mut md, s);
    e2e_section(&mut md, s);
    ops_section(&mut md, s);
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
