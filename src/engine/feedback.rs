//! Feedback on predictions (`api.md` Appendix A; TEXTA's web client reads `feedback.id`): a
//! tag_text or tag_doc of a tagger or torch tagger with `feedback_enabled` keeps what was
//! asked and what the model answered under a new id, returned as `feedback: {id, url}`; a
//! user then records the correct result against that id (`POST {id}/feedback/`), lists the
//! model's records (`GET`) or removes them (`DELETE`). The project's whole feedback is under
//! `/projects/{p}/feedback/`. Records go with their model and their project.
use super::error::{Error, Result};
use super::resources::{Kind, Resource};
use super::validate::{Form, Mode, Str};
use super::{clock, Ctx, Engine};
use rusqlite::{params, Params};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// `feedback` of a tagging answer: where the prediction was kept.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct FeedbackLink {
    pub id: String,
    /// The model's feedback route, where the correct result is posted.
    pub url: String,
}

/// A kept prediction.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct FeedbackOut {
    pub id: String,
    /// The model's label, e.g. `tagger.Tagger`.
    pub model_type: String,
    pub model_id: i64,
    /// What was tagged: the text of tag_text, the document of tag_doc.
    #[schema(value_type = Object)]
    pub input: Value,
    /// The model's answer, as it was returned.
    #[schema(value_type = Object)]
    pub prediction: Value,
    /// The result a user gave as correct; null until one is given.
    pub correct_result: Option<String>,
    pub time_created: String,
    pub time_updated: Option<String>,
}

/// `{"feedback_id", "correct_result"}` of POST feedback/.
#[derive(Deserialize, utoipa::ToSchema)]
pub struct FeedbackIn {
    pub feedback_id: String,
    /// The correct result, e.g. `true`/`false` for a tagger or a class of a torch tagger.
    pub correct_result: String,
}

/// `{"success"}` of a removal, naming how many records went.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct FeedbackDeleted {
    pub success: String,
}

/// The models that keep feedback.
fn check_kind(kind: Kind) -> Result<()> {
    match kind {
        Kind::Tagger | Kind::TorchTagger => Ok(()),
        other => Err(Error::internal(format!("{} keeps no feedback", other.tag()))),
    }
}

const COLUMNS: &str = "id, model_kind, model_id, input, prediction, correct_result, time_created, time_updated";

/// A row of [`COLUMNS`] as the wire shows it.
fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<FeedbackOut> {
    let kind: String = r.get(1)?;
    let json = |i: usize| -> rusqlite::Result<Value> { Ok(serde_json::from_str(&r.get::<_, String>(i)?).unwrap_or(Value::Null)) };
    Ok(FeedbackOut {
        id: r.get(0)?,
        model_type: Kind::ALL
            .iter()
            .find(|k| k.tag() == kind)
            .map_or(kind.clone(), |k| k.model_label().to_string()),
        model_id: r.get(2)?,
        input: json(3)?,
        prediction: json(4)?,
        correct_result: r.get(5)?,
        time_created: r.get(6)?,
        time_updated: r.get(7)?,
    })
}

fn deleted(n: usize) -> FeedbackDeleted {
    FeedbackDeleted {
        success: format!("Deleted {n} feedback record(s)."),
    }
}

impl Engine {
    /// The records that `filter` (an SQL condition on `args`) selects, oldest first.
    fn feedback_rows(&self, filter: &str, args: impl Params) -> Result<Vec<FeedbackOut>> {
        self.db.with(|c| {
            let sql = format!("SELECT {COLUMNS} FROM feedback WHERE {filter} ORDER BY rowid");
            let mut st = c.prepare_cached(&sql)?;
            let rows = st.query_map(args, row)?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
        })
    }

