//! `ta tagger feedback ID` and `ta torchtagger feedback ID`: the predictions a model kept
//! when tagged with `--feedback` — list them, give one's correct result, or remove them.
use super::resources::{project_for, ProjectFlag};
use super::Target;
use crate::engine::error::Result;
use crate::engine::resources::Kind;
use clap::Args;
use serde_json::{json, Value};

#[derive(Args, Debug)]
pub struct FeedbackArgs {
    /// Model id
    id: i64,
    #[command(flatten)]
    p: ProjectFlag,
    /// Give the correct result of the kept prediction with this id (see --correct-result)
    #[arg(long, requires = "correct_result")]
    feedback_id: Option<String>,
    /// The correct result of --feedback-id (e.g. true or false for a tagger, a class of a
    /// torch tagger)
    #[arg(long, requires = "feedback_id")]
    correct_result: Option<String>,
    /// Remove the model's kept predictions
    #[arg(long, conflicts_with = "feedback_id")]
    clear: bool,
}

/// Runs `args` against the feedback of a model of `kind`.
pub fn run(t: &Target, kind: Kind, args: &FeedbackArgs) -> Result<Value> {
    let id = args.id;
    let pk = project_for(t, &args.p, kind, id)?;
    let path = format!("/projects/{pk}/{}/{id}/feedback/", kind.route());
    match (&args.feedback_id, &args.correct_result) {
        (Some(f), Some(c)) => t.request("POST", &path, Some(&json!({"feedback_id": f, "correct_result": c}))),
        _ if args.clear => t.request("DELETE", &path, None),
        _ => t.request("GET", &path, None),
    }
}
