//! Embeddings as project resources (`api.md` §5, `models.md` §3): validation, storage, the
//! training task (sentences from index fields through the text processor, then
//! `embedding::train`), the model file, similar words and phrase_text. The phraser of an
//! embedding also serves the taggers that name it. The learning lives in `embedding`.
use super::classifier::{self, Hooks, ProcessorOptions, TextProcessor};
use super::embedding::{self, Embedding, EmbeddingError, Similar};
use super::error::{Error, Result};
use super::indices::{parse_index_objects, IndexOut};
use super::kinds::ResourceKind;
use super::models::ModelFile;
use super::resources::{resource_url, Kind, Resource};
use super::sample::{field_texts, SCAN_BATCH};
use super::taggers::{match_all, parse_query};
use super::tasks::{Observer, TaskHandle, TaskKind, TaskOut};
use super::validate::{Form, List, Mode, Str};
use super::{Ctx, Engine};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::Arc;

/// The embedding resource on the wire, fields in the reference's order.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct EmbeddingOut {
    pub id: i64,
    pub url: String,
    pub author_username: String,
    pub description: String,
    pub indices: Vec<IndexOut>,
    pub fields: Vec<String>,
    /// The query as a JSON string.
    pub query: String,
    pub num_dimensions: i64,
    pub max_documents: i64,
    pub min_freq: i64,
    pub vocab_size: i64,
    pub task: Option<TaskOut>,
}

/// The body that creates or changes an embedding.
#[derive(Clone, Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct EmbeddingIn {
    pub description: String,
    pub fields: Vec<String>,
    pub indices: Option<Vec<super::operations::regex::IndexName>>,
    #[schema(value_type = Option<Object>)]
    pub query: Option<Value>,
    /// Vector width (default 100).
    pub num_dimensions: Option<i64>,
    /// Documents to read, 0 = all (default).
    pub max_documents: Option<i64>,
    /// Least count of a word in the vocabulary (default 5).
    pub min_freq: Option<i64>,
    /// Training threads (ta extension; default 1, at most 64; not in the response). 1 trains
    /// seeded and reproducibly, bit for bit; more train lock-free in parallel (Hogwild):
    /// faster on several cores, but two runs no longer give the same vectors.
    pub threads: Option<i64>,
}

/// What is stored per embedding besides the description.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
struct Stored {
    fields: Vec<String>,
    indices: Vec<String>,
    query: Value,
    num_dimensions: i64,
    max_documents: i64,
    min_freq: i64,
    #[serde(default)]
    vocab_size: i64,
    /// Training threads (ta extension), kept so a retrain or retry trains the same way.
    #[serde(default = "one_thread")]
    threads: i64,
}

fn one_thread() -> i64 {
    1
}

impl Default for Stored {
    fn default() -> Self {
        Stored {
            fields: Vec::new(),
            indices: Vec::new(),
            query: match_all(),
            num_dimensions: 100,
            max_documents: 0,
            min_freq: 5,
            vocab_size: 0,
            threads: one_thread(),
        }
    }
}

fn stored(r: &Resource) -> Stored {
    serde_json::from_value(r.config.clone()).unwrap_or_default()
}

/// The `threads` request field (ta extension), 1 to `embedding::MAX_WORKERS`.
fn threads(f: &mut Form) -> Option<i64> {
    f.integer("threads", false, Some(1), Some(embedding::MAX_WORKERS as i64))
}

fn embedding_error(e: EmbeddingError) -> Error {
    Error::BadRequest(e.to_string())
}

/// An embedding's phraser, joining word pairs for the taggers that use it.
struct EmbeddingPhraser(Arc<Embedding>);

impl classifier::Phraser for EmbeddingPhraser {
    fn phrase(&self, tokens: Vec<String>) -> Vec<String> {
        self.0.phraser().phrase(tokens)
    }
}

/// The embedding text processor (`models.md` 0.2): sentences split on newlines, built-in
/// stop words removed.
fn processor() -> TextProcessor {
    TextProcessor::new(&ProcessorOptions {
        sentences: true,
        remove_stop_words: true,
        custom_stop_words: String::new(),
        ..Default::default()
    })
}

