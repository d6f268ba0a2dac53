//! Reads `mlx-sys/cpp/ops.def`, the one list of the bridge's table-driven ops, for the safe
//! crate's build script (the C++ side expands the same file as X-macros).

use crate::Fallible;

/// One line of the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Op {
    /// `UNARY`, `BINARY`, `REDUCE`, `ARG_REDUCE`, `SORT` or `SORT_K`.
    pub family: String,
    /// The `mlx::core` function, and the safe wrapper's name.
    pub name: String,
    /// SORT_K's name for its `k` argument.
    pub k: Option<String>,
    /// The wrapper's doc as a string literal, quotes included ("" for none).
    pub doc: String,
    /// The bridge's selector: the position among the lines that share the C++ enum.
    pub selector: u8,
}

/// The families and the C++ enum each one's selector counts in.
const FAMILIES: [(&str, &str); 6] = [
    ("UNARY", "UnaryOp"),
    ("BINARY", "BinaryOp"),
    ("REDUCE", "ReduceOp"),
    ("ARG_REDUCE", "ArgReduceOp"),
    ("SORT", "SortOp"),
    ("SORT_K", "SortOp"),
];

/// Every `MLX_SYS_<FAMILY>(...)` line, in file order; other lines (comments, the preprocessor
/// guards) are skipped. A malformed line or a name listed twice is an error.
pub fn parse(text: &str) -> Fallible<Vec<Op>> {
    let mut ops = Vec::new();
    let mut counts = std::collections::HashMap::<&str, u8>::new();
    for (number, line) in text.lines().enumerate() {
        let Some(entry) = line.trim().strip_prefix("MLX_SYS_") else { continue };
        let bad = |what: &str| format!("ops.def line {}: {what}: {line}", number + 1);
        let (family, args) = entry.split_once('(').ok_or_else(|| bad("no arguments"))?;
        let args = args.strip_suffix(')').ok_or_else(|| bad("no closing parenthesis"))?;
        let (_, selector_enum) =
            FAMILIES.iter().find(|(f, _)| *f == family).ok_or_else(|| bad("unknown family"))?;
        let fields = if family == "SORT_K" { 3 } else { 2 };
        let parts: Vec<&str> = args.splitn(fields, ',').map(str::trim).collect();
        if parts.len() != fields {
            return Err(bad("wrong number of arguments"));
        }
        let doc = parts[fields - 1];
        if !(doc.len() >= 2 && doc.starts_with('"') && doc.ends_with('"'))
            || doc[1..doc.len() - 1].contains(['"', '\\'])
        {
            return Err(bad("the doc must be one plain string literal"));
        }
        let identifier = |s: &str| {
            s.chars().next().is_some_and(|c| c.is_ascii_lowercase())
                && s.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        };
        if !identifier(parts[0]) || (fields == 3 && !identifier(parts[1])) {
            return Err(bad("names must be snake_case identifiers"));
        }
        if ops.iter().any(|o: &Op| o.name == parts[0]) {
            return Err(bad("listed twice"));
        }
        let count = counts.entry(selector_enum).or_default();
        ops.push(Op {
            family: family.to_string(),
            name: parts[0].to_string(),
            k: (fields == 3).then(|| parts[1].to_string()),
            doc: doc.to_string(),
            selector: *count,
        });
        *count = count.checked_add(1).ok_or_else(|| bad("more than 256 ops in one enum"))?;
    }
    Ok(ops)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLE: &str = r#"
// a comment
#ifndef MLX_SYS_UNARY
#define MLX_SYS_UNARY(f, doc)
#endif
MLX_SYS_UNARY(abs, "|a|.")
MLX_SYS_BINARY(add, "a + b, broadcast.")
MLX_SYS_UNARY(log1p, "")
MLX_SYS_SORT(sort, "Sorted.")
MLX_SYS_SORT_K(topk, k, "The `k` largest.")
#undef MLX_SYS_UNARY
"#;

    #[test]
    fn selectors_count_per_enum_in_file_order() {
        let ops = parse(TABLE).unwrap();
        let got: Vec<(&str, &str, u8)> =
            ops.iter().map(|o| (o.family.as_str(), o.name.as_str(), o.selector)).collect();
        assert_eq!(
            got,
            [
                ("UNARY", "abs", 0),
                ("BINARY", "add", 0),
                ("UNARY", "log1p", 1),
                ("SORT", "sort", 0),
                ("SORT_K", "topk", 1)
            ]
        );
        assert_eq!(ops[1].doc, "\"a + b, broadcast.\"", "commas stay in the doc");
        assert_eq!(ops[4].k.as_deref(), Some("k"));
        assert_eq!(ops[0].k, None);
    }

    #[test]
    fn rejects_malformed_lines() {
        for line in [
            "MLX_SYS_TERNARY(where, \"\")",
            "MLX_SYS_UNARY(abs)",
            "MLX_SYS_UNARY(abs, |a|)",
            "MLX_SYS_UNARY(Abs, \"\")",
            "MLX_SYS_UNARY(abs, \"a\\n\")",
            "MLX_SYS_SORT_K(topk, \"\")",
            "MLX_SYS_UNARY(abs, \"\"",
            "MLX_SYS_UNARY(abs, \"\")\nMLX_SYS_BINARY(abs, \"\")",
        ] {
            assert!(parse(line).is_err(), "{line}");
        }
    }
}
