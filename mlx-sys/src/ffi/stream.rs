//! Devices and streams (`mlx/device.h`, `mlx/stream.h`). A stream is named by its MLX index
//! (unique in the process), a device by kind and index.
//!
//! MLX v0.32 streams are per thread: each thread has its own default stream per device, and a
//! stream made by `new_stream` can only run work on the thread that made it (evaluating such
//! work elsewhere throws "There is no Stream(cpu, N) in current thread.").

#[cxx::bridge(namespace = "mlx_sys")]
pub mod ffi {
    /// Defined in shim_stream.h; cxx checks the variants match.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    #[repr(u8)]
    enum DeviceKind {
        Cpu,
        Gpu,
    }

    unsafe extern "C++" {
        include!("shim_stream.h");

        type DeviceKind;

        fn default_device_kind() -> DeviceKind;
        fn default_device_index() -> i32;
        fn set_default_device(kind: DeviceKind, index: i32) -> Result<()>;
        fn device_is_available(kind: DeviceKind, index: i32) -> Result<bool>;
        /// This thread's default stream on the device (made on first use).
        fn default_stream(kind: DeviceKind, index: i32) -> Result<i32>;
        fn new_stream(kind: DeviceKind, index: i32) -> Result<i32>;
        fn stream_device_kind(stream: i32) -> Result<DeviceKind>;
        fn stream_device_index(stream: i32) -> Result<i32>;
        /// Makes the stream this thread's default for its device.
        fn set_default_stream(stream: i32) -> Result<()>;
        /// Waits for all work queued on the stream; rethrows an error a kernel raised there.
        fn synchronize(stream: i32) -> Result<()>;
        fn synchronize_default() -> Result<()>;
    }
}
