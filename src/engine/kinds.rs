//! Resource kinds declared once. A kind states its stored `Kind`, its wire shape, how a
//! request body becomes a stored resource, and what deleting one must also do; the standard
//! operations (list, create, retrieve, update, delete, bulk delete) with their access checks
//! come from that declaration for every caller (`operations::crud` turns them into routes,
//! documentation and CLI calls).
use super::error::{Error, Result};
use super::resources::{BulkDeleteOut, Kind, Page, Resource};
use super::validate::Mode;
use super::{Ctx, Engine};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

/// One resource kind of a project.
pub trait ResourceKind: 'static {
    const KIND: Kind;
    /// The resource in summaries: "regex tagger".
    const NOUN: &'static str;
    /// Whether creating one takes a file (a multipart form).
    const UPLOAD: bool = false;
    /// Whether the list is paginated (`{"count", "results"}`), or a plain array of all.
    const PAGINATED: bool = true;
    /// The resource on the wire.
    type Out: Serialize + utoipa::ToSchema + 'static;
    /// The create and update body, for the documentation (validation reads the JSON).
    type In: utoipa::ToSchema + 'static;

    fn render(e: &Engine, ctx: &Ctx, r: &Resource) -> Result<Self::Out>;

    /// Validates a create body and stores the resource (starting its task, if it has one);
    /// returns it as created. The project access check has passed.
    fn create(e: &Arc<Engine>, ctx: &Ctx, pk: i64, body: &Value) -> Result<Self::Out>;

    /// Validates `body` onto the stored `r` (`mode`: PUT or PATCH) and stores the result.
    fn update(e: &Engine, r: &Resource, body: &Value, mode: Mode) -> Result<()>;

    /// Keys of the stored configuration a list may also be ordered by (`?ordering=`).
    const ORDER_KEYS: &'static [&'static str] = &[];

    /// Called before `r` is deleted (alone or in a bulk delete): cascades, cached models,
    /// files.
    fn deleting(_e: &Engine, _r: &Resource) -> Result<()> {
        Ok(())
    }

    /// `deleting`, for kinds whose delete removes other resources too: what it removed
    /// besides `r`, which bulk_delete counts. The default removes nothing else.
    fn cascade(e: &Engine, r: &Resource) -> Result<BulkDeleteOut> {
        Self::deleting(e, r).map(|()| BulkDeleteOut::default())
    }
}

/// The body of bulk_delete.
#[derive(Deserialize, utoipa::ToSchema)]
pub struct IdsIn {
    /// Ids of the resources to delete; ids of other projects are skipped.
    pub ids: Vec<i64>,
}

fn parse_ids(body: &Value) -> Result<Vec<i64>> {
    IdsIn::deserialize(body)
        .map(|b| b.ids)
        .map_err(|_| Error::BadRequestError("Must include key \"ids\" with an array of integers (private keys)".into()))
}

impl Engine {
    /// GET `<kind>/`: one page, with the `description` filter and ordering.
    pub fn list_of<K: ResourceKind>(&self, ctx: &Ctx, pk: i64, q: &BTreeMap<String, String>) -> Result<Page<K::Out>> {
        self.check_project_access(ctx, pk)?;
        let (count, rows) = self.page_resources(K::KIND, pk, q, K::ORDER_KEYS)?;
        Ok(Page {
            count,
            results: rows.iter().map(|r| K::render(self, ctx, r)).collect::<Result<_>>()?,
        })
    }

    /// GET `<kind>/` of a kind listed whole (`ResourceKind::PAGINATED` false).
    pub fn list_all_of<K: ResourceKind>(&self, ctx: &Ctx, pk: i64, q: &BTreeMap<String, String>) -> Result<Vec<K::Out>> {
        self.check_project_access(ctx, pk)?;
        let rows = self.filtered_resources(K::KIND, pk, q, K::ORDER_KEYS)?;
        rows.iter().map(|r| K::render(self, ctx, r)).collect()
    }

    /// POST `<kind>/`.
    pub fn create_of<K: ResourceKind>(self: &Arc<Self>, ctx: &Ctx, pk: i64, body: &Value) -> Result<K::Out> {
        self.check_project_access(ctx, pk)?;
        K::create(self, ctx, pk, body)
    }

    /// GET `<kind>/{id}/`.
    pub fn get_of<K: ResourceKind>(&self, ctx: &Ctx, pk: i64, id: i64) -> Result<K::Out> {
        self.check_project_access(ctx, pk)?;
        K::render(self, ctx, &self.resource(K::KIND, pk, id)?)
    }

    /// PUT or PATCH `<kind>/{id}/`.
    pub fn update_of<K: ResourceKind>(&self, ctx: &Ctx, pk: i64, id: i64, body: &Value, mode: Mode) -> Result<K::Out> {
        self.check_project_access(ctx, pk)?;
        self.edit_resource(K::KIND, pk, id, |r| K::update(self, r, body, mode))?;
        self.get_of::<K>(ctx, pk, id)
    }

    /// DELETE `<kind>/{id}/`.
    pub fn delete_of<K: ResourceKind>(&self, ctx: &Ctx, pk: i64, id: i64) -> Result<()> {
        self.check_project_access(ctx, pk)?;
        K::cascade(self, &self.resource(K::KIND, pk, id)?)?;
        self.delete_resource(K::KIND, pk, id)
    }

    /// POST `<kind>/bulk_delete/` `{"ids": [..]}`; ids of other projects are skipped.
    pub fn bulk_delete_of<K: ResourceKind>(&self, ctx: &Ctx, pk: i64, body: &Value) -> Result<BulkDeleteOut> {
        self.check_project_access(ctx, pk)?;
        let ids = parse_ids(body)?;
        let mut cascaded = BulkDeleteOut::default();
        for r in self.resources_by_ids(K::KIND, pk, &ids)? {
            cascaded.add(K::cascade(self, &r)?);
        }
        let mut out = self.bulk_delete(K::KIND, pk, &ids)?;
        out.add(cascaded);
        Ok(out)
    }
}
