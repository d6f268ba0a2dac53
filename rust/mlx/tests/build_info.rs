//! Build information: version of the linked MLX, patches applied (which must be exactly the
//! ones this build's features request), and the source digest.

#[test]
fn patches_applied_are_the_features_requested() {
    let info = mlx::build_info();
    assert_eq!(
        info.patches,
        mlx::requested_patches().as_slice(),
        "features ask for {:?}",
        mlx::requested_patches()
    );
    // Default features are the whole series, in order.
    #[cfg(feature = "default")]
    assert_eq!(info.patches, mlx_build::series::ids().as_slice());
}

#[test]
fn version_and_digest() {
    let info = mlx::build_info();
    let parts: Vec<&str> = info.mlx_version.split('.').collect();
    assert!(
        parts.len() >= 3 && parts[..3].iter().all(|p| p.parse::<u32>().is_ok()),
        "{}",
        info.mlx_version
    );
    if info.source == "pinned" {
        assert_eq!(info.mlx_version, "0.32.4");
    }
    assert_eq!(info.source_digest.len(), 64, "{}", info.source_digest);
    assert!(info.source_digest.chars().all(|c| c.is_ascii_hexdigit()));
}
