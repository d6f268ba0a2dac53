//! What happens to a graph while it grows, besides new ops: partial evals (some async), evals
//! of arrays already evaluated, extensions of evaluated subgraphs, reads of intermediate
//! values, and arrays freed while their descendants live on, as a program's temporaries are.
//! The eval walk must handle nodes whose only owners are their consumers, evaluated inputs
//! (which it skips), and pending work whose arrays are gone.

use super::build::{Builder, Entry};
use super::codec::{output, Output};
use mlx::{ops, Array, Result};
use std::collections::HashMap;

/// eval or async_eval of a few pool arrays, then sometimes: one is read (a snapshot output),
/// the subgraph is extended and evaluated again, or (async) they are freed with work pending.
pub(super) fn eval_some(b: &mut Builder, snapshots: &mut Vec<Output>) -> Result<()> {
    let picked: Vec<usize> = (0..1 + b.rng.index(3)).map(|_| b.pick_index()).collect();
    let arrays: Vec<Array> = picked.iter().map(|&i| b.pool[i].array.clone()).collect();
    for &i in &picked {
        b.pool[i].evaluated = true;
    }
    b.stats.partial_evals += 1;
    b.stats.evals_after_free += usize::from(std::mem::take(&mut b.freed_since_eval));
    let asynchronous = b.rng.chance(2);
    if asynchronous {
        b.stats.partial_async_evals += 1;
        mlx::async_eval(&arrays)?;
    } else {
        mlx::eval(&arrays)?;
    }
    match b.rng.index(6) {
        0 => {
            // Waits for the value if the eval was asynchronous.
            snapshots.push(output(&arrays[0])?);
            b.stats.snapshots += 1;
        }
        1 => extend_and_eval(b, &arrays[0])?,
        2 if asynchronous => {
            drop(arrays);
            // Nothing has waited on them yet: their work may still be running.
            let mut picked = picked;
            picked.sort_unstable();
            picked.dedup();
            for i in picked.into_iter().rev() {
                let entry = b.pool.remove(i);
                b.stats.freed_after_async += 1;
                b.stats.freed_pending += usize::from(!entry.array.is_available());
                count_freed(b, &entry);
            }
        }
        3 => {
            // Freed right after their eval; descendants already built still read them.
            drop(arrays);
            let i = picked[0];
            if b.pool.len() > 1 {
                let entry = b.pool.remove(i);
                count_freed(b, &entry);
            }
        }
        _ => {}
    }
    Ok(())
}

/// A few ops on an evaluated array, evaluated at once: the walk stops at the evaluated input.
fn extend_and_eval(b: &mut Builder, evaluated: &Array) -> Result<()> {
    let t = ops::tanh(evaluated)?;
    let other = b.any();
    let y = ops::multiply(&t, &other).unwrap_or_else(|_| t.clone());
    if b.rng.chance(2) {
        mlx::async_eval(&[&y])?;
    } else {
        mlx::eval(&[&y])?;
    }
    b.push(vec![t]);
    b.push(vec![y]);
    b.pool.last_mut().expect("just pushed").evaluated = true;
    b.stats.extended_evals += 1;
    Ok(())
}

/// eval or async_eval again of arrays evaluated before, sometimes with one not evaluated yet.
pub(super) fn re_eval(b: &mut Builder) -> Result<()> {
    let done: Vec<usize> = (0..b.pool.len()).filter(|&i| b.pool[i].evaluated).collect();
    if done.is_empty() {
        return Ok(());
    }
    let mut arrays: Vec<Array> =
        (0..1 + b.rng.index(2)).map(|_| b.pool[*b.rng.pick(&done)].array.clone()).collect();
    if b.rng.chance(2) {
        arrays.push(b.any());
    }
    b.stats.re_evals += 1;
    if b.rng.chance(2) {
        mlx::async_eval(&arrays)
    } else {
        mlx::eval(&arrays)
    }
}

/// Drops pool arrays while the graph goes on from their descendants: one at random, a sibling
/// (an output of a multi-output op whose other output stays), or all but a few, as a loop's
/// temporaries go out of scope.
pub(super) fn free_some(b: &mut Builder) {
    if b.pool.len() < 8 {
        return;
    }
    match b.rng.index(4) {
        0 | 1 => {
            let i = b.rng.index(b.pool.len());
            let entry = b.pool.remove(i);
            count_freed(b, &entry);
        }
        2 => free_sibling(b),
        _ => {
            // Keeps the newest 4 and about a quarter of the rest.
            let keep_from = b.pool.len() - 4;
            let mut kept = Vec::with_capacity(b.pool.len());
            for (i, entry) in std::mem::take(&mut b.pool).into_iter().enumerate() {
                if i >= keep_from || b.rng.chance(4) {
                    kept.push(entry);
                } else {
                    count_freed(b, &entry);
                }
            }
            b.pool = kept;
            b.stats.purges += 1;
        }
    }
}

/// Frees one output of a multi-output op while a sibling that ops read stays in the pool.
fn free_sibling(b: &mut Builder) {
    // Per op: outputs in the pool, and those read by ops.
    let mut live: HashMap<usize, (usize, usize)> = HashMap::new();
    for e in &b.pool {
        if let Some(g) = e.group {
            let (n, used) = live.entry(g).or_default();
            *n += 1;
            *used += usize::from(e.uses > 0);
        }
    }
    let candidates: Vec<usize> = (0..b.pool.len())
        .filter(|&i| {
            let e = &b.pool[i];
            e.group.is_some_and(|g| {
                let (n, used) = live[&g];
                n > 1 && used > usize::from(e.uses > 0)
            })
        })
        .collect();
    if candidates.is_empty() {
        return;
    }
    let i = *b.rng.pick(&candidates);
    let entry = b.pool.remove(i);
    b.stats.freed_siblings += 1;
    count_freed(b, &entry);
}

/// Counts `entry`, about to be dropped (the last handle of its array).
fn count_freed(b: &mut Builder, entry: &Entry) {
    b.stats.freed += 1;
    b.stats.freed_used += usize::from(entry.uses > 0);
    b.stats.freed_evaluated += usize::from(entry.evaluated);
    b.freed_since_eval = true;
}
