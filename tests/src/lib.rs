//! Shared helpers of the workspace's integration and differential tests.

pub mod graphs;
pub mod rng;
