//! The training plot (`models.md` §4.4): a 400×400 PNG of the test part's confusion matrix, drawn with the font
//! embedded for the classifier plots.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::error::{NeuralError, Result};
use super::metrics::Confusion;
use ta_classifier::FONT;

const SIZE: u32 = 400;
/// Above this many classes the cells get no labels or counts (they would not fit).
const MAX_LABELLED: usize = 12;

fn plot_error(e: impl std::fmt::Display) -> NeuralError {
    NeuralError::Plot(e.to_string())
}

fn register() -> Result<()> {
    ta_classifier::font_registered()
        .then_some(())
        .ok_or_else(|| NeuralError::Plot("the embedded font could not be loaded".into()))
}

/// Renders `confusion` (rows true, columns predicted, in the order of `classes`) as PNG bytes.
pub fn confusion_png(confusion: &Confusion, classes: &[String]) -> Result<Vec<u8>> {
    register()?;
    let mut pixels = vec![255u8; (SIZE * SIZE * 3) as usize];
    draw(&mut pixels, confusion, classes)?;
    let mut png_bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut png_bytes, SIZE, SIZE);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(plot_error)?;
    writer.write_image_data(&pixels).map_err(plot_error)?;
    writer.finish().map_err(plot_error)?;
    Ok(png_bytes)
}

fn draw(pixels: &mut [u8], confusion: &Confusion, classes: &[String]) -> Result<()> {
    let area = BitMapBackend::with_buffer(pixels, (SIZE, SIZE)).into_drawing_area();
    let n = confusion.matrix.len().max(1);
    let labelled = n <= MAX_LABELLED;
    let text = |size: i32| TextStyle::from((FONT, size).into_font()).color(&BLACK);
    let centred = |size: i32| text(size).pos(Pos::new(HPos::Center, VPos::Center));
    let (left, top) = (110i32, 50i32);
    let cell = ((SIZE as i32 - left - 20) / n as i32).max(1);
    let grid = cell * n as i32;
    area.draw(&Text::new("Confusion matrix", (SIZE as i32 / 2, 20), centred(17)))
        .map_err(plot_error)?;
    let max = confusion.matrix.iter().flatten().copied().max().unwrap_or(0).max(1) as f64;
    for (row, counts) in confusion.matrix.iter().enumerate() {
        for (column, &count) in counts.iter().enumerate() {
            let (x, y) = (left + column as i32 * cell, top + row as i32 * cell);
            let shade = count as f64 / max;
            let blue = RGBColor(lerp(247, 8, shade), lerp(251, 48, shade), lerp(255, 107, shade));
            area.draw(&Rectangle::new([(x, y), (x + cell, y + cell)], blue.filled()))
                .map_err(plot_error)?;
            if labelled {
                let colour = if shade > 0.5 { WHITE } else { BLACK };
                let size = (cell / 4).clamp(9, 18);
                area.draw(&Text::new(
                    count.to_string(),
                    (x + cell / 2, y + cell / 2),
                    centred(size).color(&colour),
                ))
                .map_err(plot_error)?;
            }
        }
        if labelled {
            let name = short(classes.get(row).map_or("", String::as_str));
            let middle = row as i32 * cell + cell / 2;
            area.draw(&Text::new(
                name.clone(),
                (left - 6, top + middle),
                text(11).pos(Pos::new(HPos::Right, VPos::Center)),
            ))
            .map_err(plot_error)?;
            area.draw(&Text::new(name, (left + middle, top + grid + 12), centred(11)))
                .map_err(plot_error)?;
        }
    }
    area.draw(&Rectangle::new([(left, top), (left + grid, top + grid)], BLACK))
        .map_err(plot_error)?;
    area.draw(&Text::new("Predicted label", (left + grid / 2, top + grid + 32), centred(13)))
        .map_err(plot_error)?;
    let vertical = TextStyle::from((FONT, 13).into_font().transform(FontTransform::Rotate270))
        .color(&BLACK)
        .pos(Pos::new(HPos::Center, VPos::Center));
    area.draw(&Text::new("True label", (14, top + grid / 2), vertical))
        .map_err(plot_error)?;
    area.present().map_err(plot_error)
}

/// A class name cut to 12 characters.
fn short(name: &str) -> String {
    if name.chars().count() > 12 {
        name.chars().take(11).chain(['…']).collect()
    } else {
        name.to_string()
    }
}

fn lerp(from: u8, to: u8, t: f64) -> u8 {
    (f64::from(from) + (f64::from(to) - f64::from(from)) * t).round() as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_a_400_by_400_png() {
        let classes = vec!["true".to_string(), "false".to_string()];
        for matrix in [vec![vec![10, 2], vec![1, 9]], vec![vec![0, 0], vec![0, 0]]] {
            let png = confusion_png(&Confusion { matrix }, &classes).unwrap();
            assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
            assert_eq!(
                (
                    u32::from_be_bytes(png[16..20].try_into().unwrap()),
                    u32::from_be_bytes(png[20..24].try_into().unwrap())
                ),
                (400, 400)
            );
        }
        let many = Confusion::new(30, (0..30).map(|i| (i, (i + 1) % 30)));
        assert!(confusion_png(&many, &[]).is_ok());
    }
}
