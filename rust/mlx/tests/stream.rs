//! Devices and streams on the CPU build.

mod common;

use common::arr;
use mlx::{ops, stream, Device, DeviceType, Stream};

#[test]
fn default_device_and_stream() {
    let cpu = Device::cpu();
    assert!(cpu.is_available());
    assert_eq!(cpu.kind, DeviceType::Cpu);
    let d = Stream::default_for(cpu).unwrap();
    assert_eq!(d.device(), cpu);
    // The default stream is stable within a thread.
    assert_eq!(Stream::default_for(cpu).unwrap(), d);
    d.synchronize().unwrap();
    mlx::synchronize().unwrap();
}

#[test]
fn new_stream_runs_work_and_restores_default() {
    let cpu = Device::cpu();
    let before = Stream::default_for(cpu).unwrap();
    let s = Stream::new(cpu).unwrap();
    assert_ne!(s.index(), before.index());
    let y = stream::with_stream(&s, || {
        assert_eq!(Stream::default_for(cpu).unwrap(), s);
        let x = arr(&[1.0f32, 2.0, 3.0], &[3]);
        let y = ops::multiply(&x, &x).unwrap();
        mlx::async_eval(&[&y]).unwrap();
        y
    })
    .unwrap();
    s.synchronize().unwrap();
    assert!(y.is_available());
    assert_eq!(y.to_vec::<f32>().unwrap(), [1.0, 4.0, 9.0]);
    assert_eq!(Stream::default_for(cpu).unwrap(), before);

    // Restored even when the closure panics.
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        stream::with_stream(&s, || panic!("inside")).unwrap();
    }));
    assert!(r.is_err());
    assert_eq!(Stream::default_for(cpu).unwrap(), before);

    s.set_default().unwrap();
    assert_eq!(Stream::default_for(cpu).unwrap(), s);
    before.set_default().unwrap();
}

#[test]
fn eval_and_async_eval_of_several_arrays() {
    let x = arr(&[1i32, 2, 3], &[3]);
    let a = ops::add(&x, &x).unwrap();
    let b = ops::multiply(&x, &x).unwrap();
    assert!(!a.is_available() && !b.is_available());
    mlx::eval(&[&a, &b]).unwrap();
    assert!(a.is_available() && b.is_available());
    let c = ops::subtract(&b, &a).unwrap();
    mlx::async_eval(std::slice::from_ref(&c)).unwrap();
    assert_eq!(c.to_vec::<i32>().unwrap(), [-1, 0, 3]);
    mlx::eval::<mlx::Array>(&[]).unwrap();
}
