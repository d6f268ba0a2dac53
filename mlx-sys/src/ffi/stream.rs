//! Devices and streams (`mlx/device.h`, `mlx/stream.h`).
//!
//! MLX v0.32 streams are per thread: each thread has its own default stream per device, and a
//! stream made by `new_stream` can only run work on the thread that made it (evaluating such
//! work elsewhere throws "There is no Stream(cpu, N) in current thread.").

#[cxx::bridge(namespace = "mlx_sys")]
pub mod ffi {
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    #[repr(u8)]
    enum DeviceKind {
        Cpu,
        Gpu,
    }

    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    struct DeviceHandle {
        kind: DeviceKind,
        index: i32,
    }

    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    struct StreamHandle {
        index: i32,
        device: DeviceHandle,
    }

    unsafe extern "C++" {
        include!("shim_stream.h");

        fn default_device() -> DeviceHandle;
        fn set_default_device(d: DeviceHandle) -> Result<()>;
        fn device_is_available(d: DeviceHandle) -> Result<bool>;
        /// This thread's default stream on `d` (made on first use).
        fn default_stream(d: DeviceHandle) -> Result<StreamHandle>;
        fn new_stream(d: DeviceHandle) -> Result<StreamHandle>;
        /// Makes `s` this thread's default stream for its device.
        fn set_default_stream(s: StreamHandle) -> Result<()>;
        /// Waits for all work queued on `s`; rethrows an error a kernel raised there.
        fn synchronize(s: StreamHandle) -> Result<()>;
        fn synchronize_default() -> Result<()>;
    }
}
