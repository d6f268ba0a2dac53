//! Sanitized builds (`MLX_SANITIZE`): which sanitizers instrument MLX and the C++ compiled
//! beside it (mlx-sys's shim, mlx-ext), and the compiler flags that say so. The flags are part
//! of the cmake definitions, so a sanitized build has its own cache key; unsanitized builds'
//! definitions, and so their keys, are unchanged.

use crate::Fallible;

/// The variable that asks for a sanitized build.
pub const ENV: &str = "MLX_SANITIZE";

/// A set of sanitizers that can be linked into one program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sanitize {
    pub address: bool,
    pub undefined: bool,
    pub thread: bool,
}

impl Sanitize {
    /// `address`, `undefined`, `thread`, comma-separated (`address,undefined`); empty or unset
    /// is none. ThreadSanitizer cannot share a program with AddressSanitizer.
    pub fn parse(text: &str) -> Fallible<Option<Self>> {
        let mut set = Sanitize { address: false, undefined: false, thread: false };
        for name in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            match name {
                "address" => set.address = true,
                "undefined" => set.undefined = true,
                "thread" => set.thread = true,
                other => {
                    return Err(format!(
                        "{ENV}: unknown sanitizer `{other}`; known: address, undefined, thread"
                    ))
                }
            }
        }
        if set.address && set.thread {
            return Err(format!("{ENV}: address and thread cannot be combined in one build"));
        }
        Ok((set.address || set.undefined || set.thread).then_some(set))
    }

    /// `MLX_SANITIZE` of this process.
    pub fn from_env() -> Fallible<Option<Self>> {
        Self::parse(&std::env::var(ENV).unwrap_or_default())
    }

    /// The canonical list, as `-fsanitize=` takes it: `address,undefined`.
    pub fn list(&self) -> String {
        let names =
            [(self.address, "address"), (self.undefined, "undefined"), (self.thread, "thread")];
        names.iter().filter(|(on, _)| *on).map(|(_, n)| *n).collect::<Vec<_>>().join(",")
    }

    /// Flags for every C and C++ compilation. UBSan stays recoverable so that a justified
    /// runtime suppression can work (gcc has no compile-time ignore list, and a non-recoverable
    /// check aborts before suppressions are read); `halt_on_error=1`, compiled into the
    /// programs (mlx-sys `cpp/sanitizer_defaults.cc`) and set by `scripts/sanitize`, makes any
    /// unsuppressed finding fatal. Frame pointers and line tables give readable reports.
    pub fn compile_flags(&self) -> Vec<String> {
        vec![format!("-fsanitize={}", self.list()), "-fno-omit-frame-pointer".into(), "-g1".into()]
    }

    /// The runtime libraries a program holding instrumented code links, ASan's first (it must
    /// precede every other library that defines what it intercepts).
    pub fn runtime_libs(&self) -> Vec<&'static str> {
        let libs = [(self.address, "asan"), (self.undefined, "ubsan"), (self.thread, "tsan")];
        libs.iter().filter(|(on, _)| *on).map(|(_, l)| *l).collect()
    }

    /// Flags for linking, by the compiler driver, a program or shared library that holds
    /// instrumented code (MLX's C++ suite, a shared libmlx).
    pub fn link_flags(&self) -> Vec<String> {
        vec![format!("-fsanitize={}", self.list())]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_lists_in_any_order_and_rejects_bad_ones() {
        let asan_ubsan = Sanitize::parse("undefined, address").unwrap().unwrap();
        assert_eq!(asan_ubsan.list(), "address,undefined");
        assert_eq!(Sanitize::parse("thread").unwrap().unwrap().list(), "thread");
        assert_eq!(Sanitize::parse("").unwrap(), None);
        assert!(Sanitize::parse("memory").unwrap_err().contains("memory"));
        assert!(Sanitize::parse("address,thread").is_err());
        assert_eq!(asan_ubsan.runtime_libs(), ["asan", "ubsan"]);
        assert!(asan_ubsan.compile_flags().contains(&"-fsanitize=address,undefined".to_string()));
    }
}