impl Engine {
    fn parse_embedding(&self, pk: i64, body: &Value, mode: Mode, base: &Stored, description: &str) -> Result<(String, Stored)> {
        let mut s = base.clone();
        let mut f = Form::new(body, mode)?;
        let description = f
            .string("description", Str::REQUIRED.max(1000))
            .unwrap_or_else(|| description.to_string());
        if let Some(indices) = parse_index_objects(&mut f, "indices")? {
            s.indices = indices;
        }
        if let Some(fields) = f.strings("fields", List::REQUIRED, Str::REQUIRED) {
            self.check_project_fields(&mut f, pk, &fields)?;
            s.fields = fields;
        }
        if let Some(q) = parse_query(&mut f) {
            s.query = q;
        }
        if let Some(v) = f.integer("num_dimensions", false, Some(1), Some(embedding::MAX_DIMENSIONS as i64)) {
            s.num_dimensions = v;
        }
        if let Some(v) = f.integer("max_documents", false, Some(0), None) {
            s.max_documents = v;
        }
        if let Some(v) = f.integer("min_freq", false, Some(1), None) {
            s.min_freq = v;
        }
        if let Some(v) = threads(&mut f) {
            s.threads = v;
        }
        f.finish()?;
        self.resolve_indices(pk, Some(s.indices.clone()))?;
        Ok((description, s))
    }

    fn render_embedding(&self, ctx: &Ctx, r: &Resource) -> Result<EmbeddingOut> {
        let s = stored(r);
        Ok(EmbeddingOut {
            id: r.id,
            url: resource_url(ctx, r.project_id, Kind::Embedding, r.id),
            author_username: r.author_username.clone(),
            description: r.description.clone(),
            indices: self.index_objects(ctx, &s.indices)?,
            fields: s.fields.clone(),
            query: super::pytext::json_dumps(&s.query),
            num_dimensions: s.num_dimensions,
            max_documents: s.max_documents,
            min_freq: s.min_freq,
            vocab_size: s.vocab_size,
            task: self.linked_task(r)?,
        })
    }

    /// Validates and stores an embedding and starts its training: in the background, or with
    /// an observer (local CLI) in the foreground.
    pub fn create_embedding(self: &Arc<Self>, ctx: &Ctx, pk: i64, body: &Value, observer: Option<Observer>) -> Result<EmbeddingOut> {
        self.check_project_access(ctx, pk)?;
        let (description, s) = self.parse_embedding(pk, body, Mode::Full, &Stored::default(), "")?;
        let id = self.insert_resource(
            Kind::Embedding,
            ctx,
            pk,
            &description,
            &serde_json::to_value(&s).map_err(Error::internal)?,
        )?;
        let (_, start) = self.prepare_embedding_training(pk, id)?;
        let created = self.get_of::<Embeddings>(ctx, pk, id)?;
        start(observer);
        Ok(created)
    }

    /// Starts (or restarts) training of a stored embedding; returns the task id.
    pub fn start_embedding_training(self: &Arc<Self>, pk: i64, id: i64, observer: Option<Observer>) -> Result<i64> {
        let (task, start) = self.prepare_embedding_training(pk, id)?;
        start(observer);
        Ok(task)
    }

    /// The task row of a training run and the closure that runs it (created first, so the
    /// resource shows the `created` task before training begins).
    fn prepare_embedding_training(self: &Arc<Self>, pk: i64, id: i64) -> Result<(i64, impl FnOnce(Option<Observer>))> {
        let task = self.create_task(&TaskKind::TrainEmbedding { embedding: id }, Some(pk))?;
        self.set_resource_task(Kind::Embedding, id, task)?;
        let engine = self.clone();
        let start = move |observer| {
            let runner = engine.clone();
            engine.run_task(task, Box::new(move |h| runner.train_embedding(pk, id, h)), observer)
        };
        Ok((task, start))
    }

    /// The training task: the corpus (documents matching the query, their fields' sentences),
    /// the phraser and word2vec, the model file written atomically, `vocab_size` stored.
    fn train_embedding(&self, pk: i64, id: i64, h: &TaskHandle) -> Result<()> {
        let r = self.resource(Kind::Embedding, pk, id)?;
        let s = stored(&r);
        let sentences = self.index_sentences(pk, &s, h)?;
        self.fit_embedding(&r, s, sentences, h)
    }

