//! The training plot (spec `models.md` 1.3): a 1200x400 PNG with the ROC curve of the test part,
//! its confusion matrix, and the sorted classifier coefficients. Uses only the embedded font.

use super::error::{Error, Result};
use super::train::Report;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{register_font, FontStyle};
use std::sync::OnceLock;

const WIDTH: u32 = 1200;
const HEIGHT: u32 = 400;
pub const FONT: &str = "sans-serif";
const DARK_ORANGE: RGBColor = RGBColor(255, 140, 0);
const NAVY: RGBColor = RGBColor(0, 0, 128);

fn plot_error(e: impl std::fmt::Display) -> Error {
    Error::Plot(e.to_string())
}

/// Registers the embedded font with plotters as [`FONT`] (once); whether it loaded. The
/// neural taggers' plots use it too.
pub fn font_registered() -> bool {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    *REGISTERED.get_or_init(|| register_font(FONT, FontStyle::Normal, include_bytes!("resources/DejaVuSans.ttf")).is_ok())
}

fn register() -> Result<()> {
    font_registered()
        .then_some(())
        .ok_or_else(|| Error::Plot("the embedded font could not be loaded".into()))
}

/// Renders the plot of a training report and the model's coefficients as PNG bytes.
pub fn plot_png(report: &Report, coefficients: &[f64]) -> Result<Vec<u8>> {
    register()?;
    let mut pixels = vec![255u8; (WIDTH * HEIGHT * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut pixels, (WIDTH, HEIGHT)).into_drawing_area();
        let panels = root.split_evenly((1, 3));
        roc_panel(&panels[0], report)?;
        confusion_panel(&panels[1], &report.confusion)?;
        coefficient_panel(&panels[2], coefficients)?;
        root.present().map_err(plot_error)?;
    }
    let mut png_bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut png_bytes, WIDTH, HEIGHT);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(plot_error)?;
    writer.write_image_data(&pixels).map_err(plot_error)?;
    writer.finish().map_err(plot_error)?;
    Ok(png_bytes)
}

type Panel<'a> = DrawingArea<BitMapBackend<'a>, plotters::coord::Shift>;

fn roc_panel(area: &Panel, report: &Report) -> Result<()> {
    let mut chart = ChartBuilder::on(area)
        .caption("Receiver operating characteristic", (FONT, 17))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(48)
        .build_cartesian_2d(0f64..1f64, 0f64..1.05f64)
        .map_err(plot_error)?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc("False Positive Rate")
        .y_desc("True Positive Rate")
        .label_style((FONT, 12))
        .draw()
        .map_err(plot_error)?;
    chart
        .draw_series(LineSeries::new(report.roc.iter().copied(), DARK_ORANGE.stroke_width(2)))
        .map_err(plot_error)?
        .label(format!("ROC curve (area = {:.2})", report.auc))
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], DARK_ORANGE.stroke_width(2)));
    let dashes = (0..25).map(|i| {
        let (a, b) = (i as f64 / 25.0, (i as f64 + 0.5) / 25.0);
        PathElement::new(vec![(a, a), (b, b)], NAVY.stroke_width(2))
    });
    chart.draw_series(dashes).map_err(plot_error)?;
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .label_font((FONT, 12))
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .draw()
        .map_err(plot_error)
}

