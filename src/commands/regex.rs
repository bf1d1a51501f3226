//! `ta regex-tagger ...` and `ta regex-tagger-group ...`: manage taggers and groups, tag
//! one text, or tag a JSONL stream.
use super::apply::{self, ApplyArgs, FactValue};
use super::resources::{self, project_for, ProjectFlag, StandardCmd};
use super::{batch, choice, Target};
use crate::engine::apply::ApplyModel;
use crate::engine::error::{Error, Result};
use crate::engine::regex_tagger::{MatchType, Operator};
use crate::engine::resources::Kind;
use clap::{Args, Subcommand};
use serde_json::{json, Map, Value};
use std::path::PathBuf;

#[derive(Args, Debug, Default)]
pub struct TaggerArgs {
    /// Description (also the tag a tagger assigns)
    #[arg(long)]
    pub description: Option<String>,
    /// Lexicon entry (word, phrase or regex); repeat for several
    #[arg(long = "lexicon")]
    pub lexicon: Vec<String>,
    /// File with one lexicon entry per line
    #[arg(long)]
    pub lexicon_file: Option<PathBuf>,
    /// Counter-lexicon entry; repeat for several
    #[arg(long = "counter-lexicon")]
    pub counter_lexicon: Vec<String>,
    /// File with one counter-lexicon entry per line
    #[arg(long)]
    pub counter_lexicon_file: Option<PathBuf>,
    /// How lexicon entries combine: or (any entry matches) or and (the share given by
    /// --required-words must match)
    #[arg(long, value_parser = choice::of::<Operator>(), ignore_case = true)]
    pub operator: Option<String>,
    /// Where an entry must match: prefix (word beginnings), exact (whole words) or subword
    /// (anywhere inside words)
    #[arg(long, value_parser = choice::of::<MatchType>(), ignore_case = true)]
    pub match_type: Option<String>,
    /// Share of the lexicon entries that must match (operator "and"), 0 to 1
    #[arg(long)]
    pub required_words: Option<f64>,
    /// Words allowed between the words of a phrase
    #[arg(long, allow_hyphen_values = true)]
    pub phrase_slop: Option<i64>,
    /// Words allowed between a counter-lexicon entry and a match
    #[arg(long, allow_hyphen_values = true)]
    pub counter_slop: Option<i64>,
    /// Character edits allowed per lexicon entry (fuzzy matching)
    #[arg(long, allow_hyphen_values = true)]
    pub n_allowed_edits: Option<i64>,
    /// Return fuzzy matches as they appear in the text
    #[arg(long)]
    pub return_fuzzy_match: Option<bool>,
    /// Match regardless of letter case
    #[arg(long)]
    pub ignore_case: Option<bool>,
    /// Ignore punctuation between the words of a phrase
    #[arg(long)]
    pub ignore_punctuation: Option<bool>,
}

#[derive(Args, Debug)]
pub struct BatchArgs {
    /// Id of the resource
    pub id: i64,
    /// Document field to tag (dotted path; repeat for several). Lines that are JSON
    /// objects are documents and need it (without, each answers an error line); other
    /// lines are texts.
    #[arg(long = "field")]
    pub fields: Vec<String>,
}

#[derive(Subcommand, Debug)]
pub enum TaggerCmd {
    #[command(flatten)]
    Standard(StandardCmd),
    /// Create a regex tagger
    Create {
        /// Project id
        #[arg(long)]
        project: i64,
        #[command(flatten)]
        args: TaggerArgs,
    },
    /// Change a regex tagger (only the given settings)
    Update {
        /// Id of the resource
        id: i64,
        #[command(flatten)]
        p: ProjectFlag,
        #[command(flatten)]
        args: TaggerArgs,
    },
    /// Tag one text
    TagText {
        /// Id of the resource
        id: i64,
        /// The text
        text: String,
        #[command(flatten)]
        p: ProjectFlag,
    },
    /// Tag a JSONL stream from stdin (texts or documents), one result line per input line
    Tag {
        #[command(flatten)]
        b: BatchArgs,
        #[command(flatten)]
        p: ProjectFlag,
    },
    /// Run several taggers (default: all of the project) over one text
    Multitag {
        /// Project id
        #[arg(long)]
        project: i64,
        /// Tagger id; repeat for several
        #[arg(long = "tagger")]
        taggers: Vec<i64>,
        /// The text
        text: String,
    },
    /// Write the tagger's matches in the fields of an index's documents as facts (a task)
    Apply {
        #[command(flatten)]
        a: ApplyArgs,
        #[command(flatten)]
        v: FactValue,
        /// Write "[[0, 0]]" instead of each match's span
        #[arg(long)]
        no_spans: bool,
    },
}

