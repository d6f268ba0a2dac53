//! `mlx-ab determinism --prebuilt DIR` hands its options to `DIR/bin/mlx-ab-worker determinism`
//! (the model path made absolute) and passes the worker's exit status on. The worker here is a
//! script that prints its arguments, so no MLX is needed.

use std::os::unix::fs::PermissionsExt;
use std::process::Command;

#[test]
fn determinism_is_forwarded_to_the_prebuilt_worker() {
    let scratch = tempfile::tempdir().unwrap();
    let arm = scratch.path().join("arm");
    std::fs::create_dir_all(arm.join("bin")).unwrap();
    std::fs::create_dir_all(arm.join("lib")).unwrap();
    std::fs::create_dir_all(scratch.path().join("model")).unwrap();
    let script = arm.join("bin/mlx-ab-worker");
    std::fs::write(&script, "#!/bin/sh\necho \"$@\"\nexit 1\n").unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();

    let output = Command::new(env!("CARGO_BIN_EXE_mlx-ab"))
        .current_dir(scratch.path())
        .env("MLX_AB_CACHE_DIR", scratch.path().join("cache"))
        .args(["determinism", "--prebuilt"])
        .arg(&arm)
        .args(["--model", "model", "--tokens", "5,6,7", "--repeats", "4"])
        .args(["--prefill-chunk", "2048", "--decode-steps", "2", "--device", "gpu"])
        .output()
        .unwrap();
    let model = scratch.path().canonicalize().unwrap().join("model");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout).trim(),
        format!(
            "determinism --model {} --tokens 5,6,7 --prefill-chunk 2048 --device gpu \
             --repeats 4 --decode-steps 2",
            model.display()
        ),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(output.status.code(), Some(1), "the worker's exit status is the driver's");
}
