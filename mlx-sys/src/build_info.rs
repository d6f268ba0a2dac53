//! What this build of MLX is: the patches applied, the source digest, the cache entry.
include!(concat!(env!("OUT_DIR"), "/build_info.rs"));
