//! Devices and streams.
//!
//! Ops run on the current thread's default stream of the default device. In MLX v0.32 every
//! thread has its own default streams, and a stream can only run work on the thread that
//! made it, so [`Stream`] is neither `Send` nor `Sync`.

use std::marker::PhantomData;

use mlx_sys::ffi::stream::ffi::{self as sys, DeviceHandle, DeviceKind, StreamHandle};

use crate::Result;

/// CPU or GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeviceType {
    Cpu,
    Gpu,
}

/// A device: type and index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Device {
    pub kind: DeviceType,
    pub index: i32,
}

impl Device {
    pub fn cpu() -> Device {
        Device { kind: DeviceType::Cpu, index: 0 }
    }

    /// GPU `index` (Metal or CUDA builds; not available in this project's Linux CPU build).
    pub fn gpu(index: i32) -> Device {
        Device { kind: DeviceType::Gpu, index }
    }

    /// The default device of ops (GPU if the build has one, else CPU).
    pub fn default_device() -> Device {
        Device::from_handle(sys::default_device())
    }

    /// Makes this the default device (errors if the build lacks it).
    pub fn set_default(self) -> Result<()> {
        Ok(sys::set_default_device(self.handle())?)
    }

    pub fn is_available(self) -> bool {
        sys::device_is_available(self.handle()).unwrap_or(false)
    }

    fn handle(self) -> DeviceHandle {
        let kind = match self.kind {
            DeviceType::Cpu => DeviceKind::Cpu,
            DeviceType::Gpu => DeviceKind::Gpu,
        };
        DeviceHandle { kind, index: self.index }
    }

    fn from_handle(h: DeviceHandle) -> Device {
        let kind = if h.kind == DeviceKind::Gpu { DeviceType::Gpu } else { DeviceType::Cpu };
        Device { kind, index: h.index }
    }
}

/// An MLX stream (a queue of work on one device), usable on the thread that got it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stream {
    handle: StreamHandle,
    // Streams are per thread in MLX v0.32: keep them on their thread.
    _thread_bound: PhantomData<*const ()>,
}

impl Stream {
    fn from_handle(handle: StreamHandle) -> Stream {
        Stream { handle, _thread_bound: PhantomData }
    }

    /// This thread's default stream on `device` (made on first use).
    pub fn default_for(device: Device) -> Result<Stream> {
        Ok(Stream::from_handle(sys::default_stream(device.handle())?))
    }

    /// A new stream on `device`, owned by this thread.
    pub fn new(device: Device) -> Result<Stream> {
        Ok(Stream::from_handle(sys::new_stream(device.handle())?))
    }

    pub fn device(&self) -> Device {
        Device::from_handle(self.handle.device)
    }

    /// MLX's index of the stream (unique in the process).
    pub fn index(&self) -> i32 {
        self.handle.index
    }

    /// Waits for all work queued on this stream; returns an error a kernel raised there.
    pub fn synchronize(&self) -> Result<()> {
        Ok(sys::synchronize(self.handle)?)
    }

    /// Makes this stream the default of its device for this thread (until changed).
    pub fn set_default(&self) -> Result<()> {
        Ok(sys::set_default_stream(self.handle)?)
    }
}

/// Runs `f` with `stream` as this thread's default stream of its device, then restores the
/// previous default (also if `f` panics).
pub fn with_stream<R>(stream: &Stream, f: impl FnOnce() -> R) -> Result<R> {
    struct Restore(Stream);
    impl Drop for Restore {
        fn drop(&mut self) {
            // Restoring a stream that was valid a moment ago on this thread cannot fail.
            let _ = self.0.set_default();
        }
    }
    let previous = Stream::default_for(stream.device())?;
    stream.set_default()?;
    let _restore = Restore(previous);
    Ok(f())
}

/// Waits for the default stream of the default device on this thread.
pub fn synchronize() -> Result<()> {
    Ok(sys::synchronize_default()?)
}