fn confusion_panel(area: &Panel, confusion: &[[usize; 2]; 2]) -> Result<()> {
    let text = |size: i32| TextStyle::from((FONT, size).into_font()).color(&BLACK);
    let centred = |size: i32| text(size).pos(Pos::new(HPos::Center, VPos::Center));
    let (width, _) = area.dim_in_pixel();
    let (cell, top) = (120i32, 70i32);
    let left = (width as i32 - 2 * cell) / 2 + 20;
    area.draw(&Text::new("Confusion matrix", (width as i32 / 2, 22), centred(17)))
        .map_err(plot_error)?;
    let max = confusion.iter().flatten().copied().max().unwrap_or(0).max(1) as f64;
    let names = ["negative", "positive"];
    for (row, counts) in confusion.iter().enumerate() {
        for (column, &count) in counts.iter().enumerate() {
            let (x, y) = (left + column as i32 * cell, top + row as i32 * cell);
            let shade = count as f64 / max;
            let blue = RGBColor(lerp(247, 8, shade), lerp(251, 48, shade), lerp(255, 107, shade));
            area.draw(&Rectangle::new([(x, y), (x + cell, y + cell)], blue.filled()))
                .map_err(plot_error)?;
            let colour = if shade > 0.5 { WHITE } else { BLACK };
            area.draw(&Text::new(
                count.to_string(),
                (x + cell / 2, y + cell / 2),
                centred(18).color(&colour),
            ))
            .map_err(plot_error)?;
        }
        let y = top + row as i32 * cell + cell / 2;
        area.draw(&Text::new(
            names[row],
            (left - 8, y),
            text(12).pos(Pos::new(HPos::Right, VPos::Center)),
        ))
        .map_err(plot_error)?;
        let x = left + row as i32 * cell + cell / 2;
        area.draw(&Text::new(names[row], (x, top + 2 * cell + 14), centred(12)))
            .map_err(plot_error)?;
    }
    area.draw(&Rectangle::new([(left, top), (left + 2 * cell, top + 2 * cell)], BLACK))
        .map_err(plot_error)?;
    area.draw(&Text::new("Predicted label", (left + cell, top + 2 * cell + 40), centred(13)))
        .map_err(plot_error)?;
    let vertical = TextStyle::from((FONT, 13).into_font().transform(FontTransform::Rotate270))
        .color(&BLACK)
        .pos(Pos::new(HPos::Center, VPos::Center));
    area.draw(&Text::new("True label", (left - 80, top + cell), vertical))
        .map_err(plot_error)
}

fn lerp(from: u8, to: u8, t: f64) -> u8 {
    (f64::from(from) + (f64::from(to) - f64::from(from)) * t).round() as u8
}

fn coefficient_panel(area: &Panel, coefficients: &[f64]) -> Result<()> {
    let mut sorted = coefficients.to_vec();
    sorted.sort_by(f64::total_cmp);
    let (low, high) = sorted.iter().fold((0f64, 0f64), |(l, h), &v| (l.min(v), h.max(v)));
    let pad = ((high - low) * 0.05).max(1e-3);
    let mut chart = ChartBuilder::on(area)
        .caption("Feature coefficient distribution", (FONT, 17))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(48)
        .build_cartesian_2d(0f64..sorted.len().max(1) as f64, (low - pad)..(high + pad))
        .map_err(plot_error)?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_label_formatter(&|v| format!("{v:.0}"))
        .x_desc("Feature (sorted)")
        .y_desc("Coefficient")
        .label_style((FONT, 12))
        .draw()
        .map_err(plot_error)?;
    chart
        .draw_series(LineSeries::new(
            sorted.iter().enumerate().map(|(i, &v)| (i as f64, v)),
            BLUE.stroke_width(2),
        ))
        .map_err(plot_error)?;
    chart
        .draw_series(LineSeries::new([(0.0, 0.0), (sorted.len().max(1) as f64, 0.0)], BLACK.mix(0.4)))
        .map_err(plot_error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_a_png_of_the_right_size() {
        let report = Report {
            precision: 0.9,
            recall: 0.8,
            f1: 0.85,
            num_features: 3,
            num_positives: 10,
            num_negatives: 12,
            use_idf: None,
            confusion: [[10, 2], [1, 9]],
            roc: vec![(0.0, 0.0), (0.1, 0.7), (0.3, 0.9), (1.0, 1.0)],
            auc: 0.87,
        };
        let png_bytes = plot_png(&report, &[0.5, -1.2, 2.0]).unwrap();
        assert_eq!(&png_bytes[..8], b"\x89PNG\r\n\x1a\n");
        assert_eq!(
            (&png_bytes[16..20], &png_bytes[20..24]),
            (&1200u32.to_be_bytes()[..], &400u32.to_be_bytes()[..])
        );
        if let Some(path) = std::env::var_os("TA_PLOT_OUT") {
            std::fs::write(path, &png_bytes).unwrap();
        }
        assert!(plot_png(
            &Report {
                roc: vec![],
                confusion: [[0, 0], [0, 0]],
                ..report
            },
            &[]
        )
        .is_ok());
    }
}
