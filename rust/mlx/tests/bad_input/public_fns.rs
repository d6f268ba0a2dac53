//! The crate's public fallible functions, read from its source so that a new one cannot be
//! missed: every `pub fn` of `src/**/*.rs` whose return type is a `Result`, by public path
//! (`ops::take`, `Array::reshape`, `eval`), plus the wrappers the build generated from
//! mlx-sys's `ops.def` (its output, `OUT_DIR/ops_table.rs`, is what was compiled).

use std::collections::BTreeSet;
use std::path::Path;

pub fn public_fallible_fns() -> BTreeSet<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let lib = std::fs::read_to_string(src.join("lib.rs")).expect("reading src/lib.rs");
    let public_mods: BTreeSet<&str> =
        lib.lines().filter_map(|l| l.trim().strip_prefix("pub mod ")?.strip_suffix(';')).collect();
    let mut found = BTreeSet::new();
    for file in rs_files(&src) {
        let rel = file.strip_prefix(&src).unwrap();
        let top = rel.components().next().unwrap().as_os_str().to_str().unwrap();
        let module = top.strip_suffix(".rs").unwrap_or(top);
        // Items of private modules are re-exported at the crate root (lib.rs `pub use`).
        let prefix = public_mods.contains(module).then_some(module);
        let text = std::fs::read_to_string(&file).unwrap();
        for name in scan(&text, prefix) {
            assert!(found.insert(name.clone()), "{name} found twice (in {})", rel.display());
        }
    }
    found.extend(generated_ops());
    found
}

fn rs_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(rs_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files
}

/// `ops::NAME` for each name of the generated macro lines (`sum, sum_axes => 0;`,
/// `topk(k) => 4;`).
fn generated_ops() -> Vec<String> {
    let text = std::fs::read_to_string(concat!(env!("OUT_DIR"), "/ops_table.rs"))
        .expect("reading the generated ops_table.rs");
    let mut names = Vec::new();
    for line in text.lines() {
        let Some((list, _selector)) = line.trim().split_once(" => ") else { continue };
        for name in list.split(',') {
            let name = name.split('(').next().unwrap().trim();
            names.push(format!("ops::{name}"));
        }
    }
    assert!(names.len() > 50, "too few generated ops read: {names:?}");
    names
}

/// Public fallible fns of one file: free ones as `prefix::name` (or `name`), methods of an
/// inherent or trait impl as `Type::name`. Template fns of `macro_rules!` (`pub fn $name`)
/// are skipped: the generated ones are read from OUT_DIR. A `pub fn` anywhere else (a nested
/// module, a fn body) is a panic, so that the parser is taught rather than silently blind.
pub fn scan(text: &str, prefix: Option<&str>) -> Vec<String> {
    let code = blank_comments_and_literals(text);
    let bytes = code.as_bytes();
    let (mut depth, mut i) = (0usize, 0usize);
    let mut impl_type: Option<(String, usize)> = None; // (type, depth inside its braces)
    let mut out = Vec::new();
    while i < bytes.len() {
        match bytes[i] {
            b'{' => depth += 1,
            b'}' => {
                if impl_type.as_ref().is_some_and(|(_, d)| *d == depth) {
                    impl_type = None;
                }
                depth -= 1;
            }
            _ if depth == 0 && word_at(&code, i, "impl") && line_start(&code, i) => {
                let header = &code[i..i + code[i..].find('{').expect("impl without a body")];
                impl_type = Some((self_type(header), 1));
            }
            _ if word_at(&code, i, "pub fn") => {
                let rest = &code[i + "pub fn".len()..];
                let name: String = rest
                    .trim_start()
                    .chars()
                    .take_while(|c| *c == '_' || *c == '$' || c.is_alphanumeric())
                    .collect();
                let signature = &rest[..rest.find(['{', ';']).expect("fn without a body")];
                let returns = after_params(signature);
                if !name.starts_with('$') && returns.contains("Result<") {
                    let path = match (&impl_type, depth) {
                        (None, 0) => prefix.map_or(name.clone(), |p| format!("{p}::{name}")),
                        (Some((ty, d)), _) if *d == depth => format!("{ty}::{name}"),
                        _ => panic!("pub fn {name} at brace depth {depth}: not understood"),
                    };
                    out.push(path);
                }
            }
            _ => {}
        }
        i += 1;
    }
    out
}

