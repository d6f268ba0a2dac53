//! `op-plots`: BENCHMARKS.md's plots from the single-op raw files (see README.md).

use clap::Parser;
use op_plots::{plan, Figure, Panel, DEFAULT_FOLDERS, PLOTS_DIR};
use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use std::path::{Path, PathBuf};

#[derive(Parser)]
#[command(about = "Plots stock/patched ratios of the single-op raw files, one figure per machine")]
struct Args {
    /// The repository root: the folders and --out are relative to it.
    #[arg(long, default_value = ".")]
    root: PathBuf,
    /// Folder for the PNG files.
    #[arg(long, default_value = PLOTS_DIR)]
    out: PathBuf,
    /// TrueType font for the text.
    #[arg(long, default_value = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")]
    font: PathBuf,
    /// Folders of raw files, each with its RUNS.json (default: those `mlx-ab book` reads).
    folders: Vec<String>,
}

/// Okabe and Ito's colour-blind-safe palette (yellow darkened to read on white).
const PALETTE: [RGBColor; 8] = [
    RGBColor(0x00, 0x72, 0xB2),
    RGBColor(0xD5, 0x5E, 0x00),
    RGBColor(0x00, 0x9E, 0x73),
    RGBColor(0xCC, 0x79, 0xA7),
    RGBColor(0xE6, 0x9F, 0x00),
    RGBColor(0x56, 0xB4, 0xE9),
    RGBColor(0x00, 0x00, 0x00),
    RGBColor(0x9A, 0x86, 0x00),
];
const REFERENCE: RGBColor = RGBColor(0x80, 0x80, 0x80);

const WIDTH: u32 = 1500;
const CHART_WIDTH: u32 = 880;
const PANEL_HEIGHT: u32 = 440;
const HEADER: u32 = 70;

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
    let folders: Vec<String> = if args.folders.is_empty() {
        DEFAULT_FOLDERS.iter().map(|s| s.to_string()).collect()
    } else {
        args.folders.clone()
    };
    let (figures, elsewhere) = plan(&args.root, &folders)?;
    let out = args.root.join(&args.out);
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    for fig in &figures {
        let path = out.join(&fig.file);
        draw(&path, fig)?;
        let lines: usize = fig.panels.iter().map(|p| p.lines.len()).sum();
        println!(
            "wrote {} ({} panels, {lines} lines, {} raw files)",
            path.display(),
            fig.panels.len(),
            fig.inputs.len()
        );
        for p in &fig.not_drawn {
            println!("  not drawn: {p}");
        }
    }
    for p in &elsewhere {
        println!("in no plot: {p}");
    }
    Ok(())
}

type Area<'a> = DrawingArea<BitMapBackend<'a>, Shift>;

fn draw(path: &Path, fig: &Figure) -> Result<(), String> {
    let fail = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let height = HEADER + fig.panels.iter().map(panel_height).sum::<u32>().max(PANEL_HEIGHT);
    let root = BitMapBackend::new(path, (WIDTH, height)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| fail(&e))?;
    let (header, body) = root.split_vertically(HEADER);
    let title = format!("{} on {}: stock time / patched time", fig.kind.title(), fig.machine);
    header
        .draw_text(&title, &("sans-serif", 26).into_font().color(&BLACK), (20, 10))
        .map_err(|e| fail(&e))?;
    let sub = "median of the pairs with its 95% interval (error bars); above the grey line \
               y = 1 the patched build is faster; a line joins the points of one series only";
    header
        .draw_text(sub, &("sans-serif", 16).into_font().color(&BLACK), (20, 44))
        .map_err(|e| fail(&e))?;
    let mut rest = body;
    for panel in &fig.panels {
        let (area, below) = rest.split_vertically(panel_height(panel));
        draw_panel(&root, &area, fig, panel).map_err(|e| fail(&e))?;
        rest = below;
    }
    root.present().map_err(|e| fail(&e))
}

/// A panel's height: tall enough for its legend beside it (`legend`: 40 px, then 44 per line
/// and one more for y = 1).
fn panel_height(panel: &Panel) -> u32 {
    PANEL_HEIGHT.max(40 + 44 * (panel.lines.len() as u32 + 1))
}

/// Powers of two as `256`, `1k`, `32k`.
fn pow2_label(v: f64) -> String {
    if (v - v.round()).abs() > 1e-6 || v < 0.0 {
        return String::new();
    }
    let n = 2f64.powi(v.round() as i32) as u64;
    if n >= 1024 && n.is_multiple_of(1024) {
        format!("{}k", n / 1024)
    } else {
        n.to_string()
    }
}

