//! `ta tagger-group ...`: one tagger per value of a fact, trained together (one progress bar
//! for the group, the members' states below it); tag a text or a JSONL stream with the
//! members that similar documents propose; list and retrain the members; export and import.
use super::apply::{self, ApplyArgs};
use super::resources::{self, project_for, ProjectFlag, StandardCmd, TransferCmd};
use super::taggers::{SampleArgs, SettingsArgs};
use super::{batch, Target};
use crate::engine::apply::ApplyModel;
use crate::engine::error::{Error, Result};
use crate::engine::resources::Kind;
use crate::engine::tagger_groups::{MemberObserver, MemberUpdate};
use crate::engine::tasks::TaskOut;
use clap::{Args, Subcommand};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[derive(Subcommand, Debug)]
pub enum TaggerGroupCmd {
    #[command(flatten)]
    Standard(StandardCmd),
    #[command(flatten)]
    Transfer(TransferCmd),
    /// Create a tagger group: one tagger per value of --fact held by at least --min-samples
    /// documents, each trained on the documents with its value against a random sample of
    /// the others, all at once
    Create {
        /// Project id
        #[arg(long)]
        project: i64,
        /// Name of the group
        #[arg(long)]
        description: String,
        /// The fact whose values become tags
        #[arg(long = "fact", default_value = "TEEMA")]
        fact_name: String,
        /// Documents a value needs to get a tagger
        #[arg(long = "min-samples", default_value_t = 50)]
        minimum_sample_size: i64,
        #[command(flatten)]
        settings: SettingsArgs,
        #[command(flatten)]
        sample: SampleArgs,
    },
    /// Tag one text: entities equal to a member's tag, then the members that the most
    /// similar documents propose
    TagText {
        /// Tagger group id
        id: i64,
        /// The text
        text: String,
        #[command(flatten)]
        p: ProjectFlag,
        #[command(flatten)]
        o: TagArgs,
    },
    /// Tag a JSONL stream from stdin (texts, or documents holding the members' fields), one
    /// result line per input line, in order
    Tag {
        /// Tagger group id
        id: i64,
        #[command(flatten)]
        p: ProjectFlag,
        #[command(flatten)]
        o: TagArgs,
    },
    /// The member taggers and their training status
    Models {
        /// Tagger group id
        id: i64,
        #[command(flatten)]
        p: ProjectFlag,
    },
    /// Train every member again (the old models serve until the new ones are ready)
    Retrain {
        /// Tagger group id
        id: i64,
        #[command(flatten)]
        p: ProjectFlag,
    },
    /// Tag the fields of an index's documents with the group and write its tags as facts (a task)
    Apply {
        #[command(flatten)]
        a: ApplyArgs,
        /// Lemmatize the text before tagging
        #[arg(long)]
        lemmatize: bool,
        /// Also tag with members named by the text's entities
        #[arg(long)]
        use_ner: bool,
        /// Similar documents whose facts propose the candidate members [default: 25]
        #[arg(long)]
        n_similar_docs: Option<i64>,
        /// Candidate members run per text [default: 25]
        #[arg(long)]
        n_candidate_tags: Option<i64>,
        /// Most tagger tags per field [default: 10000]
        #[arg(long)]
        max_tags: Option<i64>,
    },
}

/// The tagging options of tag-text and tag.
#[derive(Args, Debug)]
pub struct TagArgs {
    /// Do not lemmatize the text first
    #[arg(long)]
    no_lemmatize: bool,
    /// Do not add entities equal to a member's tag
    #[arg(long)]
    no_ner: bool,
    /// Similar documents read for candidate tags [default: 25]
    #[arg(long)]
    similar_docs: Option<i64>,
    /// Most candidate members run [default: 25]
    #[arg(long)]
    candidate_tags: Option<i64>,
}

impl TagArgs {
    /// The options as the tag_text / tag_doc body fields.
    fn body(&self) -> Map<String, Value> {
        let mut body = Map::new();
        body.insert("lemmatize".into(), json!(!self.no_lemmatize));
        body.insert("use_ner".into(), json!(!self.no_ner));
        if let Some(n) = self.similar_docs {
            body.insert("n_similar_docs".into(), json!(n));
        }
        if let Some(n) = self.candidate_tags {
            body.insert("n_candidate_tags".into(), json!(n));
        }
        body
    }
}

