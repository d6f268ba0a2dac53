//! This project's own C++ beside MLX. Modules named after a patch id exist only in builds with
//! that patch (their cargo feature), because they call what the patch adds to MLX.

#[cfg(feature = "fused-causal-softmax")]
pub mod fused_causal_softmax;
