//! `ta mlp`: language processing (tokens, lemmas, POS tags, language, facts) of one text,
//! or of a JSONL stream from stdin (texts, or documents with `--field`), one result line
//! per input line. Local and remote runs send the same `/mlp/texts/` body, one chunk of
//! lines at a time.
use super::{batch, Target};
use crate::engine::error::{Error, Result};
use crate::engine::regex_tagger::ops::flatten;
use crate::engine::lines::BatchItem;
use crate::engine::validate::NOT_BLANK;
use clap::Args;
use serde_json::{json, Value};

#[derive(Args, Debug)]
pub struct MlpArgs {
    /// Text to process; without it, JSON lines are read from stdin (a JSON string or a bare
    /// line is a text, a JSON object is a document)
    pub text: Option<String>,
    /// Analyzers to run, comma-separated: lemmas, pos_tags, transliteration, ner, contacts,
    /// entities, namemail, bounded, all [default: all]
    #[arg(long, value_delimiter = ',')]
    pub analyzers: Vec<String>,
    /// Document field holding the text (dotted path, e.g. `comment.body`)
    #[arg(long)]
    pub field: Option<String>,
}

/// The `/mlp/texts/` body for `texts`.
fn body(texts: &[String], a: &MlpArgs) -> Value {
    let mut b = json!({"texts": texts});
    if !a.analyzers.is_empty() {
        b["analyzers"] = json!(a.analyzers);
    }
    b
}

fn process(t: &Target, texts: &[String], a: &MlpArgs) -> Result<Vec<Value>> {
    let b = body(texts, a);
    let out = t.call("POST", "/mlp/texts/", Some(&b), |e, ctx| e.mlp_texts(ctx, &b))?;
    serde_json::from_value(out).map_err(Error::internal)
}

/// The text of one input line: the line itself, or the document's `field`.
fn line_text(item: &BatchItem, field: Option<&str>) -> Result<String> {
    let text = match (item, field) {
        (BatchItem::Text(s), _) => s.clone(),
        (BatchItem::Doc(_), None) => return Err(Error::BadRequest("a document line needs --field".into())),
        (BatchItem::Doc(d), Some(f)) => match flatten(d).get(f) {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Number(n)) => n.to_string(),
            _ => return Err(Error::field(f, "Not a valid string.")),
        },
    };
    if crate::engine::pytext::strip(&text).is_empty() {
        return Err(Error::field("text", NOT_BLANK));
    }
    Ok(text)
}

/// One chunk of the stream: invalid lines become `{"error": ...}`, the rest go in one
/// request, and the results are put back in line order.
fn process_chunk(t: &Target, items: &[BatchItem], a: &MlpArgs) -> Result<Vec<Value>> {
    let lines: Vec<Result<String>> = items.iter().map(|it| line_text(it, a.field.as_deref())).collect();
    let texts: Vec<String> = lines.iter().filter_map(|l| l.as_ref().ok().cloned()).collect();
    let mut results = process(t, &texts, a)?.into_iter();
    Ok(lines
        .into_iter()
        .map(|l| match l {
            Ok(_) => results.next().unwrap_or(Value::Null),
            Err(e) => json!({"error": e.to_string()}),
        })
        .collect())
}

pub fn run(t: &Target, a: &MlpArgs) -> Result<Option<Value>> {
    match &a.text {
        Some(text) => Ok(process(t, std::slice::from_ref(text), a)?.into_iter().next()),
        None => {
            batch::run(|items| process_chunk(t, items, a).map(batch::json_lines))?;
            Ok(None)
        }
    }
}