pub fn run(t: &Target, c: &TaggerGroupCmd) -> Result<Option<Value>> {
    let out = match c {
        TaggerGroupCmd::Standard(c) => return resources::run(t, Kind::TaggerGroup, c),
        TaggerGroupCmd::Transfer(c) => return resources::transfer(t, Kind::TaggerGroup, c),
        TaggerGroupCmd::Create {
            project,
            description,
            fact_name,
            minimum_sample_size,
            settings,
            sample,
        } => {
            let mut tagger = settings.body();
            sample.add_to(&mut tagger);
            let body = json!({"description": description, "fact_name": fact_name,
                              "minimum_sample_size": minimum_sample_size, "tagger": tagger});
            let created = match t {
                Target::Local { engine, ctx } => {
                    let out = engine.create_tagger_group(ctx, *project, &body, Some(observer()))?;
                    serde_json::to_value(out).map_err(Error::internal)?
                }
                Target::Remote(_) => t.request("POST", &format!("/projects/{project}/tagger_groups/"), Some(&body))?,
            };
            let id = created["id"]
                .as_i64()
                .ok_or_else(|| Error::Internal("no tagger group id in the answer".into()))?;
            finish(t, *project, id)?
        }
        TaggerGroupCmd::TagText { id, text, p, o } => {
            let pk = project_for(t, p, Kind::TaggerGroup, *id)?;
            let mut body = o.body();
            body.insert("text".into(), json!(text));
            t.request(
                "POST",
                &format!("/projects/{pk}/tagger_groups/{id}/tag_text/"),
                Some(&Value::Object(body)),
            )?
        }
        TaggerGroupCmd::Tag { id, p, o } => {
            let pk = project_for(t, p, Kind::TaggerGroup, *id)?;
            tag_stream(t, pk, *id, &o.body())?;
            return Ok(None);
        }
        TaggerGroupCmd::Models { id, p } => {
            let pk = project_for(t, p, Kind::TaggerGroup, *id)?;
            t.request("GET", &format!("/projects/{pk}/tagger_groups/{id}/models_list/"), None)?
        }
        TaggerGroupCmd::Apply {
            a,
            lemmatize,
            use_ner,
            n_similar_docs,
            n_candidate_tags,
            max_tags,
        } => {
            let extra = apply::options(&[
                ("lemmatize", Some(json!(lemmatize))),
                ("use_ner", Some(json!(use_ner))),
                ("n_similar_docs", n_similar_docs.map(Value::from)),
                ("n_candidate_tags", n_candidate_tags.map(Value::from)),
                ("max_tags", max_tags.map(Value::from)),
            ]);
            apply::run(t, ApplyModel::TaggerGroup, a, extra)?
        }
        TaggerGroupCmd::Retrain { id, p } => {
            let pk = project_for(t, p, Kind::TaggerGroup, *id)?;
            match t {
                Target::Local { engine, ctx } => {
                    engine.retrain_tagger_group(ctx, pk, *id, Some(observer()))?;
                }
                Target::Remote(_) => {
                    t.request(
                        "POST",
                        &format!("/projects/{pk}/tagger_groups/{id}/models_retrain/"),
                        Some(&json!({})),
                    )?;
                }
            }
            finish(t, pk, *id)?
        }
    };
    Ok(Some(out))
}

/// Waits for the members' training (locally it ran in the foreground already; remotely the
/// group is followed) and answers the group; an error when no member trained.
fn finish(t: &Target, pk: i64, id: i64) -> Result<Value> {
    let path = format!("/projects/{pk}/tagger_groups/{id}/");
    if let Target::Remote(c) = t {
        let bar = GroupBar::new();
        loop {
            let group = c.send("GET", &path, None)?;
            let status = &group["tagger_status"];
            let count = |key: &str| status[key].as_u64().unwrap_or(0);
            let members = c.send("GET", &format!("{path}models_list/"), None)?;
            let states: Vec<(String, String)> = members
                .as_array()
                .into_iter()
                .flatten()
                .map(|m| {
                    (
                        m["tag"].as_str().unwrap_or("").to_string(),
                        m["status"].as_str().unwrap_or("").to_string(),
                    )
                })
                .collect();
            bar.show(count("total"), count("completed") + count("failed"), &states);
            if count("training") + count("created") == 0 {
                break;
            }
            std::thread::sleep(Duration::from_millis(300));
        }
        bar.finish();
    }
    let group = t.request("GET", &path, None)?;
    if group["tagger_status"]["completed"].as_u64() == Some(0) {
        return Err(Error::BadRequest(format!(
            "no member of tagger group {id} trained: {}",
            first_failure(t, pk, id)?
        )));
    }
    Ok(group)
}

