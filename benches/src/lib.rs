//! Shared setup of the benchmarks.