    /// Keeps the prediction of model `r` (of `kind`) on `input`: the link for the answer.
    pub fn keep_feedback(
        &self,
        ctx: &Ctx,
        (kind, r): (Kind, &Resource),
        input: &Value,
        prediction: &impl Serialize,
    ) -> Result<FeedbackLink> {
        check_kind(kind)?;
        let id = super::search::generate_id();
        let prediction = serde_json::to_string(prediction).map_err(Error::internal)?;
        self.db.with(|c| {
            c.prepare_cached(
                "INSERT INTO feedback (id, project_id, model_kind, model_id, input, prediction, time_created)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?
            .execute(params![
                id,
                r.project_id,
                kind.tag(),
                r.id,
                input.to_string(),
                prediction,
                clock::now()
            ])?;
            Ok(())
        })?;
        Ok(FeedbackLink {
            url: format!("{}/projects/{}/{}/{}/feedback/", ctx.base_url, r.project_id, kind.route(), r.id),
            id,
        })
    }

    /// GET {taggers|torchtaggers}/{id}/feedback/: the model's records, oldest first.
    pub fn model_feedback(&self, ctx: &Ctx, kind: Kind, pk: i64, id: i64) -> Result<Vec<FeedbackOut>> {
        check_kind(kind)?;
        self.check_project_access(ctx, pk)?;
        self.resource(kind, pk, id)?;
        self.feedback_rows("model_kind = ?1 AND model_id = ?2", params![kind.tag(), id])
    }

    /// POST {taggers|torchtaggers}/{id}/feedback/ `{feedback_id, correct_result}`: the record
    /// with its correct result.
    pub fn give_feedback(&self, ctx: &Ctx, kind: Kind, pk: i64, id: i64, body: &Value) -> Result<FeedbackOut> {
        check_kind(kind)?;
        self.check_project_access(ctx, pk)?;
        self.resource(kind, pk, id)?;
        let mut f = Form::new(body, Mode::Full)?;
        let feedback_id = f.string("feedback_id", Str::REQUIRED);
        let correct = f.string("correct_result", Str::REQUIRED);
        f.finish()?;
        let (feedback_id, correct) = (feedback_id.unwrap_or_default(), correct.unwrap_or_default());
        self.db.tx(|c| {
            let changed = c
                .prepare_cached(
                    "UPDATE feedback SET correct_result = ?1, time_updated = ?2
                     WHERE id = ?3 AND model_kind = ?4 AND model_id = ?5",
                )?
                .execute(params![correct, clock::now(), feedback_id, kind.tag(), id])?;
            if changed == 0 {
                return Err(Error::field(
                    "feedback_id",
                    format!("No feedback with id {feedback_id} for this model."),
                ));
            }
            let sql = format!("SELECT {COLUMNS} FROM feedback WHERE id = ?1");
            Ok(c.prepare_cached(&sql)?.query_row([&feedback_id], row)?)
        })
    }

    /// DELETE {taggers|torchtaggers}/{id}/feedback/: removes the model's records.
    pub fn delete_model_feedback(&self, ctx: &Ctx, kind: Kind, pk: i64, id: i64) -> Result<FeedbackDeleted> {
        check_kind(kind)?;
        self.check_project_access(ctx, pk)?;
        self.resource(kind, pk, id)?;
        let n = self.db.with(|c| {
            Ok(c.prepare_cached("DELETE FROM feedback WHERE model_kind = ?1 AND model_id = ?2")?
                .execute(params![kind.tag(), id])?)
        })?;
        Ok(deleted(n))
    }

    /// GET /projects/{p}/feedback/: every record of the project's models, oldest first.
    pub fn project_feedback(&self, ctx: &Ctx, pk: i64) -> Result<Vec<FeedbackOut>> {
        self.check_project_access(ctx, pk)?;
        self.feedback_rows("project_id = ?1", [pk])
    }

    /// DELETE /projects/{p}/feedback/: removes the project's records.
    pub fn delete_project_feedback(&self, ctx: &Ctx, pk: i64) -> Result<FeedbackDeleted> {
        self.check_project_access(ctx, pk)?;
        let n = self
            .db
            .with(|c| Ok(c.prepare_cached("DELETE FROM feedback WHERE project_id = ?1")?.execute([pk])?))?;
        Ok(deleted(n))
    }
}
