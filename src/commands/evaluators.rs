//! `ta evaluator`: score a predicted fact against a true fact over the selected documents of
//! indices (the `evaluators` resource): create one (waiting for its run with a progress bar),
//! run it again, read its per-class results filtered, averaged or ordered, list the
//! misclassified documents, save the confusion-matrix plot, and the standard list, show and
//! delete.
use super::mlp_index::{create, RunArgs};
use super::resources::{self, project_for, ProjectFlag, StandardCmd};
use super::Target;
use crate::engine::error::{Error, Result};
use crate::engine::evaluation::Average;
use crate::engine::evaluators::OrderBy;
use crate::engine::resources::Kind;
use crate::engine::Engine;
use clap::{Args, Subcommand};
use serde_json::{json, Map, Value};
use std::path::PathBuf;

/// Which evaluator.
#[derive(Args, Debug)]
pub struct EvaluatorRef {
    /// Evaluator id
    id: i64,
    #[command(flatten)]
    p: ProjectFlag,
}

/// Which classes the per-class commands take.
#[derive(Args, Debug)]
pub struct ClassFilterArgs {
    /// Least number of documents where a class is true or predicted [default: 1]
    #[arg(long)]
    min_count: Option<i64>,
    /// Most number of documents where a class is true or predicted [default: no limit]
    #[arg(long)]
    max_count: Option<i64>,
    /// Score bounds of a metric: METRIC:MIN:MAX, e.g. f1_score:0.5:1 (repeat for several)
    #[arg(long = "restrict")]
    restrictions: Vec<String>,
}

#[derive(Subcommand, Debug)]
pub enum EvaluatorCmd {
    #[command(flatten)]
    Standard(StandardCmd),
    /// Score the predicted fact against the true fact over the selected documents (a task)
    Create {
        #[command(flatten)]
        run: RunArgs,
        /// Fact holding the true labels
        #[arg(long)]
        true_fact: String,
        /// Fact holding the predicted labels
        #[arg(long)]
        predicted_fact: String,
        /// With --predicted-fact-value: a binary evaluation of this value of the true fact
        #[arg(long)]
        true_fact_value: Option<String>,
        /// With --true-fact-value: a binary evaluation of this value of the predicted fact
        #[arg(long)]
        predicted_fact_value: Option<String>,
        /// How precision, recall and F1 are averaged [default: macro]
        #[arg(long, value_parser = super::choice::of::<Average>())]
        average: Option<String>,
        /// Keep no per-class results (multilabel)
        #[arg(long)]
        no_individual_results: bool,
        /// Documents read per batch [default: 500]
        #[arg(long)]
        scroll_size: Option<i64>,
    },
    /// Score again, over the documents as they are now (a task)
    Reevaluate(EvaluatorRef),
    /// The mean scores of the classes a count range and score bounds take (multilabel)
    FilteredAverage {
        #[command(flatten)]
        evaluator: EvaluatorRef,
        #[command(flatten)]
        filter: ClassFilterArgs,
    },
    /// The scores of each class a count range and score bounds take, ordered (multilabel)
    IndividualResults {
        #[command(flatten)]
        evaluator: EvaluatorRef,
        #[command(flatten)]
        filter: ClassFilterArgs,
        /// Order of the classes
        #[arg(long, value_parser = super::choice::of::<OrderBy>())]
        order_by: Option<String>,
        /// Descending order
        #[arg(long)]
        desc: bool,
    },
    /// The selected documents whose true and predicted labels differ
    Misclassified {
        #[command(flatten)]
        evaluator: EvaluatorRef,
        /// Most documents listed [default: 100]
        #[arg(long)]
        size: Option<i64>,
        /// Only documents where this value is among exactly one of the true and predicted labels
        #[arg(long)]
        label: Option<String>,
    },
    /// Save the confusion matrix of the last run as a PNG
    Plot {
        #[command(flatten)]
        evaluator: EvaluatorRef,
        /// File to write
        #[arg(short, long)]
        output: PathBuf,
    },
}

