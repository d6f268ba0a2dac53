//! The Send/Sync story of `Array` (see its documentation), tested as claimed:
//! - `Array` is Send + Sync, `Stream` is neither;
//! - evaluated arrays can be sent or shared and used by ops on other threads;
//! - an unevaluated graph built on one thread cannot be evaluated on another (MLX streams
//!   are per thread): that is an `Err`, and the graph still evaluates on its own thread;
//! - concurrent use of the same arrays from many threads gives correct results.

mod common;

use std::sync::Arc;
use std::thread;

use common::arr;
use mlx::{ops, Array, Error};

/// Auto-trait probe: the inherent constant applies when `T: Send`, the trait default otherwise.
mod probe {
    use std::marker::PhantomData;
    pub trait Fallback {
        const SEND: bool = false;
        const SYNC: bool = false;
    }
    pub struct IsSend<T: ?Sized>(PhantomData<T>);
    impl<T: ?Sized> Fallback for IsSend<T> {}
    impl<T: ?Sized + Send> IsSend<T> {
        pub const SEND: bool = true;
    }
    pub struct IsSync<T: ?Sized>(PhantomData<T>);
    impl<T: ?Sized> Fallback for IsSync<T> {}
    impl<T: ?Sized + Sync> IsSync<T> {
        pub const SYNC: bool = true;
    }
}
use probe::{Fallback, IsSend, IsSync};

#[test]
#[allow(clippy::assertions_on_constants)] // The constants are what is tested.
fn marker_traits_are_as_documented() {
    assert!(IsSend::<Array>::SEND);
    assert!(IsSync::<Array>::SYNC);
    assert!(IsSend::<Error>::SEND && IsSync::<Error>::SYNC);
    assert!(!IsSend::<mlx::Stream>::SEND);
    assert!(!IsSync::<mlx::Stream>::SYNC);
    // The probe itself can tell both answers apart.
    assert!(!IsSend::<std::rc::Rc<u8>>::SEND);
}

#[test]
fn evaluated_arrays_move_to_threads_and_compute_there() {
    let w = arr(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2]);
    w.eval().unwrap();
    let handles: Vec<_> = (0..4)
        .map(|i| {
            let w = w.clone();
            thread::spawn(move || {
                let x = arr(&[i as f32, 1.0], &[1, 2]);
                let y = x.matmul(&w).unwrap();
                (i, y.to_vec::<f32>().unwrap(), y)
            })
        })
        .collect();
    for h in handles {
        let (i, v, y) = h.join().unwrap();
        let i = i as f32;
        // [i 1] @ [[1 2] [3 4]] = [i + 3, 2i + 4]
        assert_eq!(v, [i + 3.0, 2.0 * i + 4.0]);
        // The result came back evaluated and is usable here.
        assert_eq!(ops::sum(&y, false).unwrap().item::<f32>().unwrap(), 3.0 * i + 7.0);
    }
}

#[test]
fn unevaluated_graph_from_another_thread_is_an_error_not_a_crash() {
    let a = arr(&[1.0f32, 2.0], &[2]);
    let lazy = ops::add(&a, &a).unwrap();
    let lazy = thread::spawn(move || {
        match lazy.eval() {
            Err(Error::Mlx(msg)) => assert!(msg.contains("Stream"), "{msg}"),
            other => panic!("expected MLX's stream error, got {other:?}"),
        }
        assert!(lazy.to_vec::<f32>().is_err());
        lazy
    })
    .join()
    .unwrap();
    // Back on its own thread the graph is intact.
    assert_eq!(lazy.to_vec::<f32>().unwrap(), [2.0, 4.0]);
}

#[test]
fn shared_arrays_read_concurrently() {
    let n: i32 = 4096;
    let data: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let a = Arc::new(arr(&data, &[n]));
    a.eval().unwrap();
    let expected_sum: f64 = data.iter().map(|&x| x as f64).sum();
    thread::scope(|s| {
        for t in 0..4 {
            let a = Arc::clone(&a);
            let data = &data;
            s.spawn(move || {
                for r in 0..50 {
                    assert_eq!(a.to_vec::<f32>().unwrap(), *data);
                    let shifted = ops::add(&a, &Array::scalar((t * 100 + r) as f32)).unwrap();
                    let sum =
                        ops::sum(&shifted.astype(mlx::Dtype::Float64).unwrap(), false).unwrap();
                    let want = expected_sum + n as f64 * (t * 100 + r) as f64;
                    assert_eq!(sum.item::<f64>().unwrap(), want);
                }
            });
        }
    });
}

#[test]
fn independent_graphs_on_many_threads() {
    thread::scope(|s| {
        for t in 0..4i32 {
            s.spawn(move || {
                let mut x = arr(&[t as f32], &[1]);
                for step in 1..=200 {
                    x = ops::add(&x, &Array::scalar(1.0f32)).unwrap();
                    if step % 50 == 0 {
                        x.eval().unwrap();
                    }
                }
                assert_eq!(x.item::<f32>().unwrap(), t as f32 + 200.0);
            });
        }
    });
}

/// One lazy array, evaluated at the same time by its own thread and (by reference) by others.
/// The others either see it already evaluated (Ok, right values) or fail with the stream
/// error; the owner always gets the right values.
#[test]
fn concurrent_eval_of_one_array_through_shared_references() {
    for _ in 0..20 {
        let x = arr(&(0..256).map(|i| i as f32).collect::<Vec<_>>(), &[16, 16]);
        let lazy = ops::matmul(&x, &x).unwrap();
        let expect = lazy_reference(&x);
        thread::scope(|s| {
            for _ in 0..3 {
                let lazy = &lazy;
                let expect = &expect;
                s.spawn(move || match lazy.to_vec::<f32>() {
                    Ok(v) => assert_eq!(&v, expect),
                    Err(Error::Mlx(msg)) => assert!(msg.contains("Stream"), "{msg}"),
                    Err(e) => panic!("{e}"),
                });
            }
            assert_eq!(lazy.to_vec::<f32>().unwrap(), expect);
        });
    }
}

fn lazy_reference(x: &Array) -> Vec<f32> {
    let v = x.to_vec::<f32>().unwrap();
    common::matmul_ref(&v, &v, 16, 16, 16)
}
