//! The cmake definitions of an MLX build: one function, used by mlx-sys's build script (through
//! the cmake crate) and, through the `mlx-build` binary, by the GPU scripts. Machine-specific
//! paths (offline dependency sources, cuDNN) are added by the caller.

use crate::sanitize::Sanitize;

/// Which backend MLX is built with, beside its CPU backend.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Backend {
    Cpu,
    /// Not run here: macOS builds Metal.
    Metal,
    /// `architectures`: MLX_CUDA_ARCHITECTURES (`90a`); `None` lets MLX detect the build
    /// machine's GPU.
    Cuda {
        architectures: Option<String>,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildOptions {
    pub backend: Backend,
    /// `libmlx.so` instead of `libmlx.a` (always for CUDA: MLX's runtime JIT finds its headers
    /// beside the library that holds it).
    pub shared: bool,
    /// Also build MLX's own C++ suite (doctest).
    pub cpp_suite: bool,
    /// FetchContent may download what no `FETCHCONTENT_SOURCE_DIR_*` provides.
    pub fetch_online: bool,
    /// Sanitizers instrumenting MLX (`MLX_SANITIZE`); `None` leaves the flags, and the key, of
    /// a normal build.
    pub sanitize: Option<Sanitize>,
}

impl BuildOptions {
    pub fn shared_library(&self) -> bool {
        self.shared || matches!(self.backend, Backend::Cuda { .. })
    }
}

fn on(flag: bool) -> String {
    (if flag { "ON" } else { "OFF" }).to_string()
}

/// `(NAME, VALUE)` pairs for `cmake -DNAME=VALUE`; part of the build key.
pub fn definitions(options: &BuildOptions) -> Vec<(String, String)> {
    let cuda = matches!(options.backend, Backend::Cuda { .. });
    let mut defs: Vec<(&str, String)> = vec![
        ("CMAKE_BUILD_TYPE", "Release".into()),
        ("BUILD_SHARED_LIBS", on(options.shared_library())),
        ("MLX_BUILD_EXAMPLES", on(false)),
        ("MLX_BUILD_BENCHMARKS", on(false)),
        ("MLX_BUILD_PYTHON_BINDINGS", on(false)),
        ("MLX_BUILD_CPU", on(true)),
        ("MLX_BUILD_GGUF", on(false)),
        ("MLX_BUILD_SAFETENSORS", on(true)),
        // CUDA sources need the fmt release MLX pins; CPU builds use the system's.
        ("USE_SYSTEM_FMT", on(!cuda)),
        ("FETCHCONTENT_FULLY_DISCONNECTED", on(!options.fetch_online)),
        ("MLX_BUILD_TESTS", on(options.cpp_suite)),
        ("MLX_BUILD_METAL", on(options.backend == Backend::Metal)),
        ("MLX_BUILD_CUDA", on(cuda)),
    ];
    if let Backend::Cuda { architectures: Some(arch) } = &options.backend {
        defs.push(("MLX_CUDA_ARCHITECTURES", arch.clone()));
    }
    if options.shared_library() {
        // The installed libmlx.so keeps the paths of the CUDA / BLAS libraries it linked.
        defs.push(("CMAKE_INSTALL_RPATH_USE_LINK_PATH", on(true)));
    }
    let mut compile: Vec<String> = Vec::new();
    if !options.shared_library() {
        // A static libmlx compiles to the shared one's objects, so ccache serves the second of
        // the two from the first: position-independent, and without MLX_STATIC, whose only
        // effect on ELF is to drop MLX_API's visibility("default") (the shared build exports
        // through it; inside an executable linked statically the attribute changes nothing).
        // ccache's preprocessor mode ignores -D/-U: the preprocessed sources then match.
        defs.push(("CMAKE_POSITION_INDEPENDENT_CODE", on(true)));
        compile.push("-UMLX_STATIC".into());
    }
    if let Some(sanitize) = &options.sanitize {
        compile.extend(sanitize.compile_flags());
    }
    if !compile.is_empty() {
        defs.push(("CMAKE_C_FLAGS", compile.join(" ")));
        defs.push(("CMAKE_CXX_FLAGS", compile.join(" ")));
    }
    if let Some(sanitize) = &options.sanitize {
        let link = sanitize.link_flags().join(" ");
        // MLX's C++ suite is an executable; a shared libmlx links the runtime too.
        defs.push(("CMAKE_EXE_LINKER_FLAGS", link.clone()));
        defs.push(("CMAKE_SHARED_LINKER_FLAGS", link));
        // -O0 instead of Release's -O3: with UBSan's checks, optimizing MLX's templated kernels
        // is the slowest step of a cold `./quickstart test` (backend/cpu/indexing.cpp, 2-core
        // VM, 2026-12-02: 208 s at -O1, 78 s at -Og, 26 s at -O0). The sanitizers' advice of
        // -O1 is for the speed of the program; unoptimized code keeps every access they check.
        for (name, value) in
            [("CMAKE_C_FLAGS_RELEASE", "-O0 -DNDEBUG"), ("CMAKE_CXX_FLAGS_RELEASE", "-O0 -DNDEBUG")]
        {
            defs.push((name, value.into()));
        }
    }
    defs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(defs: &[(String, String)], name: &str) -> Option<String> {
        defs.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
    }

    #[test]
    fn cpu_static_is_offline_and_has_no_cuda() {
        let defs = definitions(&BuildOptions {
            backend: Backend::Cpu,
            shared: false,
            cpp_suite: false,
            fetch_online: false,
            sanitize: None,
        });
        assert_eq!(value(&defs, "MLX_BUILD_CUDA").unwrap(), "OFF");
        assert_eq!(value(&defs, "BUILD_SHARED_LIBS").unwrap(), "OFF");
        assert_eq!(value(&defs, "FETCHCONTENT_FULLY_DISCONNECTED").unwrap(), "ON");
        assert_eq!(value(&defs, "MLX_CUDA_ARCHITECTURES"), None);
    }

    #[test]
    fn cuda_is_shared_with_the_asked_architecture() {
        let defs = definitions(&BuildOptions {
            backend: Backend::Cuda { architectures: Some("90a".into()) },
            shared: false,
            cpp_suite: true,
            fetch_online: false,
            sanitize: None,
        });
        assert_eq!(value(&defs, "MLX_BUILD_CUDA").unwrap(), "ON");
        assert_eq!(value(&defs, "BUILD_SHARED_LIBS").unwrap(), "ON");
        assert_eq!(value(&defs, "MLX_CUDA_ARCHITECTURES").unwrap(), "90a");
        assert_eq!(value(&defs, "USE_SYSTEM_FMT").unwrap(), "OFF");
        assert_eq!(value(&defs, "MLX_BUILD_TESTS").unwrap(), "ON");
    }

    #[test]
    fn a_sanitized_build_has_its_own_flags_and_cache_key() {
        let plain = BuildOptions {
            backend: Backend::Cpu,
            shared: false,
            cpp_suite: false,
            fetch_online: false,
            sanitize: None,
        };
        let sanitized = |list: &str| BuildOptions {
            sanitize: crate::sanitize::Sanitize::parse(list).unwrap(),
            ..plain.clone()
        };
        // A normal build names no sanitizer flags: a static one only what makes its objects
        // the shared build's, a shared one none.
        assert_eq!(value(&definitions(&plain), "CMAKE_CXX_FLAGS").unwrap(), "-UMLX_STATIC");
        assert_eq!(value(&definitions(&plain), "CMAKE_POSITION_INDEPENDENT_CODE").unwrap(), "ON");
        let shared = BuildOptions { shared: true, ..plain.clone() };
        assert_eq!(value(&definitions(&shared), "CMAKE_CXX_FLAGS"), None);
        assert_eq!(value(&definitions(&shared), "CMAKE_POSITION_INDEPENDENT_CODE"), None);
        let asan = definitions(&sanitized("address,undefined"));
        assert!(value(&asan, "CMAKE_CXX_FLAGS").unwrap().contains("-fsanitize=address,undefined"));
        assert!(value(&asan, "CMAKE_EXE_LINKER_FLAGS").unwrap().contains("-fsanitize="));
        assert_eq!(value(&asan, "CMAKE_CXX_FLAGS_RELEASE").unwrap(), "-O0 -DNDEBUG");
        assert_eq!(value(&definitions(&plain), "CMAKE_CXX_FLAGS_RELEASE"), None);
        // The key as mlx-sys's build script makes it, from the definitions.
        let key = |options: &BuildOptions| {
            let flags: Vec<String> =
                definitions(options).iter().map(|(k, v)| format!("{k}={v}")).collect();
            crate::cache::BuildSpec::new(&[("flags", flags.join(" "))]).key
        };
        let keys = [key(&plain), key(&sanitized("address,undefined")), key(&sanitized("thread"))];
        assert_ne!(keys[0], keys[1]);
        assert_ne!(keys[0], keys[2]);
        assert_ne!(keys[1], keys[2]);
    }
}
