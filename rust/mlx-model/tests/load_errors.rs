//! Loading fails with a clear, specific error for each kind of broken checkpoint.

mod common;

use std::collections::BTreeMap;

use common::{synthetic, TempDir};
use mlx::Array;
use mlx_model::{Error, Model};

fn edit_config(
    dir: &std::path::Path,
    edit: impl FnOnce(&mut serde_json::Map<String, serde_json::Value>),
) {
    let path = dir.join("config.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    edit(v.as_object_mut().unwrap());
    std::fs::write(&path, serde_json::to_string(&v).unwrap()).unwrap();
}

/// Rewrites model.safetensors after `edit` changes its tensors.
fn edit_tensors(dir: &std::path::Path, edit: impl FnOnce(&mut BTreeMap<String, Array>)) {
    let path = dir.join("model.safetensors");
    let mut st = mlx::io::load_safetensors(&path).unwrap();
    // Materialize before overwriting the file the arrays are read from.
    let arrays: Vec<&Array> = st.tensors.values().collect();
    mlx::eval(&arrays).unwrap();
    edit(&mut st.tensors);
    // Not named model*, so a leftover would not be loaded; MLX insists on the extension.
    let tmp = dir.join("rewrite-tmp.safetensors");
    mlx::io::save_safetensors(
        &tmp,
        st.tensors.iter().map(|(k, v)| (k.as_str(), v)),
        [("format", "mlx")],
    )
    .unwrap();
    std::fs::rename(&tmp, &path).unwrap();
}

#[test]
fn a_synthetic_checkpoint_loads() {
    for preset in ["tiny", "tiny-bf16", "tiny-dense"] {
        let dir = synthetic(preset, 1);
        let model = Model::load(dir.path()).unwrap_or_else(|e| panic!("{preset}: {e}"));
        assert_eq!(model.config(), &mlx_model::preset_config(preset).unwrap());
    }
}

#[test]
fn missing_config_file() {
    let dir = synthetic("tiny", 1);
    std::fs::remove_file(dir.path().join("config.json")).unwrap();
    match Model::load(dir.path()) {
        Err(Error::MissingFile(p)) => assert!(p.ends_with("config.json"), "{p:?}"),
        other => panic!("expected MissingFile(config.json), got {:?}", other.err()),
    }
}

#[test]
fn missing_weights_file() {
    let dir = synthetic("tiny", 1);
    std::fs::remove_file(dir.path().join("model.safetensors")).unwrap();
    let err = Model::load(dir.path()).err().expect("loading must fail");
    assert!(matches!(err, Error::MissingFile(_)), "{err:?}");
    assert!(err.to_string().contains("safetensors"), "{err}");
}

#[test]
fn missing_directory() {
    let dir = TempDir::new().unwrap();
    let gone = dir.path().join("not-there");
    assert!(matches!(Model::load(&gone), Err(Error::MissingFile(_))));
}

#[test]
fn truncated_weights_file() {
    let dir = synthetic("tiny", 1);
    let path = dir.path().join("model.safetensors");
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..100]).unwrap();
    let err = Model::load(dir.path()).err().expect("loading must fail");
    assert!(matches!(err, Error::BadFile { .. }), "{err:?}");
}

#[test]
fn unknown_model_type() {
    let dir = synthetic("tiny", 1);
    edit_config(dir.path(), |c| {
        c.insert("model_type".into(), "llama_moe_9000".into());
    });
    match Model::load(dir.path()) {
        Err(Error::UnknownModelType(t)) => assert_eq!(t, "llama_moe_9000"),
        other => panic!("expected UnknownModelType, got {:?}", other.err()),
    }
}

#[test]
fn missing_config_field_and_bad_json() {
    let dir = synthetic("tiny", 1);
    edit_config(dir.path(), |c| {
        c.remove("num_experts_per_tok");
    });
    let err = Model::load(dir.path()).err().expect("loading must fail");
    assert!(
        matches!(err, Error::Config(_)) && err.to_string().contains("num_experts_per_tok"),
        "{err}"
    );

    std::fs::write(dir.path().join("config.json"), "{ not json").unwrap();
    assert!(matches!(Model::load(dir.path()), Err(Error::Config(_))));
}

