//! The API lock is not held while kernels run (mlx-sys `cpp/shim_common.h`): two threads
//! evaluate on their own streams at the same time, and a drop does not wait for another
//! thread's evaluation. Each test holds an evaluation in flight with a gate (`common/gate.rs`)
//! and checks what other threads can do meanwhile; with a lock held for whole evaluations
//! they could not, and the test fails after `PATIENCE` instead of hanging.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use common::arr;
use common::gate::Gate;
use mlx::stream::with_stream;
use mlx::{ops, Array, Device, Stream};

/// Only reached when the behaviour under test is missing.
const PATIENCE: Duration = Duration::from_secs(30);

const N: i32 = 48;

fn input(seed: u32) -> Array {
    let data: Vec<f32> =
        (0..N * N).map(|i| ((i as f32) * 0.173 + seed as f32).sin() * 0.25).collect();
    arr(&data, &[N, N])
}

/// A few dozen kernels (well below MLX's 10 x 10 dispatches before an eval waits for a task
/// to finish, which two closed gates would never let happen).
fn workload(x: &Array) -> Array {
    let mut y = x.clone();
    for _ in 0..4 {
        let z = ops::tanh(&ops::matmul(&y, x).unwrap()).unwrap();
        y = ops::add(&z, &ops::multiply(&y, &Array::scalar(0.5f32)).unwrap()).unwrap();
    }
    y
}

fn bits(a: &Array) -> Vec<u32> {
    a.to_vec::<f32>().unwrap().into_iter().map(f32::to_bits).collect()
}

/// Single-threaded, on the default stream, without a gate.
fn reference(seed: u32) -> Vec<u32> {
    bits(&workload(&input(seed)))
}

#[test]
fn two_threads_evaluate_on_their_own_streams_at_the_same_time() {
    let gates = [Gate::new(), Gate::new()];
    let results = thread::scope(|s| {
        let handles: Vec<_> = gates
            .iter()
            .enumerate()
            .map(|(i, gate)| {
                s.spawn(move || {
                    let stream = Stream::new(Device::cpu()).unwrap();
                    with_stream(&stream, || {
                        let y = workload(&gate.pass(&input(i as u32)));
                        y.eval().unwrap();
                        bits(&y)
                    })
                    .unwrap()
                })
            })
            .collect();
        // A gate is entered only by an evaluation in progress, and neither can finish before
        // its gate opens: both entered means both evaluations ran at once.
        let entered: Vec<bool> = gates.iter().map(|g| g.wait_entered(PATIENCE)).collect();
        gates.iter().for_each(Gate::open);
        let results: Vec<Vec<u32>> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        assert_eq!(entered, [true, true], "both evaluations in flight at once");
        results
    });
    for (i, got) in results.iter().enumerate() {
        assert_eq!(*got, reference(i as u32), "thread {i}: bit-identical to one thread");
    }
}

#[test]
fn drop_on_another_thread_does_not_wait_for_an_unrelated_eval() {
    // Unrelated to the evaluation below: an evaluated array and an unevaluated graph, whose
    // last handles the dropping thread releases (freeing graph nodes, as drops do).
    let evaluated = input(7);
    evaluated.eval().unwrap();
    let lazy = ops::exp(&ops::add(&input(8), &evaluated).unwrap()).unwrap();

    let gate = Gate::new();
    let eval_returned = AtomicBool::new(false);
    thread::scope(|s| {
        let evaluating = s.spawn(|| {
            let stream = Stream::new(Device::cpu()).unwrap();
            with_stream(&stream, || {
                let y = workload(&gate.pass(&input(1)));
                y.eval().unwrap();
                eval_returned.store(true, Ordering::SeqCst);
                bits(&y)
            })
            .unwrap()
        });
        let in_flight = gate.wait_entered(PATIENCE);

        let (done, dropped) = mpsc::channel();
        let dropping = s.spawn(move || {
            drop(lazy);
            drop(evaluated);
            done.send(()).unwrap();
        });
        let drop_finished = dropped.recv_timeout(PATIENCE).is_ok();
        // The gate is still closed, so the evaluation has not returned.
        let eval_was_running = !eval_returned.load(Ordering::SeqCst);
        gate.open();
        dropping.join().unwrap();
        let got = evaluating.join().unwrap();

        assert!(in_flight, "the evaluation reached its gate");
        assert!(drop_finished, "the drops finished while the other thread was evaluating");
        assert!(eval_was_running);
        assert_eq!(got, reference(1));
    });
}
