//! The committed PNGs and BENCHMARKS.md's Plots section against what op-plots would draw from
//! the raw files (the plan only: no fonts, no drawing).

use op_plots::{plan, repo_root, DEFAULT_FOLDERS, PLOTS_DIR};
use std::fs;

fn folders() -> Vec<String> {
    DEFAULT_FOLDERS.iter().map(|s| s.to_string()).collect()
}

/// The paragraph of BENCHMARKS.md that starts with the plot's link.
fn book_line<'a>(book: &'a str, file: &str) -> Option<&'a str> {
    let start = format!("[`{file}`]({PLOTS_DIR}/{file}):");
    book.lines().find(|l| l.starts_with(&start))
}

#[test]
fn every_planned_plot_is_committed_and_in_the_book() {
    let root = repo_root();
    let (figures, _) = plan(&root, &folders()).unwrap();
    assert!(!figures.is_empty());
    let book = fs::read_to_string(root.join("BENCHMARKS.md")).unwrap();
    for fig in &figures {
        let png = root.join(PLOTS_DIR).join(&fig.file);
        let bytes = fs::read(&png).unwrap_or_else(|e| {
            panic!("{}: {e}; run `cargo run --release -p op-plots`", png.display())
        });
        assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "{} is not a PNG", png.display());
        let line = book_line(&book, &fig.file).unwrap_or_else(|| {
            panic!("BENCHMARKS.md names no {}; run `cargo run -p mlx-ab -- book`", fig.file)
        });
        for input in &fig.inputs {
            assert!(line.contains(&format!("]({})", input.path)), "{} not in: {line}", input.path);
        }
        assert_eq!(line.matches("](reports/").count(), fig.inputs.len() + 1, "{line}");
        let points: usize = fig.panels.iter().flat_map(|p| &p.lines).map(|l| l.points.len()).sum();
        assert!(line.contains(&format!(" {points} of ")), "{points} points drawn, book: {line}");
        for panel in &fig.panels {
            assert!(line.contains(&panel.title), "panel {:?} not in: {line}", panel.title);
        }
    }
}

#[test]
fn no_stale_png_and_no_plot_the_book_names_is_missing() {
    let root = repo_root();
    let (figures, _) = plan(&root, &folders()).unwrap();
    let planned: Vec<&str> = figures.iter().map(|f| f.file.as_str()).collect();
    for entry in fs::read_dir(root.join(PLOTS_DIR)).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().to_string();
        if name.ends_with(".png") {
            assert!(
                planned.contains(&name.as_str()),
                "{PLOTS_DIR}/{name}: op-plots draws no such plot"
            );
        }
    }
    let book = fs::read_to_string(root.join("BENCHMARKS.md")).unwrap();
    for (i, _) in book.match_indices(&format!("]({PLOTS_DIR}/")) {
        let rest = &book[i + 2..];
        let path = &rest[..rest.find(')').unwrap()];
        assert!(root.join(path).is_file(), "BENCHMARKS.md names {path}, which is not committed");
    }
}

/// Non-square attention points are drawn, on lines of their own (dashed, L_q in the legend),
/// and points of different commits are never on one line.
#[test]
fn non_square_points_are_kept_and_series_never_share_a_line() {
    let (figures, _) = plan(&repo_root(), &folders()).unwrap();
    let mut non_square = 0;
    for fig in &figures {
        assert!(fig.not_drawn.is_empty(), "{}: {:?}", fig.file, fig.not_drawn);
        for panel in &fig.panels {
            let mut seen = Vec::new();
            for line in &panel.lines {
                let key = (&line.what, &line.series);
                assert!(!seen.contains(&key), "two lines {key:?} in {}", fig.file);
                seen.push(key);
                assert!(line.series.starts_with("commit "), "{}", line.series);
                if line.what.contains("L_q=") && !line.what.contains("L_q=L_kv") {
                    assert!(line.dashed);
                    non_square += line.points.len();
                }
            }
        }
    }
    assert!(non_square > 0, "no non-square attention point drawn");
}