#[derive(Subcommand, Debug)]
pub enum GroupCmd {
    #[command(flatten)]
    Standard(StandardCmd),
    /// Create a regex tagger group
    Create {
        /// Project id
        #[arg(long)]
        project: i64,
        /// Description (also the tag a tagger assigns)
        #[arg(long)]
        description: String,
        /// Member tagger id; repeat for several
        #[arg(long = "tagger")]
        taggers: Vec<i64>,
    },
    /// Change a group's description or members
    Update {
        /// Id of the resource
        id: i64,
        #[command(flatten)]
        p: ProjectFlag,
        /// Description (also the tag a tagger assigns)
        #[arg(long)]
        description: Option<String>,
        /// Member tagger id (replaces the member set); repeat for several
        #[arg(long = "tagger")]
        taggers: Vec<i64>,
    },
    /// Tag one text with every member
    TagText {
        /// Id of the resource
        id: i64,
        /// The text
        text: String,
        #[command(flatten)]
        p: ProjectFlag,
    },
    /// Tag a JSONL stream from stdin with every member
    Tag {
        #[command(flatten)]
        b: BatchArgs,
        #[command(flatten)]
        p: ProjectFlag,
    },
    /// Add a fact per member match to every matching document of the indices (a task)
    Apply {
        /// Id of the resource
        id: i64,
        #[command(flatten)]
        p: ProjectFlag,
        /// Label of this run
        #[arg(long)]
        description: String,
        /// Index (repeat for several) [default: all project indices]
        #[arg(long = "index")]
        indices: Vec<String>,
        /// Field to tag (dotted path; repeat for several)
        #[arg(long = "field", required = true)]
        fields: Vec<String>,
        /// Elasticsearch query selecting the documents, as JSON [default: all]
        #[arg(long)]
        query: Option<String>,
    },
}

fn read_lines(path: &PathBuf) -> Result<Vec<String>> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::BadRequest(format!("cannot read {}: {e}", path.display())))?;
    Ok(text.lines().map(str::trim).filter(|l| !l.is_empty()).map(str::to_string).collect())
}

fn tagger_body(a: &TaggerArgs) -> Result<Value> {
    let mut m = Map::new();
    if let Some(d) = &a.description {
        m.insert("description".into(), json!(d));
    }
    for (key, inline, file) in [
        ("lexicon", &a.lexicon, &a.lexicon_file),
        ("counter_lexicon", &a.counter_lexicon, &a.counter_lexicon_file),
    ] {
        let mut entries = inline.clone();
        if let Some(f) = file {
            entries.extend(read_lines(f)?);
        }
        if !entries.is_empty() {
            m.insert(key.into(), json!(entries));
        }
    }
    let opts: [(&str, Option<Value>); 9] = [
        ("operator", a.operator.as_ref().map(|v| json!(v))),
        ("match_type", a.match_type.as_ref().map(|v| json!(v))),
        ("required_words", a.required_words.map(|v| json!(v))),
        ("phrase_slop", a.phrase_slop.map(|v| json!(v))),
        ("counter_slop", a.counter_slop.map(|v| json!(v))),
        ("n_allowed_edits", a.n_allowed_edits.map(|v| json!(v))),
        ("return_fuzzy_match", a.return_fuzzy_match.map(|v| json!(v))),
        ("ignore_case", a.ignore_case.map(|v| json!(v))),
        ("ignore_punctuation", a.ignore_punctuation.map(|v| json!(v))),
    ];
    for (k, v) in opts {
        if let Some(v) = v {
            m.insert(k.into(), v);
        }
    }
    Ok(Value::Object(m))
}

/// Tag a stream: locally through the engine's parallel batch, remotely one request per
/// line (in parallel) to the same endpoints a single tag uses.
fn tag_stream(t: &Target, kind: Kind, pk: i64, b: &BatchArgs) -> Result<()> {
    let base = format!("/projects/{pk}/{}/{}", kind.route(), b.id);
    batch::run_lines(|lines| match t {
        Target::Local { engine, ctx } => match kind {
            Kind::RegexTaggerGroup => engine.group_tag_batch(ctx, pk, b.id, lines, &b.fields),
            _ => engine.regex_tag_batch(ctx, pk, b.id, lines, &b.fields),
        },
        Target::Remote(c) => Ok(batch::per_line_requests(c, &base, lines, &Default::default(), Some(&b.fields))),
    })
}