    /// The corpus of an embedding from its indices: every field value of the documents
    /// matching its query (up to `max_documents`), through the embedding text processor.
    fn index_sentences(&self, pk: i64, s: &Stored, h: &TaskHandle) -> Result<Vec<Vec<String>>> {
        let indices = self.resolve_indices(pk, Some(s.indices.clone()))?;
        if indices.is_empty() {
            return Err(Error::BadRequest("no indices".into()));
        }
        h.step("reading documents")?;
        let p = processor();
        let limit = usize::try_from(s.max_documents).ok().filter(|n| *n > 0).unwrap_or(usize::MAX);
        let (mut sentences, mut documents) = (Vec::new(), 0usize);
        self.scan_documents(&indices, &s.query, SCAN_BATCH, &mut |hits| {
            for hit in hits {
                if documents >= limit {
                    break;
                }
                documents += 1;
                for text in field_texts(&hit.source, &s.fields) {
                    sentences.extend(p.process(&text, &Hooks::default()));
                }
            }
            Ok(())
        })?;
        Ok(sentences)
    }

    /// Trains on `sentences` (phraser, then word2vec), writes the model file and stores
    /// `vocab_size`.
    fn fit_embedding(&self, r: &Resource, mut s: Stored, mut sentences: Vec<Vec<String>>, h: &TaskHandle) -> Result<()> {
        let id = r.id;
        let settings = embedding::Settings {
            num_dimensions: usize::try_from(s.num_dimensions).unwrap_or(100),
            min_freq: u64::try_from(s.min_freq).unwrap_or(5),
            ..embedding::Settings::default()
        };
        let mut passes = 0;
        let corpus = || {
            passes += 1;
            if passes == 1 {
                sentences.clone()
            } else {
                std::mem::take(&mut sentences)
            }
        };
        let mut report = |p: embedding::Progress| {
            let step = match p.step {
                embedding::Step::BuildingPhraser => "building phraser",
                embedding::Step::BuildingVocabulary => "building vocabulary",
                embedding::Step::Training => "building embedding",
            };
            h.step(step)
                .and_then(|_| h.progress(p.sentences as i64, p.fraction * 100.0))
                .is_ok()
        };
        let workers = usize::try_from(s.threads).unwrap_or(1);
        let model = embedding::train(&settings, workers, corpus, &mut report).map_err(embedding_error)?;
        h.step("saving")?;
        ModelFile::write(&self.model_file(Kind::Embedding, id, "model"), &model.to_bytes())?;
        self.models.evict(Kind::Embedding, id);
        s.vocab_size = model.vocab_size() as i64;
        // The description may have been changed while training ran: keep the stored one.
        self.edit_resource(Kind::Embedding, r.project_id, id, |now| {
            self.store_config(Kind::Embedding, id, &now.description, &s)
        })
    }

    /// POST embeddings/train_file/ (ta extension, multipart): trains an embedding on the
    /// `fields` of a JSONL file instead of index documents; with an observer (local CLI) in
    /// the foreground.
    pub fn train_embedding_file(self: &Arc<Self>, ctx: &Ctx, pk: i64, body: &Value, observer: Option<Observer>) -> Result<EmbeddingOut> {
        self.check_project_access(ctx, pk)?;
        let upload = super::dataset_imports::Upload::from_body(body);
        let result = (|| {
            let mut f = Form::new(body, Mode::Full)?;
            let description = f.string("description", Str::REQUIRED.max(1000));
            let fields = f.strings("fields", List::REQUIRED.non_empty(), Str::REQUIRED);
            let dims = f.integer("num_dimensions", false, Some(1), Some(embedding::MAX_DIMENSIONS as i64));
            let min_freq = f.integer("min_freq", false, Some(1), None);
            let workers = threads(&mut f);
            if upload.is_none() {
                f.fail("file", "No file was submitted.");
            }
            f.finish()?;
            let defaults = Stored::default();
            let s = Stored {
                fields: fields.unwrap_or_default(),
                num_dimensions: dims.unwrap_or(defaults.num_dimensions),
                min_freq: min_freq.unwrap_or(defaults.min_freq),
                threads: workers.unwrap_or(defaults.threads),
                ..defaults
            };
            let path = upload.as_ref().map(|u| u.path.clone()).unwrap_or_default();
            let sentences = file_sentences(&path, &s.fields)?;
            let id = self.insert_resource(
                Kind::Embedding,
                ctx,
                pk,
                &description.unwrap_or_default(),
                &serde_json::to_value(&s).map_err(Error::internal)?,
            )?;
            let task = self.create_task(&TaskKind::TrainEmbeddingFromFile { embedding: id }, Some(pk))?;
            self.set_resource_task(Kind::Embedding, id, task)?;
            let engine = self.clone();
            self.run_task(
                task,
                Box::new(move |h| {
                    let r = engine.resource(Kind::Embedding, pk, id)?;
                    engine.fit_embedding(&r, stored(&r), sentences, h)
                }),
                observer,
            );
            self.get_of::<Embeddings>(ctx, pk, id)
        })();
        if let Some(u) = upload.filter(|u| u.owned) {
            let _ = std::fs::remove_file(&u.path);
        }
        result
    }