#[test]
fn config_inconsistent_with_itself() {
    let dir = synthetic("tiny", 1);
    edit_config(dir.path(), |c| {
        c.insert("num_experts_per_tok".into(), 9.into());
    });
    let err = Model::load(dir.path()).err().expect("loading must fail");
    assert!(matches!(err, Error::Config(_)), "{err:?}");
}

#[test]
fn wrong_shape() {
    let dir = synthetic("tiny", 1);
    let name = "model.layers.1.self_attn.k_proj.scales";
    edit_tensors(dir.path(), |t| {
        let a = &t[name];
        let s = a.shape();
        let smaller = mlx::ops::slice(a, &[0, 0], &[s[0] - 1, s[1]], &[1, 1]).unwrap();
        t.insert(name.into(), smaller);
    });
    match Model::load(dir.path()) {
        Err(Error::Shape { name: n, expected, actual }) => {
            assert_eq!(n, name);
            assert_eq!(expected[0], actual[0] + 1);
        }
        other => panic!("expected a Shape error, got {:?}", other.err()),
    }
}

#[test]
fn config_that_disagrees_with_the_weights_is_a_shape_error() {
    let dir = synthetic("tiny", 1);
    edit_config(dir.path(), |c| {
        c.insert("hidden_size".into(), 192.into());
    });
    let err = Model::load(dir.path()).err().expect("loading must fail");
    assert!(matches!(err, Error::Shape { .. }), "{err:?}");
}

#[test]
fn missing_tensor() {
    let dir = synthetic("tiny", 1);
    let name = "model.layers.2.mlp.switch_mlp.down_proj.biases";
    edit_tensors(dir.path(), |t| {
        t.remove(name).unwrap();
    });
    match Model::load(dir.path()) {
        Err(Error::MissingTensor(n)) => assert_eq!(n, name),
        other => panic!("expected MissingTensor, got {:?}", other.err()),
    }
}

#[test]
fn unexpected_tensor() {
    let dir = synthetic("tiny", 1);
    edit_tensors(dir.path(), |t| {
        t.insert(
            "model.layers.0.extra.weight".into(),
            Array::from_slice(&[1.0f32, 2.0], &[2]).unwrap(),
        );
    });
    match Model::load(dir.path()) {
        Err(Error::UnexpectedTensor(n)) => assert_eq!(n, "model.layers.0.extra.weight"),
        other => panic!("expected UnexpectedTensor, got {:?}", other.err()),
    }
}

#[test]
fn weights_split_over_several_files_load() {
    let dir = synthetic("tiny", 3);
    let path = dir.path().join("model.safetensors");
    let st = mlx::io::load_safetensors(&path).unwrap();
    let (first, second): (Vec<_>, Vec<_>) =
        st.tensors.iter().enumerate().partition(|(i, _)| i % 2 == 0);
    let save = |name: &str, part: Vec<(usize, (&String, &Array))>| {
        mlx::io::save_safetensors(
            dir.path().join(name),
            part.into_iter().map(|(_, (k, v))| (k.as_str(), v)),
            [],
        )
        .unwrap();
    };
    save("model-00001-of-00002.safetensors", first);
    save("model-00002-of-00002.safetensors", second);
    drop(st);
    std::fs::remove_file(&path).unwrap();
    let model = Model::load(dir.path()).unwrap();
    assert_eq!(model.config().num_hidden_layers, 4);
}

#[test]
fn unknown_preset() {
    let dir = TempDir::new().unwrap();
    let err = mlx_model::write_synthetic(dir.path(), "huge", 0).expect_err("must fail");
    assert!(matches!(err, Error::UnknownPreset(_)));
    assert!(err.to_string().contains("tiny"), "the message lists the presets: {err}");
}
