//! How the report names a worker's GPU, from what MLX says about it (`Info::gpu`).

use std::collections::BTreeMap;

/// `NVIDIA H200 (sm_90, compute capability 9.0, 140.4 GiB)` from MLX's device info (CUDA keys;
/// Metal's `memory_size` is used when there is no `total_memory`).
pub fn describe_gpu(info: &BTreeMap<String, String>) -> String {
    let name = info.get("device_name").map_or("GPU", String::as_str);
    let mut details = Vec::new();
    if let Some(arch) = info.get("architecture") {
        details.push(arch.clone());
    }
    if let (Some(major), Some(minor)) =
        (info.get("compute_capability_major"), info.get("compute_capability_minor"))
    {
        details.push(format!("compute capability {major}.{minor}"));
    }
    let memory = info.get("total_memory").or_else(|| info.get("memory_size"));
    if let Some(bytes) = memory.and_then(|m| m.parse::<u64>().ok()) {
        details.push(format!("{:.1} GiB", bytes as f64 / (1u64 << 30) as f64));
    }
    if details.is_empty() {
        name.to_string()
    } else {
        format!("{name} ({})", details.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gpu_descriptions() {
        let cuda: BTreeMap<String, String> = [
            ("device_name", "NVIDIA H200"),
            ("architecture", "sm_90"),
            ("compute_capability_major", "9"),
            ("compute_capability_minor", "0"),
            ("total_memory", "150754820096"),
            ("free_memory", "1"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        assert_eq!(describe_gpu(&cuda), "NVIDIA H200 (sm_90, compute capability 9.0, 140.4 GiB)");
        let metal: BTreeMap<String, String> = [
            ("device_name".to_string(), "Apple M3".to_string()),
            ("memory_size".into(), "17179869184".into()),
        ]
        .into();
        assert_eq!(describe_gpu(&metal), "Apple M3 (16.0 GiB)");
        assert_eq!(describe_gpu(&BTreeMap::new()), "GPU");
    }
}