pub fn tagger(t: &Target, c: &TaggerCmd) -> Result<Option<Value>> {
    let out = match c {
        TaggerCmd::Standard(c) => return resources::run(t, Kind::RegexTagger, c),
        TaggerCmd::Apply { a, v, no_spans } => {
            let extra = apply::options(&[
                ("new_fact_value", v.fact_value.clone().map(Value::from)),
                ("add_spans", Some(json!(!no_spans))),
            ]);
            apply::run(t, ApplyModel::RegexTagger, a, extra)?
        }
        TaggerCmd::Create { project, args } => {
            let b = tagger_body(args)?;
            t.request("POST", &format!("/projects/{project}/regex_taggers/"), Some(&b))?
        }
        TaggerCmd::Update { id, p, args } => {
            let pk = project_for(t, p, Kind::RegexTagger, *id)?;
            let b = tagger_body(args)?;
            t.request("PATCH", &format!("/projects/{pk}/regex_taggers/{id}/"), Some(&b))?
        }
        TaggerCmd::TagText { id, text, p } => {
            let pk = project_for(t, p, Kind::RegexTagger, *id)?;
            let b = json!({"text": text});
            t.request("POST", &format!("/projects/{pk}/regex_taggers/{id}/tag_text/"), Some(&b))?
        }
        TaggerCmd::Tag { b, p } => {
            let pk = project_for(t, p, Kind::RegexTagger, b.id)?;
            tag_stream(t, Kind::RegexTagger, pk, b)?;
            return Ok(None);
        }
        TaggerCmd::Multitag { project, taggers, text } => {
            let b = json!({"text": text, "taggers": taggers});
            t.request("POST", &format!("/projects/{project}/regex_taggers/multitag_text/"), Some(&b))?
        }
    };
    Ok(Some(out))
}

pub fn group(t: &Target, c: &GroupCmd) -> Result<Option<Value>> {
    let out = match c {
        GroupCmd::Standard(c) => return resources::run(t, Kind::RegexTaggerGroup, c),
        GroupCmd::Create {
            project,
            description,
            taggers,
        } => {
            let b = json!({"description": description, "regex_taggers": taggers});
            t.request("POST", &format!("/projects/{project}/regex_tagger_groups/"), Some(&b))?
        }
        GroupCmd::Update {
            id,
            p,
            description,
            taggers,
        } => {
            let pk = project_for(t, p, Kind::RegexTaggerGroup, *id)?;
            let mut m = Map::new();
            if let Some(d) = description {
                m.insert("description".into(), json!(d));
            }
            if !taggers.is_empty() {
                m.insert("regex_taggers".into(), json!(taggers));
            }
            let b = Value::Object(m);
            t.request("PATCH", &format!("/projects/{pk}/regex_tagger_groups/{id}/"), Some(&b))?
        }
        GroupCmd::TagText { id, text, p } => {
            let pk = project_for(t, p, Kind::RegexTaggerGroup, *id)?;
            let b = json!({"text": text});
            t.request("POST", &format!("/projects/{pk}/regex_tagger_groups/{id}/tag_text/"), Some(&b))?
        }
        GroupCmd::Tag { b, p } => {
            let pk = project_for(t, p, Kind::RegexTaggerGroup, b.id)?;
            tag_stream(t, Kind::RegexTaggerGroup, pk, b)?;
            return Ok(None);
        }
        GroupCmd::Apply {
            id,
            p,
            description,
            indices,
            fields,
            query,
        } => {
            let pk = project_for(t, p, Kind::RegexTaggerGroup, *id)?;
            let mut body = json!({"description": description, "fields": fields,
                                  "indices": indices.iter().map(|n| json!({"name": n})).collect::<Vec<_>>()});
            if let Some(q) = query {
                body["query"] = serde_json::from_str(q).map_err(|e| Error::BadRequest(format!("--query is not JSON: {e}")))?;
            }
            resources::task_action(
                t,
                (Kind::RegexTaggerGroup, pk, *id),
                ("apply_tagger_group", &body),
                |e, ctx, observer| e.start_apply_tagger_group(ctx, pk, *id, &body, Some(observer)).map(drop),
            )?
        }
    };
    Ok(Some(out))
}
