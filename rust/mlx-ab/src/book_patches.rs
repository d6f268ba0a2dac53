//! The per-patch evidence of the book: which rows stand for a patch (its current code first),
//! its best and worst per machine, its verdict; rendered as BENCHMARKS.md's per-patch table and
//! README's summary.

use crate::book_render::{link, ratio, series_cell};
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
     machine and level): a row ran it when its series' diffs are today's, or only patches its \
     backend does not compile were added since (a CUDA-only patch leaves a CPU row's code as \
     it was), or when its arm B is the patch alone and that patch's diff is today's (\"patch \
     file as now\", \"its diff as now\"). \
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

/// Did a row of raw file `source` whose arm B held `b_patches` run patch `id`'s current code? Yes
/// when its series built today's code on its backend, or when B is the patch alone and its diff
/// is today's.
fn runs_current_code(source: &Source, b_patches: &[String], current: &Series, id: &str) -> bool {
    let row = &source.series;
    let alone = b_patches.len() == 1 && b_patches[0] == id;
    row.same_code_on(current, source.backend())
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

fn e2e_whole(run: &E2eRun) -> bool {
    run.a_patches.is_empty() && run.b_patches == run.source.series.ids()
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
    let now = runs_current_code(&run.source, &run.b_patches, current, id);
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

/// A row in a cell: its ratio, what it is, its raw file and series (and, for a patch, whether
/// that file is the patch's file now); **older code** where it did not run the current code.
fn describe(e: &Evidence, current: &Series, id: Option<&str>) -> String {
    let file = id.map(|id| format!("; {}", same_file(e.series, current, id))).unwrap_or_default();
    let older = if e.current { "" } else { "**older code**: " };
    format!(
        "{older}{} {}; {}, {}{file}",
        ratio(e.ratio),
        e.what,
        link(e.path),
        series_cell(e.series)
    )
}

fn median(e: &Evidence) -> f64 {
    e.ratio.median.unwrap_or(0.0)
}

/// The row with the highest low end of its interval (ties: the higher median).
fn best<'e, 'a>(rows: &[&'e Evidence<'a>]) -> Option<&'e Evidence<'a>> {
    rows.iter()
        .copied()
        .max_by(|a, b| a.low().total_cmp(&b.low()).then(median(a).total_cmp(&median(b))))
}

/// A machine's best standing row and, when another row's interval ends lower, its worst (the
/// lowest high end), so one good point does not stand for all.
fn best_cell(evidence: &[Evidence], machine: &str, current: &Series, id: Option<&str>) -> String {
    let on = standing(evidence, machine);
    let worst = on
        .iter()
        .min_by(|a, b| a.high().total_cmp(&b.high()).then(median(a).total_cmp(&median(b))));
    match (best(&on), worst) {
        (Some(best), Some(worst)) if !std::ptr::eq(best, *worst) => format!(
            "best: {}<br>worst: {}",
            describe(best, current, id),
            describe(worst, current, id)
        ),
        (Some(best), _) => describe(best, current, id),
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

/// One row of the per-patch table: a patch, or the whole series.
struct PatchRow {
    /// `` `0001-name.patch` ``, or "all patches of a series".
    name: String,
    subject: String,
    /// Op level per machine, then end to end per machine.
    cells: Vec<String>,
    identity: String,
    not_run: Vec<String>,
    verdict: String,
    /// The standing row with the highest low end, on any machine and level.
    strongest: String,
}

/// Each patch's row, then the whole series'.
fn rows(s: &Sources) -> Vec<PatchRow> {
    let machines = machines(s);
    let mut rows = Vec::new();
    for patch in &s.current.patches {
        let id = patch.id();
        let runs: Vec<&E2eRun> = s.e2e.iter().filter(|r| e2e_alone(r, id)).collect();
        let mut op_ev = Vec::new();
        s.ops.iter().for_each(|r| op_evidence(r, id, &s.current, &mut op_ev));
        let mut run_ev = Vec::new();
        let phase = s.phases.get(id).map(String::as_str);
        for r in &runs {
            let now = runs_current_code(&r.source, &r.b_patches, &s.current, id);
            e2e_evidence(r, phase, now, &mut run_ev);
        }
        let points = s.ops.iter().flat_map(|r| &r.points).filter(|p| p.measures(id));
        let identical = points.clone().filter(|p| p.identical).count();
        let total = points.count();
        let differ = identical < total || runs.iter().any(|r| r.verdict == "different");
        let levels = [("op level", op_ev.as_slice()), ("end to end", run_ev.as_slice())];
        let mut row = row(&machines, &levels, s, Some(id), "a measurement of its current code");
        row.name = format!("`{}`", patch.name);
        row.subject = s.subjects[id].clone();
        row.identity = identity((identical, total), &runs);
        row.verdict = verdict_of(&machines, &levels, differ);
        rows.push(row);
    }
    // The series as a whole: its end-to-end runs with every patch of their series.
    let runs: Vec<&E2eRun> = s.e2e.iter().filter(|r| e2e_whole(r)).collect();
    let mut ev = Vec::new();
    for r in &runs {
        let now = r.source.series.same_code_on(&s.current, r.source.backend());
        e2e_evidence(r, None, now, &mut ev);
    }
    let levels = [("op level", &[][..]), ("end to end", ev.as_slice())];
    let mut row = row(&machines, &levels, s, None, "a measurement of the current series");
    // Op level is per patch: a sweep changes ops of one patch, not the series'.
    row.cells.iter_mut().take(machines.len()).for_each(|c| *c = "(per patch)".into());
    row.not_run.retain(|n| !n.starts_with("op level"));
    row.name = "all patches of a series".into();
    row.subject = "the whole series together".into();
    row.identity = identity((0, 0), &runs);
    row.verdict = verdict_of(&machines, &levels, runs.iter().any(|r| r.verdict == "different"));
    rows.push(row);
    rows
}

/// A row's cells, what was not run and its strongest standing figure (name, subject, identity
/// and verdict left for the caller).
fn row(
    machines: &[String],
    levels: &[(&str, &[Evidence]); 2],
    s: &Sources,
    id: Option<&str>,
    nothing_current: &str,
) -> PatchRow {
    let mut cells = Vec::new();
    let mut not_run = vec!["Metal (no Apple hardware)".to_string()];
    let mut stand = Vec::new();
    for (level, ev) in levels {
        for m in machines {
            let cell = best_cell(ev, m, &s.current, id);
            if cell == "not run" {
                not_run.push(format!("{level} on {m}"));
            }
            cells.push(cell);
            stand.extend(standing(ev, m));
        }
    }
    if !stand.iter().any(|e| e.current) {
        not_run.push(nothing_current.into());
    }
    let strongest = best(&stand).map_or("not run".into(), |e| {
        format!("{}, {}: {}", e.machine, e.level, describe(e, &s.current, id))
    });
    PatchRow {
        name: String::new(),
        subject: String::new(),
        cells,
        identity: String::new(),
        not_run,
        verdict: String::new(),
        strongest,
    }
}

/// The verdict on every machine's and level's standing rows.
fn verdict_of(machines: &[String], levels: &[(&str, &[Evidence]); 2], differ: bool) -> String {
    let stand: Vec<&Evidence> =
        levels.iter().flat_map(|(_, ev)| machines.iter().flat_map(|m| standing(ev, m))).collect();
    verdict(&stand, differ)
}

/// BENCHMARKS.md's per-patch section.
pub fn per_patch(md: &mut String, s: &Sources) {
    let machines = machines(s);
    let _ = writeln!(md, "## Per patch\n");
    let _ = writeln!(
        md,
        "Each patch's best figure per machine: the row whose 95% interval has the highest low end, \
         and its worst when another row's interval ends lower: the row with the lowest high end \
         (stock/patched, or B/A tokens per second: above 1, the patch is faster). Op level: the \
         single-op points (`mlx-ab ops`, earlier `scripts/op_ab.py`) of the ops the patch changes on that machine (the manifests' \
         `measures`; control points, which no patch changes, left out). End to end: `mlx-ab run` of the patch alone against stock, in the phase its change is in \
         (`reports/series.json`'s `end_to_end_phase`; the other phase's figure is in the \
         tables below). Each names its \
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
    for r in rows(s) {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} |",
            r.name,
            r.subject,
            r.cells.join(" | "),
            r.identity,
            r.not_run.join("; "),
            r.verdict
        );
    }
    md.push('\n');
    md.push_str(&left_the_series(s));
}

/// A paragraph naming the patches that left the series (none: empty), so that their rows in
/// the tables below are not read as the series'.
fn left_the_series(s: &Sources) -> String {
    let left = s.left_the_series();
    if left.is_empty() {
        return String::new();
    }
    let names: Vec<String> = left
        .iter()
        .map(|(patch, series)| format!("`{}` (last run in {})", patch.name, series.label()))
        .collect();
    format!(
        "No longer in the series: {}. Rows below that ran it are of series it was part of; why \
         it left: `patches/prs/README.md`.\n\n",
        names.join(", ")
    )
}

/// README's short table: per patch its verdict and strongest standing figure, from the same
/// rows as BENCHMARKS.md's per-patch table.
pub fn summary(s: &Sources) -> String {
    let mut md = format!(
        "Per patch of the current series (`#{}`), generated by `cargo run -p mlx-ab -- book` from \
         the raw files under `reports/` (do not edit by hand; `book --check` compares it): its \
         verdict and its strongest figure, the one whose 95% interval has the highest low end, on \
         any machine, single op or end to end. Every machine's best and worst, the rules and \
         what was not run: [`BENCHMARKS.md`](BENCHMARKS.md), \"Per patch\".\n\n\
         | patch | what it changes | strongest figure | bit identity | verdict |\n|---|---|---|---|---|\n",
        s.current.digest()
    );
    for r in rows(s) {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} |",
            r.name, r.subject, r.strongest, r.identity, r.verdict
        );
    }
    let left = left_the_series(s);
    if !left.is_empty() {
        md.push('\n');
        md.push_str(left.trim_end());
        md.push('\n');
    }
    md
}
