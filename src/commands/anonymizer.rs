//! `ta anonymizer ...`: manage anonymizers, anonymize one text, or a JSONL stream.
use super::resources::{project_for, ProjectFlag, StandardCmd};
use super::{batch, Target};
use crate::engine::anonymizers::draw_replacers;
use crate::engine::error::{Error, Result};
use crate::engine::lines::BatchItem;
use crate::engine::resources::Kind;
use clap::{Args, Subcommand};
use serde_json::{json, Map, Value};
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct AnonymizerArgs {
    /// Description (also the tag a tagger assigns)
    #[arg(long)]
    pub description: Option<String>,
    /// Also replace misspelled forms of the names
    #[arg(long)]
    pub replace_misspelled_names: Option<bool>,
    /// Also replace last names standing alone
    #[arg(long)]
    pub replace_single_last_names: Option<bool>,
    /// Also replace first names standing alone
    #[arg(long)]
    pub replace_single_first_names: Option<bool>,
    /// Similarity (0 to 1) from which a word counts as a misspelled name
    #[arg(long)]
    pub misspelling_threshold: Option<f64>,
    /// Give the initials the casing of the replaced name
    #[arg(long)]
    pub mimic_casing: Option<bool>,
    /// Raise the threshold for short names
    #[arg(long)]
    pub auto_adjust_threshold: Option<bool>,
}

#[derive(Args, Debug)]
pub struct NameArgs {
    /// A name as "Last, First"; repeat for several
    #[arg(long = "name")]
    pub names: Vec<String>,
    /// File with one "Last, First" name per line
    #[arg(long = "names")]
    pub names_file: Option<PathBuf>,
    /// JSON file with replacement initials (list of lists, as the API's `replacers`)
    #[arg(long)]
    pub replacers: Option<PathBuf>,
}

#[derive(Subcommand, Debug)]
pub enum AnonymizerCmd {
    #[command(flatten)]
    Standard(StandardCmd),
    /// Create an anonymizer
    Create {
        /// Project id
        #[arg(long)]
        project: i64,
        #[command(flatten)]
        args: AnonymizerArgs,
    },
    /// Change an anonymizer (only the given settings)
    Update {
        /// Id of the resource
        id: i64,
        #[command(flatten)]
        p: ProjectFlag,
        #[command(flatten)]
        args: AnonymizerArgs,
    },
    /// Anonymize one text
    Text {
        /// Id of the resource
        id: i64,
        /// The text
        text: String,
        #[command(flatten)]
        p: ProjectFlag,
        #[command(flatten)]
        n: NameArgs,
    },
    /// Anonymize a JSONL stream of texts from stdin, one output line per input line
    Run {
        /// Id of the resource
        id: i64,
        #[command(flatten)]
        p: ProjectFlag,
        #[command(flatten)]
        n: NameArgs,
        /// One replacement per name across the whole stream
        #[arg(long)]
        consistent: bool,
    },
}

fn settings_body(a: &AnonymizerArgs) -> Value {
    let mut m = Map::new();
    if let Some(d) = &a.description {
        m.insert("description".into(), json!(d));
    }
    let bools = [
        ("replace_misspelled_names", a.replace_misspelled_names),
        ("replace_single_last_names", a.replace_single_last_names),
        ("replace_single_first_names", a.replace_single_first_names),
        ("mimic_casing", a.mimic_casing),
        ("auto_adjust_threshold", a.auto_adjust_threshold),
    ];
    for (k, v) in bools {
        if let Some(v) = v {
            m.insert(k.into(), json!(v));
        }
    }
    if let Some(t) = a.misspelling_threshold {
        m.insert("misspelling_threshold".into(), json!(t));
    }
    Value::Object(m)
}

fn names(n: &NameArgs) -> Result<Vec<String>> {
    let mut out = n.names.clone();
    if let Some(f) = &n.names_file {
        let text = std::fs::read_to_string(f).map_err(|e| Error::BadRequest(format!("cannot read {}: {e}", f.display())))?;
        out.extend(text.lines().map(str::trim).filter(|l| !l.is_empty()).map(str::to_string));
    }
    Ok(out)
}

fn replacers(n: &NameArgs) -> Result<Option<Value>> {
    let Some(f) = &n.replacers else {
        return Ok(None);
    };
    let text = std::fs::read_to_string(f).map_err(|e| Error::BadRequest(format!("cannot read {}: {e}", f.display())))?;
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| Error::BadRequest(format!("{} is not JSON: {e}", f.display())))
}

/// Anonymize a stream in chunks through `anonymize_texts`; with `--consistent` the same
/// drawn (or given) replacements go with every chunk, so a name is replaced alike
/// throughout.
fn run_stream(t: &Target, pk: i64, id: i64, n: &NameArgs, consistent: bool) -> Result<()> {
    let names = names(n)?;
    let fixed = match replacers(n)? {
        Some(r) => Some(r),
        None if consistent => Some(json!([draw_replacers(&names)?])),
        None => None,
    };
    batch::run(|items| {
        let texts: Vec<String> = items
            .iter()
            .map(|it| match it {
                BatchItem::Text(s) => s.clone(),
                BatchItem::Doc(d) => d.to_string(),
            })
            .collect();
        // Blank lines pass through as empty strings; the API rejects blank texts.
        let keep: Vec<usize> = (0..texts.len()).filter(|i| !texts[*i].trim().is_empty()).collect();
        let mut out = vec![Value::String(String::new()); texts.len()];
        if keep.is_empty() {
            return Ok(batch::json_lines(out));
        }
        let sent: Vec<&String> = keep.iter().map(|i| &texts[*i]).collect();
        let mut body = json!({"texts": sent, "names": names, "consistent_replacement": fixed.is_some()});
        if let Some(r) = &fixed {
            body["replacers"] = r.clone();
        }
        let got = t.request("POST", &format!("/projects/{pk}/anonymizers/{id}/anonymize_texts/"), Some(&body))?;
        for (i, v) in keep.into_iter().zip(got.as_array().cloned().unwrap_or_default()) {
            out[i] = v;
        }
        Ok(batch::json_lines(out))
    })
}

pub fn run(t: &Target, c: &AnonymizerCmd) -> Result<Option<Value>> {
    let out = match c {
        AnonymizerCmd::Standard(c) => return super::resources::run(t, Kind::Anonymizer, c),
        AnonymizerCmd::Create { project, args } => {
            let b = settings_body(args);
            t.request("POST", &format!("/projects/{project}/anonymizers/"), Some(&b))?
        }
        AnonymizerCmd::Update { id, p, args } => {
            let pk = project_for(t, p, Kind::Anonymizer, *id)?;
            let b = settings_body(args);
            t.request("PATCH", &format!("/projects/{pk}/anonymizers/{id}/"), Some(&b))?
        }
        AnonymizerCmd::Text { id, text, p, n } => {
            let pk = project_for(t, p, Kind::Anonymizer, *id)?;
            let mut b = json!({"text": text, "names": names(n)?});
            if let Some(r) = replacers(n)? {
                b["replacers"] = r;
            }
            t.request("POST", &format!("/projects/{pk}/anonymizers/{id}/anonymize_text/"), Some(&b))?
        }
        AnonymizerCmd::Run { id, p, n, consistent } => {
            let pk = project_for(t, p, Kind::Anonymizer, *id)?;
            run_stream(t, pk, *id, n, *consistent)?;
            return Ok(None);
        }
    };
    Ok(Some(out))
}