fn draw_panel(root: &Area, area: &Area, fig: &Figure, panel: &Panel) -> Result<(), String> {
    let err = |e: &dyn std::fmt::Display| e.to_string();
    let (chart_area, legend_area) = area.split_horizontally(CHART_WIDTH);
    let points = || panel.lines.iter().flat_map(|l| &l.points);
    let x_lo = points().map(|p| p.0.log2()).fold(f64::INFINITY, f64::min) - 0.5;
    let x_hi = points().map(|p| p.0.log2()).fold(f64::NEG_INFINITY, f64::max) + 0.5;
    let y_lo = points().map(|p| p.2[0]).fold(1.0, f64::min);
    let y_hi = points().map(|p| p.2[1]).fold(1.0, f64::max);
    let pad = (y_hi - y_lo).max(0.05) * 0.08;
    let (y_lo, y_hi) = ((y_lo - pad).max(0.0), y_hi + pad);
    let mut chart = ChartBuilder::on(&chart_area)
        .caption(&panel.title, ("sans-serif", 20))
        .margin_left(10)
        .margin_right(20)
        .margin_top(6)
        .margin_bottom(6)
        .x_label_area_size(48)
        .y_label_area_size(70)
        .build_cartesian_2d(x_lo..x_hi, y_lo..y_hi)
        .map_err(|e| err(&e))?;
    let steps = (x_hi - x_lo).round() as usize;
    chart
        .configure_mesh()
        .x_desc(fig.kind.x_label())
        .y_desc("stock / patched time")
        .x_labels(steps + 1)
        .x_label_formatter(&|x| pow2_label(*x))
        .y_label_formatter(&|y| format!("{y:.2}"))
        .label_style(("sans-serif", 15))
        .axis_desc_style(("sans-serif", 16))
        .max_light_lines(1)
        .light_line_style(RGBColor(0xEE, 0xEE, 0xEE))
        .draw()
        .map_err(|e| err(&e))?;
    chart
        .draw_series(LineSeries::new([(x_lo, 1.0), (x_hi, 1.0)], REFERENCE.stroke_width(2)))
        .map_err(|e| err(&e))?;
    let n = panel.lines.len();
    let step = (0.5 / n as f64).min(0.08);
    for (i, line) in panel.lines.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        // Lines sharing an x are spread a little sideways so their error bars stay apart.
        let dodge = (i as f64 - (n as f64 - 1.0) / 2.0) * step;
        let pts: Vec<(f64, f64, [f64; 2])> =
            line.points.iter().map(|p| (p.0.log2() + dodge, p.1, p.2)).collect();
        let style = color.stroke_width(2);
        if line.dashed {
            chart
                .draw_series(DashedLineSeries::new(pts.iter().map(|p| (p.0, p.1)), 9, 6, style))
                .map_err(|e| err(&e))?;
        } else {
            chart
                .draw_series(LineSeries::new(pts.iter().map(|p| (p.0, p.1)), style))
                .map_err(|e| err(&e))?;
        }
        for p in &pts {
            let lo = chart.backend_coord(&(p.0, p.2[0]));
            let hi = chart.backend_coord(&(p.0, p.2[1]));
            let bar = color.stroke_width(1);
            root.draw(&PathElement::new([lo, hi], bar)).map_err(|e| err(&e))?;
            for end in [lo, hi] {
                root.draw(&PathElement::new([(end.0 - 5, end.1), (end.0 + 5, end.1)], bar))
                    .map_err(|e| err(&e))?;
            }
            marker(root, i, chart.backend_coord(&(p.0, p.1)), color)?;
        }
    }
    legend(&legend_area, panel)
}

/// The legend beside a panel: each line's sample (colour, dash, marker) and label.
fn legend(area: &Area, panel: &Panel) -> Result<(), String> {
    let err = |e: &dyn std::fmt::Display| e.to_string();
    let font = ("sans-serif", 15).into_font().color(&BLACK);
    let small = ("sans-serif", 14).into_font().color(&RGBColor(0x40, 0x40, 0x40));
    let mut y = 40;
    for (i, line) in panel.lines.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let style = color.stroke_width(2);
        if line.dashed {
            area.draw(&DashedPathElement::new([(10, y), (50, y)], 8, 5, style))
                .map_err(|e| err(&e))?;
        } else {
            area.draw(&PathElement::new([(10, y), (50, y)], style)).map_err(|e| err(&e))?;
        }
        marker(area, i, (30, y), color)?;
        area.draw_text(&line.what, &font, (60, y - 8)).map_err(|e| err(&e))?;
        area.draw_text(&line.series, &small, (60, y + 10)).map_err(|e| err(&e))?;
        y += 44;
    }
    area.draw(&PathElement::new([(10, y), (50, y)], REFERENCE.stroke_width(2)))
        .map_err(|e| err(&e))?;
    area.draw_text("y = 1: no change", &font, (60, y - 8)).map_err(|e| err(&e))?;
    Ok(())
}

/// Line `i`'s marker at a pixel: filled circle, triangle, square, diamond, then hollow ones.
fn marker(area: &Area, i: usize, (x, y): (i32, i32), color: RGBColor) -> Result<(), String> {
    let err = |e: &dyn std::fmt::Display| e.to_string();
    let r = 6;
    let kind = i % 8;
    let style = if kind < 4 { color.filled() } else { color.stroke_width(2) };
    let shape: Vec<(i32, i32)> = match kind % 4 {
        1 => vec![(x, y - r), (x + r, y + r - 1), (x - r, y + r - 1)],
        2 => vec![
            (x - r + 1, y - r + 1),
            (x + r - 1, y - r + 1),
            (x + r - 1, y + r - 1),
            (x - r + 1, y + r - 1),
        ],
        3 => vec![(x, y - r - 1), (x + r + 1, y), (x, y + r + 1), (x - r - 1, y)],
        _ => Vec::new(),
    };
    if shape.is_empty() {
        if kind >= 4 {
            area.draw(&Circle::new((x, y), r - 1, WHITE.filled())).map_err(|e| err(&e))?;
        }
        return area.draw(&Circle::new((x, y), r - 1, style)).map_err(|e| err(&e));
    }
    if kind < 4 {
        area.draw(&Polygon::new(shape, style)).map_err(|e| err(&e))
    } else {
        let mut closed = shape.clone();
        closed.push(shape[0]);
        // A white fill keeps the hollow marker readable over its line.
        area.draw(&Polygon::new(shape, WHITE.filled())).map_err(|e| err(&e))?;
        area.draw(&PathElement::new(closed, style)).map_err(|e| err(&e))
    }
}
