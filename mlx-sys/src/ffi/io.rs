//! Safetensors files (`mlx/io.h`).

#[cxx::bridge(namespace = "mlx_sys")]
pub mod ffi {
    unsafe extern "C++" {
        include!("shim_io.h");

        #[namespace = "mlx::core"]
        type array = crate::ffi::array::ffi::array;

        /// Parses the header now (bad files fail here); data is read when the arrays are
        /// evaluated. Appends `names[i]`/`arrays[i]` pairs and metadata key/value lists.
        fn load_safetensors(
            path: &str,
            names: &mut Vec<String>,
            arrays: Pin<&mut CxxVector<array>>,
            metadata_keys: &mut Vec<String>,
            metadata_values: &mut Vec<String>,
        ) -> Result<()>;
        fn save_safetensors(
            path: &str,
            names: &Vec<String>,
            arrays: &CxxVector<array>,
            metadata_keys: &Vec<String>,
            metadata_values: &Vec<String>,
        ) -> Result<()>;
    }
}