/// What the first failed member says, for the error of a group none of whose members trained.
fn first_failure(t: &Target, pk: i64, id: i64) -> Result<String> {
    let members = t.request("GET", &format!("/projects/{pk}/tagger_groups/{id}/models_list/"), None)?;
    let failed = members.as_array().into_iter().flatten().find(|m| m["status"] == "failed");
    Ok(match failed.and_then(|m| m["id"].as_i64()) {
        Some(member) => {
            let tagger = t.request("GET", &format!("/projects/{pk}/taggers/{member}/"), None)?;
            format!(
                "member {} (tagger {member}) failed: {}",
                tagger["description"].as_str().unwrap_or(""),
                tagger["task"]["errors"].as_str().unwrap_or("[]")
            )
        }
        None => "the members did not train".into(),
    })
}

/// One bar for the whole group (members that ended, of all) and a line below it with the
/// members' states; hidden off a terminal.
struct GroupBar {
    _multi: indicatif::MultiProgress,
    bar: indicatif::ProgressBar,
    states: indicatif::ProgressBar,
}

impl GroupBar {
    fn new() -> GroupBar {
        let multi = indicatif::MultiProgress::new();
        if !std::io::stderr().is_terminal() {
            multi.set_draw_target(indicatif::ProgressDrawTarget::hidden());
        }
        let bar = multi.add(indicatif::ProgressBar::new(0));
        bar.set_style(
            indicatif::ProgressStyle::with_template("training [{bar:40}] {pos}/{len} members  {elapsed}")
                .expect("valid template")
                .progress_chars("=> "),
        );
        let states = multi.add(indicatif::ProgressBar::new_spinner());
        states.set_style(indicatif::ProgressStyle::with_template("  {wide_msg}").expect("valid template"));
        GroupBar {
            _multi: multi,
            bar,
            states,
        }
    }

    /// `states`: each member's tag and state (a task status, or a running step).
    fn show(&self, total: u64, ended: u64, states: &[(String, String)]) {
        self.bar.set_length(total);
        self.bar.set_position(ended);
        let mut by_state: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for (tag, state) in states {
            by_state.entry(state.as_str()).or_default().push(tag.as_str());
        }
        let line: Vec<String> = by_state
            .iter()
            .filter(|(state, _)| **state != "completed")
            .map(|(state, tags)| match tags.len() {
                n if n > 4 => format!("{state}: {} +{}", tags[..4].join(", "), n - 4),
                _ => format!("{state}: {}", tags.join(", ")),
            })
            .collect();
        self.states.set_message(line.join(" | "));
    }

    fn finish(&self) {
        self.bar.finish_and_clear();
        self.states.finish_and_clear();
    }
}

/// Local mode: draws the members' foreground training on a group bar.
fn observer() -> MemberObserver {
    let bar = GroupBar::new();
    let tasks: Mutex<BTreeMap<String, TaskOut>> = Mutex::new(BTreeMap::new());
    Arc::new(move |u: MemberUpdate| {
        let mut tasks = tasks.lock().unwrap_or_else(|p| p.into_inner());
        tasks.insert(u.tag.to_string(), u.task.clone());
        let ended = tasks.values().filter(|t| !t.status.is_active()).count();
        let states: Vec<(String, String)> = tasks
            .iter()
            .map(|(tag, t)| match t.status.is_active() && !t.step.is_empty() {
                true => (format!("{tag} {:.0}%", t.progress), t.step.clone()),
                false => (tag.clone(), t.status.as_str().to_string()),
            })
            .collect();
        bar.show(u.members as u64, ended as u64, &states);
        if ended == u.members {
            bar.finish();
        }
    })
}

/// Tags a stream: locally through the engine's parallel batch, remotely one request per line
/// (in parallel) to the endpoints a single tag uses.
fn tag_stream(t: &Target, pk: i64, id: i64, options: &Map<String, Value>) -> Result<()> {
    let base = format!("/projects/{pk}/tagger_groups/{id}");
    let body = Value::Object(options.clone());
    batch::run_lines(|lines| match t {
        Target::Local { engine, ctx } => engine.tagger_group_tag_batch(ctx, pk, id, &body, lines),
        Target::Remote(c) => Ok(batch::per_line_requests(c, &base, lines, options, None)),
    })
}
