//! Trained model files and the cache of loaded models. A model file is written whole to a
//! temporary name, synced, then renamed over the old one, so a crash or kill mid-write leaves
//! the previous model intact; a loaded model is kept until its file changes or the resource
//! is deleted, so requests never parse a model twice.
use super::error::{Error, Result};
use super::resources::Kind;
use std::any::Any;
use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::sync::{Arc, RwLock};
use std::time::SystemTime;

/// Writing model files.
pub struct ModelFile;

/// The training job of a model kind: `(engine, project, id, examples given instead of sampled, task)`.
pub type TrainJob<E> = fn(&super::Engine, i64, i64, Option<E>, &super::tasks::TaskHandle) -> Result<()>;

impl super::Engine {
    /// Starts (or restarts) training of stored model resource `(kind, id)` of project `pk` as a
    /// new task of `task` (`examples` from a file, else `train` samples the indices); `linked`
    /// runs once the task is linked (`start_linked_task`). In the foreground with an observer.
    pub(super) fn launch_training<E: Send + 'static, T>(
        self: &Arc<Self>,
        (kind, id): (Kind, i64),
        pk: i64,
        task: super::tasks::TaskKind,
        (train, examples): (TrainJob<E>, Option<E>),
        observer: Option<super::tasks::Observer>,
        linked: impl FnOnce() -> Result<T>,
    ) -> Result<(i64, T)> {
        let engine = self.clone();
        let job = Box::new(move |h: &super::tasks::TaskHandle| train(&engine, pk, id, examples, h));
        self.start_linked_task((kind, id), pk, &task, job, observer, linked)
    }

    /// The file `<id>.<ext>` of resource `id` of `kind` (`ext` `model` for the model, `png` for
    /// a plot) under `<data_dir>/models/<route>/`.
    pub fn model_file(&self, kind: Kind, id: i64, ext: &str) -> std::path::PathBuf {
        self.config.data_dir.join("models").join(kind.route()).join(format!("{id}.{ext}"))
    }

    /// The trained files of resource `id` of `kind`: its model and its plot, if any; `None`
    /// before it is trained.
    pub fn trained_files(&self, kind: Kind, id: i64) -> Option<(Vec<u8>, Option<Vec<u8>>)> {
        let model = std::fs::read(self.model_file(kind, id, "model")).ok()?;
        let plot = std::fs::read(self.model_file(kind, id, "png")).ok().filter(|p| !p.is_empty());
        Some((model, plot))
    }

    /// `export_model` of a trained resource: its settings, model and plot in one file; the
    /// reference's 400 before it is trained.
    pub fn export_trained(&self, kind: Kind, r: &super::resources::Resource) -> Result<Vec<u8>> {
        let (model, plot) = self
            .trained_files(kind, r.id)
            .ok_or_else(|| Error::BadRequest("Model does not exist".into()))?;
        let mut files: Vec<(&str, &[u8])> = vec![("model.bin", &model)];
        if let Some(plot) = &plot {
            files.push(("plot.png", plot));
        }
        super::export::write(kind.tag(), &r.description, &r.config, &files)
    }

    /// Forgets the loaded model of resource `id` of `kind` and removes its files.
    pub fn remove_model_files(&self, kind: Kind, id: i64) {
        self.models.evict(kind, id);
        for ext in ["model", "png"] {
            let _ = std::fs::remove_file(self.model_file(kind, id, ext));
        }
    }
}

impl ModelFile {
    /// Replaces `path` with `bytes` atomically (temporary file, fsync, rename).
    pub fn write(path: &Path, bytes: &[u8]) -> Result<()> {
        let dir = path.parent().ok_or_else(|| Error::internal("model path has no directory"))?;
        std::fs::create_dir_all(dir).map_err(Error::internal)?;
        let tmp = path.with_extension(format!("tmp-{}", std::process::id()));
        let written = (|| {
            let mut f = std::fs::File::create(&tmp)?;
            f.write_all(bytes)?;
            f.sync_all()?;
            std::fs::rename(&tmp, path)
        })();
        if written.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        written.map_err(|e| Error::Internal(format!("cannot write {}: {e}", path.display())))
    }
}

type Entry = (SystemTime, Arc<dyn Any + Send + Sync>);

/// Loaded models by resource, with the modification time of the file they came from.
#[derive(Default)]
pub struct ModelCache {
    map: RwLock<HashMap<(Kind, i64), Entry>>,
}

impl ModelCache {
    /// The model of `(kind, id)` loaded from `path` with `load`; `None` when the file does
    /// not exist (not trained yet).
    pub fn get_or_load<T: Send + Sync + 'static>(
        &self,
        kind: Kind,
        id: i64,
        path: &Path,
        load: impl FnOnce(&[u8]) -> Result<T>,
    ) -> Result<Option<Arc<T>>> {
        let Ok(modified) = std::fs::metadata(path).and_then(|m| m.modified()) else {
            return Ok(None);
        };
        if let Some((at, model)) = self.map.read().unwrap_or_else(|p| p.into_inner()).get(&(kind, id)) {
            if *at == modified {
                if let Ok(model) = model.clone().downcast::<T>() {
                    return Ok(Some(model));
                }
            }
        }
        let bytes = std::fs::read(path).map_err(|e| Error::Internal(format!("cannot read {}: {e}", path.display())))?;
        let model = Arc::new(load(&bytes)?);
        self.map
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .insert((kind, id), (modified, model.clone()));
        Ok(Some(model))
    }

    /// Forgets the loaded model of `(kind, id)`.
    pub fn evict(&self, kind: Kind, id: i64) {
        self.map.write().unwrap_or_else(|p| p.into_inner()).remove(&(kind, id));
    }
}