fn word_at(code: &str, i: usize, word: &str) -> bool {
    let before = code[..i].chars().next_back();
    let after = code[i..].strip_prefix(word).and_then(|r| r.chars().next());
    before.is_none_or(|c| !(c.is_alphanumeric() || c == '_'))
        && after.is_some_and(|c| c.is_whitespace() || c == '<')
}

/// Only blanks before `i` on its line: an item, not `impl Trait` in a parameter's type.
fn line_start(code: &str, i: usize) -> bool {
    code[..i].rsplit('\n').next().unwrap().trim().is_empty()
}

/// `impl<T> Trait for Type<T>` -> `Type`; `impl Type` -> `Type`.
fn self_type(header: &str) -> String {
    let mut rest = header["impl".len()..].trim_start();
    if rest.starts_with('<') {
        let mut open = 0;
        let end = rest
            .char_indices()
            .find(|&(_, c)| {
                open += match c {
                    '<' => 1,
                    '>' => -1,
                    _ => 0,
                };
                open == 0
            })
            .unwrap()
            .0;
        rest = &rest[end + 1..];
    }
    let ty = rest.rsplit(" for ").next().unwrap().trim().trim_start_matches('&');
    let ty = ty.rsplit("::").next().unwrap();
    ty.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect()
}

/// What follows the parameter list: the return type (and any `where` clause).
fn after_params(signature: &str) -> &str {
    let open = signature.find('(').expect("fn without parameters");
    let mut depth = 0;
    for (j, c) in signature[open..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
        if depth == 0 {
            return &signature[open + j + 1..];
        }
    }
    panic!("unbalanced parameter list: {signature}")
}

/// The text with comments and string/char literals replaced by spaces (newlines kept), so
/// that braces and `pub fn` inside them are not read as code.
fn blank_comments_and_literals(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let blank = |out: &mut String, cs: &[char]| {
        out.extend(cs.iter().map(|&c| if c == '\n' { '\n' } else { ' ' }));
    };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        let end = if c == '/' && next == Some('/') {
            (i..chars.len()).find(|&j| chars[j] == '\n').unwrap_or(chars.len())
        } else if c == '/' && next == Some('*') {
            (i + 2..chars.len()).find(|&j| chars[j - 1] == '*' && chars[j] == '/').unwrap() + 1
        } else if c == 'r'
            && matches!(next, Some('"' | '#'))
            && !ident_char(chars.get(i.wrapping_sub(1)))
        {
            let hashes = chars[i + 1..].iter().take_while(|&&h| h == '#').count();
            let close: String = std::iter::once('"').chain("#".repeat(hashes).chars()).collect();
            let start = i + 2 + hashes;
            let tail: String = chars[start..].iter().collect();
            start + tail.find(&close).map(|b| tail[..b].chars().count()).unwrap() + close.len()
        } else if c == '"' {
            let mut j = i + 1;
            while chars[j] != '"' {
                j += if chars[j] == '\\' { 2 } else { 1 };
            }
            j + 1
        } else if c == '\'' && next == Some('\\') {
            (i + 2..chars.len()).find(|&j| chars[j] == '\'').unwrap() + 1
        } else if c == '\'' && chars.get(i + 2) == Some(&'\'') {
            i + 3
        } else {
            out.push(c);
            i += 1;
            continue;
        };
        blank(&mut out, &chars[i..end]);
        i = end;
    }
    out
}

fn ident_char(c: Option<&char>) -> bool {
    c.is_some_and(|c| c.is_alphanumeric() || *c == '_')
}

#[test]
fn the_parser_reads_paths_signatures_and_skips_literals() {
    let text = r##"
/// pub fn in_a_doc() -> Result<()> {
pub fn free(a: &str) -> Result<()> { let s = "} pub fn in_a_string() -> Result<()> {"; let c = '{'; }
pub fn infallible() -> usize { 0 }
pub fn multi_line<'a>(
    f: impl FnOnce() -> u8,
) -> crate::Result<Vec<&'a str>> {
    let _ = r#"{"#;
}
impl<T> std::fmt::Display for Wrapper<T> {
    pub fn method(&self) -> Result<T> {}
    fn private(&self) -> Result<T> {}
}
pub(crate) fn internal() -> Result<()> {}
macro_rules! m { () => { pub fn $name() -> Result<()> {} } }
"##;
    assert_eq!(scan(text, Some("ops")), ["ops::free", "ops::multi_line", "Wrapper::method"]);
    assert_eq!(scan("pub fn root() -> Result<()> {}", None), ["root"]);
}
