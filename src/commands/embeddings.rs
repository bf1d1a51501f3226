//! `ta embedding ...`: train word embeddings from index fields or a JSONL corpus, find
//! similar words and phrases, phrase a text, and look inside a model (its phrases, its
//! vocabulary, the sentences it trains on).
use super::resources::{self, project_for, ProjectFlag, StandardCmd, TransferCmd};
use super::{progress, Target};
use crate::engine::embedding::{Embedding, Phraser, MAX_WEIGHT_BYTES};
use crate::engine::embeddings::{corpus_sentences, exported_model};
use crate::engine::error::{Error, Result};
use crate::engine::resources::Kind;
use clap::Subcommand;
use serde_json::{json, Value};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

#[derive(Subcommand, Debug)]
pub enum EmbeddingCmd {
    #[command(flatten)]
    Standard(StandardCmd),
    #[command(flatten)]
    Transfer(TransferCmd),
    /// Create an embedding and train it (phraser + word2vec CBOW) on index documents
    Create {
        /// Project id
        #[arg(long)]
        project: i64,
        /// Name of the embedding
        #[arg(long)]
        description: String,
        /// Field holding the text (dotted path; repeat for several)
        #[arg(long = "field", required = true)]
        fields: Vec<String>,
        /// Index to read (repeat for several) [default: all project indices]
        #[arg(long = "index")]
        indices: Vec<String>,
        /// Elasticsearch query selecting the documents, as JSON [default: all]
        #[arg(long)]
        query: Option<String>,
        /// Vector width
        #[arg(long)]
        dims: Option<i64>,
        /// Least count of a word in the vocabulary
        #[arg(long)]
        min_freq: Option<i64>,
        /// Documents to read (0: all)
        #[arg(long)]
        max_documents: Option<i64>,
        /// Training threads [default: 1, reproducible bit for bit; more is faster, not reproducible]
        #[arg(long)]
        threads: Option<i64>,
    },
    /// Train an embedding on a JSONL corpus (stdin, or --file), no index needed
    Train {
        /// Project id
        #[arg(long)]
        project: i64,
        /// Name of the embedding
        #[arg(long)]
        description: String,
        /// Field holding the text (dotted path; repeat for several)
        #[arg(long = "field", required = true)]
        fields: Vec<String>,
        /// Vector width
        #[arg(long)]
        dims: Option<i64>,
        /// Least count of a word in the vocabulary
        #[arg(long)]
        min_freq: Option<i64>,
        /// Read the corpus from this file instead of stdin
        #[arg(long)]
        file: Option<PathBuf>,
        /// Training threads [default: 1, reproducible bit for bit; more is faster, not reproducible]
        #[arg(long)]
        threads: Option<i64>,
    },
    /// Write the sentences embedding training reads from a JSONL corpus (stdin, or --file):
    /// one JSON array of tokens per line, processed, or phrased with --embedding
    Sentences {
        /// Field holding the text (dotted path; repeat for several)
        #[arg(long = "field", required = true)]
        fields: Vec<String>,
        /// Read the corpus from this file instead of stdin
        #[arg(long)]
        file: Option<PathBuf>,
        /// Join phrases with this embedding's phraser: the tokens word2vec trains on
        #[arg(long)]
        embedding: Option<i64>,
        #[command(flatten)]
        p: ProjectFlag,
    },
    /// The phrases an embedding joins, with their scores
    Phrases {
        /// Embedding id
        id: i64,
        #[command(flatten)]
        p: ProjectFlag,
    },
    /// An embedding's vocabulary with the corpus count of every word, most frequent first
    Vocabulary {
        /// Embedding id
        id: i64,
        #[command(flatten)]
        p: ProjectFlag,
    },
    /// Words and phrases nearest to the given ones
    Similar {
        /// Embedding id
        id: i64,
        /// Words or phrases to be near
        #[arg(required = true)]
        positives: Vec<String>,
        #[command(flatten)]
        p: ProjectFlag,
        /// Word or phrase to be far from (repeat for several)
        #[arg(long = "negative")]
        negatives: Vec<String>,
        /// How many
        #[arg(short = 'n', long, default_value_t = 10)]
        size: i64,
    },
    /// The text with the embedding's phrases joined (`new york` → `new_york`)
    Phrase {
        /// Embedding id
        id: i64,
        /// The text
        text: String,
        #[command(flatten)]
        p: ProjectFlag,
    },
}

