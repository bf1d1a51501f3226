//! Taggers from and to files: training from a labelled JSONL file (`train_file`, a ta
//! extension), and the one-file export and import of a trained tagger.
use super::classifier::Model;
use super::error::{Error, Result};
use super::lines::flat_get;
use super::models::ModelFile;
use super::resources::Kind;
use super::sample::field_texts;
use super::taggers::{Examples, Stored, TaggerOut, Taggers};
use super::tasks::{Observer, TaskKind};
use super::validate::{Form, List, Mode, Str};
use super::{Ctx, Engine};
use serde_json::Value;
use std::sync::Arc;

/// What `train_file` reads from its form besides the file.
struct FileTraining {
    description: String,
    stored: Stored,
    label_field: String,
    positive: String,
}

/// One line of an examples file: its label and its field texts, or nothing to learn from.
type ExampleLine = Option<(String, Vec<String>)>;

/// Labelled examples from a JSONL file: lines whose `label_field` equals `positive` are
/// positives, every other labelled line a negative; lines without the label are skipped. Lines
/// are parsed in parallel; an error names the first bad line.
fn read_examples(path: &std::path::Path, t: &FileTraining) -> Result<Examples> {
    use rayon::prelude::*;
    let bytes = std::fs::read(path).map_err(|e| Error::BadRequest(format!("cannot read the examples file: {e}")))?;
    let lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    let parsed: Vec<Result<ExampleLine>> = lines
        .par_iter()
        .enumerate()
        .map(|(n, line)| {
            let line = std::str::from_utf8(line.strip_suffix(b"\r").unwrap_or(line))
                .map_err(|_| Error::BadRequest(format!("examples file, line {}: stream did not contain valid UTF-8", n + 1)))?;
            if line.trim().is_empty() {
                return Ok(None);
            }
            let doc: Value =
                serde_json::from_str(line).map_err(|e| Error::BadRequest(format!("examples file, line {}: not JSON: {e}", n + 1)))?;
            let label = match flat_get(&doc, &t.label_field) {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Null) | None => return Ok(None),
                Some(other) => other.to_string(),
            };
            Ok(Some((label, field_texts(&doc, &t.stored.fields))))
        })
        .collect();
    let (mut positives, mut negatives) = (Vec::new(), Vec::new());
    for example in parsed {
        match example? {
            Some((label, texts)) if label == t.positive => positives.push(texts),
            Some((_, texts)) => negatives.push(texts),
            None => {}
        }
    }
    if positives.is_empty() {
        return Err(Error::field(
            "positive",
            format!("No line of the file has {} = {}.", t.label_field, t.positive),
        ));
    }
    if negatives.is_empty() {
        return Err(Error::field(
            "positive",
            format!(
                "Every labelled line has {} = {}: nothing to tell them from.",
                t.label_field, t.positive
            ),
        ));
    }
    Ok(Examples { positives, negatives })
}

impl Engine {
    /// POST taggers/train_file/ (ta extension, multipart): trains a tagger from a labelled
    /// JSONL file instead of index documents. With an observer (local CLI) training runs in
    /// the foreground and the answer carries the figures.
    pub fn train_tagger_file(self: &Arc<Self>, ctx: &Ctx, pk: i64, body: &Value, observer: Option<Observer>) -> Result<TaggerOut> {
        self.check_project_access(ctx, pk)?;
        let upload = super::dataset_imports::Upload::from_body(body);
        let parsed = parse_file_training(body, upload.is_some());
        let result = parsed.and_then(|t| {
            let path = upload.as_ref().map(|u| u.path.clone()).unwrap_or_default();
            let examples = read_examples(&path, &t)?;
            let id = self.insert_resource(
                Kind::Tagger,
                ctx,
                pk,
                &t.description,
                &serde_json::to_value(&t.stored).map_err(Error::internal)?,
            )?;
            self.start_tagger_training(pk, id, Some(examples), observer)?;
            self.get_of::<Taggers>(ctx, pk, id)
        });
        if let Some(u) = upload.filter(|u| u.owned) {
            let _ = std::fs::remove_file(&u.path);
        }
        result
    }
}

fn parse_file_training(body: &Value, file_sent: bool) -> Result<FileTraining> {
    let mut f = Form::new(body, Mode::Full)?;
    let description = f.string("description", Str::REQUIRED.max(1000));
    let fields = f.strings("fields", List::REQUIRED.non_empty(), Str::REQUIRED);
    let label_field = f.string("label_field", Str::REQUIRED);
    let positive = f.string("positive", Str::REQUIRED);
    let vectorizer = f.choice("vectorizer", false);
    let classifier = f.choice("classifier", false);
    if !file_sent {
        f.fail("file", "No file was submitted.");
    }
    f.finish()?;
    let stored = Stored {
        fields: fields.unwrap_or_default(),
        vectorizer: vectorizer.unwrap_or(Stored::default().vectorizer),
        classifier: classifier.unwrap_or(Stored::default().classifier),
        ..Stored::default()
    };
    Ok(FileTraining {
        description: description.unwrap_or_default(),
        stored,
        label_field: label_field.unwrap_or_default(),
        positive: positive.unwrap_or_default(),
    })
}

impl Engine {
    /// GET taggers/{id}/export_model/: the tagger's settings, model and plot in one file.
    pub fn export_tagger(&self, ctx: &Ctx, pk: i64, id: i64) -> Result<Vec<u8>> {
        self.check_project_access(ctx, pk)?;
        let r = self.resource(Kind::Tagger, pk, id)?;
        self.export_trained(Kind::Tagger, &r)
    }

    /// Stores an imported tagger in project `pk`: the model is checked first, links to the
    /// exporting project's objects are dropped, and its task reads completed. Returns its id.
    pub(crate) fn store_imported_tagger(
        &self,
        ctx: &Ctx,
        pk: i64,
        description: &str,
        mut s: Stored,
        model: &[u8],
        plot: Option<&[u8]>,
    ) -> Result<i64> {
        Model::from_bytes(model).map_err(|e| Error::field("file", e.to_string()))?;
        s.embedding = None;
        s.indices.clear();
        let id = self.insert_resource(
            Kind::Tagger,
            ctx,
            pk,
            description,
            &serde_json::to_value(&s).map_err(Error::internal)?,
        )?;
        ModelFile::write(&self.model_file(Kind::Tagger, id, "model"), model)?;
        if let Some(plot) = plot {
            ModelFile::write(&self.model_file(Kind::Tagger, id, "png"), plot)?;
        }
        let task = self.create_task(&TaskKind::ImportModel, Some(pk))?;
        self.set_resource_task(Kind::Tagger, id, task)?;
        self.run_task(task, Box::new(|_| Ok(())), Some(Box::new(|_| {})));
        Ok(id)
    }

    /// POST taggers/import_model/ (multipart `file`): a new tagger from an export; the model
    /// is checked before anything is stored, and tags exactly as the exported one.
    pub fn import_tagger(&self, ctx: &Ctx, pk: i64, body: &Value) -> Result<TaggerOut> {
        self.check_project_access(ctx, pk)?;
        let archive = self.uploaded_export(body, "tagger")?;
        let model = archive
            .files
            .get("model.bin")
            .ok_or_else(|| Error::field("file", "The export holds no model."))?;
        let s: Stored =
            serde_json::from_value(archive.config).map_err(|e| Error::field("file", format!("Unreadable tagger settings: {e}")))?;
        let plot = archive.files.get("plot.png").map(Vec::as_slice);
        let id = self.store_imported_tagger(ctx, pk, &archive.description, s, model, plot)?;
        self.get_of::<Taggers>(ctx, pk, id)
    }
}
