//! `op-plots`: BENCHMARKS.md's plots from `mlx-ab ops`' JSON reports (see README.md).

use clap::Parser;
use plotters::prelude::*;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(Parser)]
#[command(about = "Plots stock/patched ratios from mlx-ab ops JSON reports")]
struct Args {
    /// Folder for the PNG files.
    #[arg(long)]
    out: PathBuf,
    /// TrueType font for the text.
    #[arg(long, default_value = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")]
    font: PathBuf,
    /// Reports, each as LABEL=PATH (the label names the machine in the legend).
    #[arg(required = true)]
    reports: Vec<String>,
}

/// One measured point of an `mlx-ab ops` report (the fields the plots use).
#[derive(Deserialize)]
struct Point {
    op: String,
    mode: Option<String>,
    proj: Option<String>,
    rows_per_expert: Option<u32>,
    dtype: Option<String>,
    heads: Option<u32>,
    q_len: Option<u32>,
    kv_len: Option<u32>,
    ratio: f64,
    ci: [f64; 2],
}

#[derive(Deserialize)]
struct Report {
    results: Vec<Point>,
}

/// Series name -> (x, ratio, interval) points, sorted by x.
type Series = BTreeMap<String, Vec<(f64, f64, [f64; 2])>>;

fn main() {
    if let Err(e) = run(Args::parse()) {
        eprintln!("op-plots: {e}");
        std::process::exit(2);
    }
}

fn run(args: Args) -> Result<(), String> {
    let font = std::fs::read(&args.font).map_err(|e| {
        format!("font {}: {e} (--font, or install fonts-dejavu-core)", args.font.display())
    })?;
    plotters::style::register_font(
        "sans-serif",
        FontStyle::Normal,
        Box::leak(font.into_boxed_slice()),
    )
    .map_err(|_| format!("{} is not a TrueType font", args.font.display()))?;
    let (mut gather, mut attention) = (Series::new(), Series::new());
    for spec in &args.reports {
        let (label, path) =
            spec.split_once('=').ok_or_else(|| format!("{spec:?} is not LABEL=PATH"))?;
        let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
        let report: Report = serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))?;
        for p in report.results {
            let (series, name, x) = match (p.op.as_str(), p.rows_per_expert, p.q_len, p.kv_len) {
                ("gather_qmm", Some(r), _, _) => {
                    let (mode, proj) = (p.mode.unwrap_or_default(), p.proj.unwrap_or_default());
                    (&mut gather, format!("{label} {mode} {proj}"), f64::from(r))
                }
                (op @ ("softmax" | "sdpa"), _, Some(q), Some(kv)) if q == kv => {
                    let (dtype, heads) = (p.dtype.unwrap_or_default(), p.heads.unwrap_or(0));
                    let stage = if op == "softmax" { "stage" } else { "SDPA" };
                    (&mut attention, format!("{label} {stage} {dtype} H={heads}"), f64::from(q))
                }
                _ => continue,
            };
            series.entry(name).or_default().push((x, p.ratio, p.ci));
        }
    }
    for points in gather.values_mut().chain(attention.values_mut()) {
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    std::fs::create_dir_all(&args.out).map_err(|e| format!("{}: {e}", args.out.display()))?;
    let gather_png = args.out.join("gather_qmm.png");
    draw(&gather_png, "sorted gather_qmm: stock / patched", "rows per expert", &gather)?;
    let attention_png = args.out.join("causal_attention.png");
    draw(&attention_png, "causal attention: stock / patched", "L (L_q = L_kv)", &attention)?;
    println!("wrote {} and {}", gather_png.display(), attention_png.display());
    Ok(())
}

/// One chart: x on a log2 axis, the ratio with its interval as error bars, a line per series.
fn draw(path: &Path, title: &str, x_label: &str, series: &Series) -> Result<(), String> {
    let fail = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    if series.is_empty() {
        return Err(fail(&"no points of this kind in the reports"));
    }
    let all = || series.values().flatten();
    let x_max = all().map(|p| p.0).fold(1.0, f64::max) * 2.0;
    let x_min = all().map(|p| p.0).fold(f64::INFINITY, f64::min) / 2.0;
    let y_max = all().map(|p| p.2[1].max(p.1)).fold(1.0, f64::max) * 1.1;
    let root = BitMapBackend::new(path, (1100, 700)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| fail(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 26))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d((x_min..x_max).log_scale().base(2.0), 0.0..y_max)
        .map_err(|e| fail(&e))?;
    chart
        .configure_mesh()
        .x_desc(x_label)
        .y_desc("stock time / patched time (95% CI)")
        .x_label_formatter(&|x| if *x < 1.0 { String::new() } else { format!("{x:.0}") })
        .draw()
        .map_err(|e| fail(&e))?;
    // Parity: above the line the patched build is faster.
    chart
        .draw_series(LineSeries::new([(x_min, 1.0), (x_max, 1.0)], BLACK.stroke_width(1)))
        .map_err(|e| fail(&e))?;
    for (i, (name, points)) in series.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        chart
            .draw_series(LineSeries::new(points.iter().map(|p| (p.0, p.1)), color.stroke_width(2)))
            .map_err(|e| fail(&e))?
            .label(name)
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], color.stroke_width(2)));
        chart
            .draw_series(
                points
                    .iter()
                    .map(|p| ErrorBar::new_vertical(p.0, p.2[0], p.1, p.2[1], color.filled(), 6)),
            )
            .map_err(|e| fail(&e))?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 15))
        .draw()
        .map_err(|e| fail(&e))?;
    root.present().map_err(|e| fail(&e))
}
