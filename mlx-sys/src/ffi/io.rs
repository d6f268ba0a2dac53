//! Safetensors files (`mlx/io.h`).

#[cxx::bridge(namespace = "mlx_sys")]
pub mod ffi {
    /// Result of `load_safetensors`: `names[i]` names `arrays[i]`; metadata as parallel lists.
    struct SafetensorsData {
        names: Vec<String>,
        arrays: UniquePtr<CxxVector<array>>,
        metadata_keys: Vec<String>,
        metadata_values: Vec<String>,
    }

    unsafe extern "C++" {
        include!("shim_io.h");

        #[namespace = "mlx::core"]
        type array = crate::ffi::array::ffi::array;

        /// Parses the header now (bad files fail here); data is read when the arrays are evaluated.
        fn load_safetensors(path: &str) -> Result<SafetensorsData>;
        fn save_safetensors(
            path: &str,
            names: &Vec<String>,
            arrays: &CxxVector<array>,
            metadata_keys: &Vec<String>,
            metadata_values: &Vec<String>,
        ) -> Result<()>;
    }
}