pub fn run(t: &Target, c: &EmbeddingCmd) -> Result<Option<Value>> {
    let out = match c {
        EmbeddingCmd::Standard(c) => return resources::run(t, Kind::Embedding, c),
        EmbeddingCmd::Transfer(c) => return resources::transfer(t, Kind::Embedding, c),
        EmbeddingCmd::Create {
            project,
            description,
            fields,
            indices,
            query,
            dims,
            min_freq,
            max_documents,
            threads,
        } => {
            let mut b = json!({"description": description, "fields": fields,
                               "indices": indices.iter().map(|n| json!({"name": n})).collect::<Vec<_>>()});
            if let Some(q) = query {
                b["query"] = serde_json::from_str(q).map_err(|e| Error::BadRequest(format!("--query is not JSON: {e}")))?;
            }
            for (key, v) in [
                ("num_dimensions", dims),
                ("min_freq", min_freq),
                ("max_documents", max_documents),
                ("threads", threads),
            ] {
                if let Some(v) = v {
                    b[key] = json!(v);
                }
            }
            let path = format!("/projects/{project}/embeddings/");
            let created = match t {
                Target::Local { engine, ctx } => {
                    serde_json::to_value(engine.create_embedding(ctx, *project, &b, Some(progress::observer()))?)
                        .map_err(Error::internal)?
                }
                Target::Remote(_) => t.request("POST", &path, Some(&b))?,
            };
            resources::trained(t, Kind::Embedding, *project, &created)?
        }
        EmbeddingCmd::Train {
            project,
            description,
            fields,
            dims,
            min_freq,
            file,
            threads,
        } => {
            let numbers = [("num_dimensions", dims), ("min_freq", min_freq), ("threads", threads)];
            let created = match t {
                Target::Local { engine, ctx } => {
                    let upload = resources::local_upload(engine, file.as_deref())?;
                    let mut b = json!({"description": description, "fields": fields, "file": upload.to_value()});
                    for (key, v) in numbers {
                        if let Some(v) = v {
                            b[key] = json!(v);
                        }
                    }
                    serde_json::to_value(engine.train_embedding_file(ctx, *project, &b, Some(progress::observer()))?)
                        .map_err(Error::internal)?
                }
                Target::Remote(c) => {
                    let mut form = reqwest::blocking::multipart::Form::new().text("description", description.clone());
                    for f in fields {
                        form = form.text("fields", f.clone());
                    }
                    for (key, v) in numbers {
                        if let Some(v) = v {
                            form = form.text(key, v.to_string());
                        }
                    }
                    let form = resources::file_part(form, file.as_deref())?;
                    c.send_multipart(&format!("/projects/{project}/embeddings/train_file/"), form)?
                }
            };
            resources::trained(t, Kind::Embedding, *project, &created)?
        }
        EmbeddingCmd::Similar {
            id,
            positives,
            p,
            negatives,
            size,
        } => {
            let pk = project_for(t, p, Kind::Embedding, *id)?;
            let b = json!({"positives": positives, "negatives": negatives, "output_size": size});
            t.request("POST", &format!("/projects/{pk}/embeddings/{id}/predict_similar/"), Some(&b))?
        }
        EmbeddingCmd::Sentences {
            fields,
            file,
            embedding,
            p,
        } => {
            let phraser = match embedding {
                Some(id) => Some(model(t, p, *id)?.phraser().clone()),
                None => None,
            };
            write_sentences(file.as_deref(), fields, phraser.as_ref())?;
            return Ok(None);
        }
        EmbeddingCmd::Phrases { id, p } => model(t, p, *id)?
            .phraser()
            .bigrams()
            .iter()
            .map(|b| json!({"phrase": b.phrase, "score": b.score}))
            .collect(),
        EmbeddingCmd::Vocabulary { id, p } => {
            let model = model(t, p, *id)?;
            model
                .words()
                .iter()
                .zip(model.counts())
                .map(|(word, count)| json!({"word": word, "count": count}))
                .collect()
        }
        EmbeddingCmd::Phrase { id, text, p } => {
            let pk = project_for(t, p, Kind::Embedding, *id)?;
            t.request(
                "POST",
                &format!("/projects/{pk}/embeddings/{id}/phrase_text/"),
                Some(&json!({"text": text})),
            )?
        }
    };
    Ok(Some(out))
}

/// Embedding `id` as its export file holds it (the same locally and through a server).
fn model(t: &Target, p: &ProjectFlag, id: i64) -> Result<Embedding> {
    let pk = project_for(t, p, Kind::Embedding, id)?;
    let bytes = t.download(&format!("/projects/{pk}/embeddings/{id}/export_model/"))?;
    exported_model(&crate::engine::export::read(&bytes, "embedding", MAX_WEIGHT_BYTES)?)
}

/// Writes the sentences of the corpus (`file`, or stdin) to stdout, phrased by `phraser`
/// when there is one.
fn write_sentences(file: Option<&Path>, fields: &[String], phraser: Option<&Phraser>) -> Result<()> {
    let input: Box<dyn BufRead> = match file {
        Some(f) => Box::new(std::io::BufReader::new(
            std::fs::File::open(f).map_err(|e| Error::BadRequest(format!("cannot read {}: {e}", f.display())))?,
        )),
        None => Box::new(std::io::stdin().lock()),
    };
    let mut out = std::io::BufWriter::with_capacity(1 << 20, std::io::stdout().lock());
    let written = |e: std::io::Error| Error::BadRequest(format!("cannot write the sentences: {e}"));
    corpus_sentences(input, fields, &mut |sentence| {
        let tokens = match phraser {
            Some(phraser) => phraser.phrase(sentence),
            None => sentence,
        };
        serde_json::to_writer(&mut out, &tokens).map_err(Error::internal)?;
        out.write_all(b"\n").map_err(written)
    })?;
    out.flush().map_err(written)
}