    /// The loaded embedding, or the reference's 400 when it is not trained yet.
    pub fn embedding_model(&self, pk: i64, id: i64) -> Result<Arc<Embedding>> {
        self.models
            .get_or_load(Kind::Embedding, id, &self.model_file(Kind::Embedding, id, "model"), |b| {
                Embedding::from_bytes(b).map_err(embedding_error)
            })?
            .filter(|_| self.resource(Kind::Embedding, pk, id).is_ok())
            .ok_or_else(|| Error::BadRequest("Model does not exist".into()))
    }

    /// The phraser a tagger's `embedding` gives it (none without one).
    pub fn embedding_phraser(&self, pk: i64, embedding: Option<i64>) -> Result<Option<Arc<dyn classifier::Phraser>>> {
        match embedding {
            None => Ok(None),
            Some(id) => Ok(Some(Arc::new(EmbeddingPhraser(self.embedding_model(pk, id)?)))),
        }
    }

    /// POST embeddings/{id}/predict_similar/ `{positives, negatives, output_size}`.
    pub fn predict_similar(&self, ctx: &Ctx, pk: i64, id: i64, body: &Value) -> Result<Vec<SimilarOut>> {
        self.check_project_access(ctx, pk)?;
        let r = self.resource(Kind::Embedding, pk, id)?;
        let mut f = Form::new(body, Mode::Full)?;
        let positives = f.strings("positives", List::REQUIRED, Str::REQUIRED);
        let negatives = f.strings("negatives", List::OPTIONAL, Str::REQUIRED);
        let size = f.integer("output_size", false, Some(1), Some(10_000)).unwrap_or(10);
        f.finish()?;
        let model = self.embedding_model(pk, id)?;
        let found: Vec<Similar> = model.most_similar(&positives.unwrap_or_default(), &negatives.unwrap_or_default(), size as usize);
        Ok(found
            .into_iter()
            .map(|s| SimilarOut {
                phrase: s.phrase,
                score: f64::from(s.score),
                model: r.description.clone(),
            })
            .collect())
    }

    /// POST embeddings/{id}/phrase_text/ `{text}` → the phrased text.
    pub fn phrase_text(&self, ctx: &Ctx, pk: i64, id: i64, body: &Value) -> Result<String> {
        self.check_project_access(ctx, pk)?;
        self.resource(Kind::Embedding, pk, id)?;
        let mut f = Form::new(body, Mode::Full)?;
        let text = f.string("text", super::regex_taggers::TEXT);
        f.finish()?;
        Ok(self.embedding_model(pk, id)?.phrase_text(&text.unwrap_or_default()))
    }
}

/// The sentences of the `fields` of every line of a JSONL file (a line that is a plain
/// JSON string is a text of its own).
fn file_sentences(path: &std::path::Path, fields: &[String]) -> Result<Vec<Vec<String>>> {
    let file = std::fs::File::open(path).map_err(|e| Error::BadRequest(format!("cannot read the corpus file: {e}")))?;
    let mut sentences = Vec::new();
    corpus_sentences(std::io::BufReader::new(file), fields, &mut |sentence| {
        sentences.push(sentence);
        Ok(())
    })?;
    Ok(sentences)
}

