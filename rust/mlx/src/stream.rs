//! Devices and streams.
//!
//! Ops run on the current thread's default stream of the default device. In MLX v0.32 every
//! thread has its own default streams, and a stream can only run work on the thread that
//! made it, so [`Stream`] is neither `Send` nor `Sync`.

use std::marker::PhantomData;

use mlx_sys::ffi::stream::ffi::{self as sys, DeviceKind};

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
        Device::from_raw(sys::default_device_kind(), sys::default_device_index())
    }

    /// Makes this the default device (errors if the build lacks it).
    pub fn set_default(self) -> Result<()> {
        Ok(sys::set_default_device(self.raw_kind(), self.index)?)
    }

    pub fn is_available(self) -> bool {
        sys::device_is_available(self.raw_kind(), self.index).unwrap_or(false)
    }

    fn raw_kind(self) -> DeviceKind {
        match self.kind {
            DeviceType::Cpu => DeviceKind::Cpu,
            DeviceType::Gpu => DeviceKind::Gpu,
        }
    }

    fn from_raw(kind: DeviceKind, index: i32) -> Device {
        let kind = if kind == DeviceKind::Gpu { DeviceType::Gpu } else { DeviceType::Cpu };
        Device { kind, index }
    }
}

/// An MLX stream (a queue of work on one device), usable on the thread that got it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stream {
    index: i32,
    device: Device,
    // Streams are per thread in MLX v0.32: keep them on their thread.
    _thread_bound: PhantomData<*const ()>,
}

impl Stream {
    fn from_index(index: i32) -> Result<Stream> {
        let device =
            Device::from_raw(sys::stream_device_kind(index)?, sys::stream_device_index(index)?);
        Ok(Stream { index, device, _thread_bound: PhantomData })
    }

    /// This thread's default stream on `device` (made on first use).
    pub fn default_for(device: Device) -> Result<Stream> {
        Stream::from_index(sys::default_stream(device.raw_kind(), device.index)?)
    }

    /// A new stream on `device`, owned by this thread.
    pub fn new(device: Device) -> Result<Stream> {
        Stream::from_index(sys::new_stream(device.raw_kind(), device.index)?)
    }

    pub fn device(&self) -> Device {
        self.device
    }

    /// MLX's index of the stream (unique in the process).
    pub fn index(&self) -> i32 {
        self.index
    }

    /// Waits for all work queued on this stream; returns an error a kernel raised there.
    pub fn synchronize(&self) -> Result<()> {
        Ok(sys::synchronize(self.index)?)
    }

    /// Makes this stream the default of its device for this thread (until changed).
    pub fn set_default(&self) -> Result<()> {
        Ok(sys::set_default_stream(self.index)?)
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