/// The body of a class filter: counts and `METRIC:MIN:MAX` restrictions.
fn filter_body(a: &ClassFilterArgs) -> Result<Value> {
    let mut restrictions = Map::new();
    for spec in &a.restrictions {
        let bounds = match spec.split(':').collect::<Vec<_>>()[..] {
            [metric, low, high] => low.parse::<f64>().ok().zip(high.parse::<f64>().ok()).map(|b| (metric, b)),
            _ => None,
        };
        let (metric, (low, high)) = bounds.ok_or_else(|| Error::BadRequest(format!("--restrict {spec}: expected METRIC:MIN:MAX")))?;
        restrictions.insert(metric.to_string(), json!({"min_score": low, "max_score": high}));
    }
    let mut body = json!({ "metric_restrictions": restrictions });
    for (key, value) in [("min_count", a.min_count), ("max_count", a.max_count)] {
        if let Some(n) = value {
            body[key] = json!(n);
        }
    }
    Ok(body)
}

/// `POST evaluators/{id}/<action>/` with `body`.
fn action(t: &Target, e: &EvaluatorRef, action: &str, body: &Value) -> Result<Value> {
    let pk = project_for(t, &e.p, Kind::Evaluator, e.id)?;
    t.request("POST", &format!("/projects/{pk}/evaluators/{}/{action}/", e.id), Some(body))
}

pub fn run(t: &Target, c: &EvaluatorCmd) -> Result<Option<Value>> {
    let out = match c {
        EvaluatorCmd::Standard(c) => return resources::run(t, Kind::Evaluator, c),
        EvaluatorCmd::Create {
            run,
            true_fact,
            predicted_fact,
            true_fact_value,
            predicted_fact_value,
            average,
            no_individual_results,
            scroll_size,
        } => {
            let mut body = json!({
                "true_fact": true_fact,
                "predicted_fact": predicted_fact,
                "add_individual_results": !no_individual_results,
            });
            for (key, value) in [
                ("true_fact_value", json!(true_fact_value)),
                ("predicted_fact_value", json!(predicted_fact_value)),
                ("average_function", json!(average)),
                ("scroll_size", json!(scroll_size)),
            ] {
                if !value.is_null() {
                    body[key] = value;
                }
            }
            create(t, Kind::Evaluator, run, body, Engine::create_evaluator)?
        }
        EvaluatorCmd::Reevaluate(e) => {
            let pk = project_for(t, &e.p, Kind::Evaluator, e.id)?;
            resources::task_action(
                t,
                (Kind::Evaluator, pk, e.id),
                ("reevaluate", &json!({})),
                |engine, ctx, observer| engine.reevaluate(ctx, pk, e.id, Some(observer)).map(drop),
            )?
        }
        EvaluatorCmd::FilteredAverage { evaluator, filter } => action(t, evaluator, "filtered_average", &filter_body(filter)?)?,
        EvaluatorCmd::IndividualResults {
            evaluator,
            filter,
            order_by,
            desc,
        } => {
            let mut body = filter_body(filter)?;
            body["order_desc"] = json!(desc);
            if let Some(order) = order_by {
                body["order_by"] = json!(order);
            }
            action(t, evaluator, "individual_results", &body)?
        }
        EvaluatorCmd::Misclassified { evaluator, size, label } => {
            let mut body = json!({});
            if let Some(n) = size {
                body["size"] = json!(n);
            }
            if let Some(l) = label {
                body["label"] = json!(l);
            }
            action(t, evaluator, "misclassified_documents", &body)?
        }
        EvaluatorCmd::Plot { evaluator, output } => {
            let pk = project_for(t, &evaluator.p, Kind::Evaluator, evaluator.id)?;
            let bytes = t.download(&format!("/projects/{pk}/evaluators/{}/plot/", evaluator.id))?;
            std::fs::write(output, &bytes).map_err(|e| Error::BadRequest(format!("cannot write {}: {e}", output.display())))?;
            json!({"file": output, "bytes": bytes.len()})
        }
    };
    Ok(Some(out))
}
