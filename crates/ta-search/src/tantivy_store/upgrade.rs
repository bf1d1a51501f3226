//! Format upgrade: an index written by an earlier ta (another on-disk format) is rewritten in
//! this one's when first opened, from the documents stored in its old segments.

use std::path::{Path, PathBuf};

use tantivy::fastfield::AliveBitSet;
use tantivy::index::SegmentComponent;
use tantivy::schema::Value as _;
use tantivy::store::StoreReader;
use tantivy::{Index, TantivyDocument};

use super::super::backend::Result;
use super::super::source::Source;
use super::{backend_err, build_schema, Pending, StoreIndex, TantivyBackend};

/// Names the on-disk format of an index (sstable term dictionaries, fact documents in blocks,
/// date strings without an offset indexed as UTC dates);
/// an index without this marker, or with another one, was written by an earlier ta and is
/// upgraded when first opened.
const FORMAT_FILE: &str = "ta_format";
/// Prefix of the directory holding an index's old files while it is upgraded.
pub(super) const UPGRADE_PREFIX: &str = ".upgrading-";
const FORMAT: &str = "tantivy-0.27-sstable-blocks-utc-dates\n";

/// Marks `dir` as holding an index in this ta's format.
pub(super) fn mark_current(dir: &Path) -> Result<()> {
    std::fs::write(dir.join(FORMAT_FILE), FORMAT).map_err(backend_err)
}

impl TantivyBackend {
    /// Whether the index `name` (in `dir`) must be upgraded before use: it is not marked as in
    /// this ta's format, or an earlier upgrade of it was cut short.
    pub(super) fn needs_upgrade(&self, name: &str, dir: &Path) -> bool {
        std::fs::read_to_string(dir.join(FORMAT_FILE)).ok().as_deref() != Some(FORMAT) || self.upgrade_dir(name).exists()
    }

    /// Where an index's files wait while `upgrade` rewrites it.
    pub(super) fn upgrade_dir(&self, name: &str) -> PathBuf {
        self.root.join(format!("{UPGRADE_PREFIX}{name}"))
    }

    /// Rewrites an index written by an earlier ta in this one's format: every stored document
    /// is read back from the old segments' document stores (which need no term dictionary)
    /// and indexed anew with its facts. The old files wait aside until the new index is
    /// committed and marked, so an upgrade cut short starts again from them; nothing is lost.
    pub(super) fn upgrade(&self, name: &str, dir: &Path) -> Result<()> {
        let old_dir = self.upgrade_dir(name);
        if old_dir.exists() {
            if dir.exists() {
                std::fs::remove_dir_all(dir).map_err(backend_err)?;
            }
        } else {
            std::fs::rename(dir, &old_dir).map_err(backend_err)?;
        }
        std::fs::create_dir_all(dir).map_err(backend_err)?;
        let index = Index::create_in_dir(dir, build_schema()).map_err(backend_err)?;
        let fresh = StoreIndex::new(name, dir.to_path_buf(), index)?;
        let old = Index::open_in_dir(&old_dir).map_err(backend_err)?;
        let field = |name: &str| old.schema().get_field(name).map_err(backend_err);
        let (id_field, source_field) = (field("_id")?, field("_source")?);
        fresh.with_writer(|writer| {
            for segment in old.searchable_segments().map_err(backend_err)? {
                let store = StoreReader::open(segment.open_read(SegmentComponent::Store).map_err(backend_err)?, 4).map_err(backend_err)?;
                let alive = match segment.meta().has_deletes() {
                    true => {
                        let bytes = segment.open_read(SegmentComponent::Delete).map_err(backend_err)?;
                        Some(AliveBitSet::open(bytes.read_bytes().map_err(backend_err)?))
                    }
                    false => None,
                };
                let mut batch = Vec::new();
                for doc in store.iter::<TantivyDocument>(alive.as_ref()) {
                    let doc = doc.map_err(backend_err)?;
                    let id = doc.get_first(id_field).and_then(|v| v.as_str());
                    let bytes = doc.get_first(source_field).and_then(|v| v.as_bytes());
                    // fact documents store nothing: they are rebuilt from their document
                    let (Some(id), Some(bytes)) = (id, bytes) else { continue };
                    batch.push(Pending {
                        id: id.to_string(),
                        source: Source::parse(bytes.to_vec()).map_err(backend_err)?,
                        replace: false,
                    });
                    if batch.len() >= 1000 {
                        fresh.add(writer, std::mem::take(&mut batch))?;
                    }
                }
                fresh.add(writer, batch)?;
            }
            fresh.commit(writer)
        })?;
        drop(fresh); // the writer and its lock go with it
        mark_current(dir)?;
        std::fs::remove_dir_all(&old_dir).map_err(backend_err)
    }
}