/// Calls `each` with every sentence of a JSONL corpus as embedding training reads it: the
/// `fields` of every line (a line that is a plain JSON string is a text of its own) through
/// the embedding text processor, in order, not yet phrased.
pub fn corpus_sentences(input: impl std::io::BufRead, fields: &[String], each: &mut dyn FnMut(Vec<String>) -> Result<()>) -> Result<()> {
    let p = processor();
    for (n, line) in input.lines().enumerate() {
        let line = line.map_err(|e| Error::BadRequest(format!("corpus file, line {}: {e}", n + 1)))?;
        if line.trim().is_empty() {
            continue;
        }
        let doc: Value =
            serde_json::from_str(&line).map_err(|e| Error::BadRequest(format!("corpus file, line {}: not JSON: {e}", n + 1)))?;
        let texts = match &doc {
            Value::String(t) => vec![t.clone()],
            _ => field_texts(&doc, fields),
        };
        for text in texts {
            for sentence in p.process(&text, &Hooks::default()) {
                each(sentence)?;
            }
        }
    }
    Ok(())
}

/// The checked embedding in an export archive.
pub fn exported_model(archive: &super::export::Archive) -> Result<Embedding> {
    let model = archive
        .files
        .get("model.bin")
        .ok_or_else(|| Error::field("file", "The export holds no model."))?;
    Embedding::from_bytes(model).map_err(|e| Error::field("file", e.to_string()))
}

/// One `predict_similar` answer item.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct SimilarOut {
    pub phrase: String,
    pub score: f64,
    pub model: String,
}

/// The embedding kind (`/projects/{pk}/embeddings/`).
pub struct Embeddings;

impl ResourceKind for Embeddings {
    const KIND: Kind = Kind::Embedding;
    const NOUN: &'static str = "embedding";
    type Out = EmbeddingOut;
    type In = EmbeddingIn;

    fn render(e: &Engine, ctx: &Ctx, r: &Resource) -> Result<EmbeddingOut> {
        e.render_embedding(ctx, r)
    }

    fn create(e: &Arc<Engine>, ctx: &Ctx, pk: i64, body: &Value) -> Result<EmbeddingOut> {
        e.create_embedding(ctx, pk, body, None)
    }

    fn update(e: &Engine, r: &Resource, body: &Value, mode: Mode) -> Result<()> {
        let (description, s) = e.parse_embedding(r.project_id, body, mode, &stored(r), &r.description)?;
        e.store_config(Kind::Embedding, r.id, &description, &s)
    }

    /// Taggers and neural taggers built on the embedding lose the link (`models.md` 3.5);
    /// the model file goes.
    fn deleting(e: &Engine, r: &Resource) -> Result<()> {
        for kind in [Kind::Tagger, Kind::TorchTagger] {
            for mut t in e.all_resources(kind, r.project_id)? {
                if t.config["embedding"] == r.id {
                    t.config["embedding"] = Value::Null;
                    e.update_resource(kind, t.id, &t.description, &t.config)?;
                    e.models.evict(kind, t.id);
                }
            }
        }
        e.remove_model_files(Kind::Embedding, r.id);
        Ok(())
    }
}

impl Engine {
    /// GET embeddings/{id}/export_model/: settings, vocabulary, vectors and phraser in one file.
    pub fn export_embedding(&self, ctx: &Ctx, pk: i64, id: i64) -> Result<Vec<u8>> {
        self.check_project_access(ctx, pk)?;
        let r = self.resource(Kind::Embedding, pk, id)?;
        self.export_trained(Kind::Embedding, &r)
    }

    /// POST embeddings/import_model/ (multipart `file`): a new embedding from an export.
    pub fn import_embedding(&self, ctx: &Ctx, pk: i64, body: &Value) -> Result<EmbeddingOut> {
        self.check_project_access(ctx, pk)?;
        let archive = self.uploaded_export(body, "embedding")?;
        let model = exported_model(&archive)?;
        let mut s: Stored =
            serde_json::from_value(archive.config).map_err(|e| Error::field("file", format!("Unreadable embedding settings: {e}")))?;
        s.indices.clear();
        let id = self.insert_resource(
            Kind::Embedding,
            ctx,
            pk,
            &archive.description,
            &serde_json::to_value(&s).map_err(Error::internal)?,
        )?;
        ModelFile::write(&self.model_file(Kind::Embedding, id, "model"), &model.to_bytes())?;
        let task = self.create_task(&TaskKind::ImportModel, Some(pk))?;
        self.set_resource_task(Kind::Embedding, id, task)?;
        self.run_task(task, Box::new(|_| Ok(())), Some(Box::new(|_| {})));
        self.get_of::<Embeddings>(ctx, pk, id)
    }
}
