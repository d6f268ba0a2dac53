//! `OUT_DIR/ops_table.rs`: one macro line per op of mlx-sys's `cpp/ops.def` (found through
//! mlx-sys's `DEP_MLX_SHIM_INCLUDE`), expanded by the macros of `src/ops/table.rs`.

use mlx_build::op_table;
use std::fmt::Write;
use std::path::{Path, PathBuf};

pub fn write(out: &Path) -> mlx_build::Fallible<()> {
    let include = std::env::var("DEP_MLX_SHIM_INCLUDE")
        .map_err(|_| "mlx-sys did not export its shim include directory")?;
    let table = PathBuf::from(include).join("ops.def");
    println!("cargo:rerun-if-changed={}", table.display());
    let text =
        std::fs::read_to_string(&table).map_err(|e| format!("reading {}: {e}", table.display()))?;
    let mut code = String::new();
    for (family, invoke) in [
        ("UNARY", "unary_ops"),
        ("BINARY", "binary_ops"),
        ("REDUCE", "reductions"),
        ("ARG_REDUCE", "arg_reductions"),
        ("SORT", "sorts"),
        ("SORT_K", "sorts_k"),
    ] {
        writeln!(code, "{invoke}! {{").unwrap();
        for op in op_table::parse(&text)?.iter().filter(|o| o.family == family) {
            if op.doc != "\"\"" {
                writeln!(code, "    #[doc = {}]", op.doc).unwrap();
            }
            let name = &op.name;
            let names = match (family, &op.k) {
                ("REDUCE", _) => format!("{name}, {name}_axes"),
                ("ARG_REDUCE" | "SORT", _) => format!("{name}, {name}_axis"),
                (_, Some(k)) => format!("{name}({k})"),
                _ => name.clone(),
            };
            writeln!(code, "    {names} => {};", op.selector).unwrap();
        }
        writeln!(code, "}}").unwrap();
    }
    let path = out.join("ops_table.rs");
    std::fs::write(&path, code).map_err(|e| format!("writing {}: {e}", path.display()))
}
