//! Operations of projects, search indices, documents and search (`api.md` §1–§4, Appendix A).
use super::regex::IndexName;
use super::{crud, op, Operation, QueryParam};
use crate::engine::dataset_imports::DatasetImports;
use crate::engine::indices::{Combine, IndexListed, IndexOut, MessageOut, TextMatch};
use crate::engine::lexicons::Lexicons;
use crate::engine::projects::{IndicesOut, ProjectIn, ProjectOut, ResourceCounts};
use crate::engine::search::IndexFields;
use crate::engine::searches::Searches;
use serde::Deserialize;
use serde_json::Value;

/// `{"query", "indices"}`: an Elasticsearch request body (query, size, from, sort, aggs,
/// highlight, _source) over the given indices (default: all of the project's).
#[derive(Deserialize, utoipa::ToSchema)]
pub struct SearchIn {
    #[schema(value_type = Option<Object>)]
    pub query: Option<Value>,
    pub indices: Option<Vec<IndexName>>,
}

/// The simple search: `match_text` over `match_fields` (default: all) of `match_indices`
/// (default: the project's).
#[derive(Deserialize, utoipa::ToSchema)]
pub struct SimpleSearchIn {
    pub match_text: String,
    pub match_type: Option<TextMatch>,
    pub match_indices: Option<Vec<String>>,
    pub match_fields: Option<Vec<String>>,
    /// Default: `must`.
    pub operator: Option<Combine>,
    pub size: Option<u64>,
}

/// An index named plainly or as `{"name"}` (TEXTA's web client sends the objects).
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum IndexRef {
    Name(String),
    Object(IndexName),
}

/// `{"indices", "values_per_name", "output_type"}` of get_facts.
#[derive(Deserialize, utoipa::ToSchema)]
pub struct FactsIn {
    /// Default: the project's indices.
    pub indices: Option<Vec<IndexRef>>,
    /// Values listed per fact name (default 10).
    pub values_per_name: Option<u64>,
    /// true (default): `[{"name", "values"}]`; false: the names alone.
    pub output_type: Option<bool>,
}

/// `{"fact_name", "startswith", "limit", "indices"}` of autocomplete_fact_values.
#[derive(Deserialize, utoipa::ToSchema)]
pub struct FactValuesIn {
    pub fact_name: String,
    /// The start of the values wanted (default: any).
    pub startswith: Option<String>,
    /// Most values answered (default 10).
    pub limit: Option<u64>,
    /// Default: the project's indices.
    pub indices: Option<Vec<IndexRef>>,
}

/// `{"documents": [...]}` of a document insert (at most 10 000 documents).
#[derive(Deserialize, utoipa::ToSchema)]
pub struct DocumentsIn {
    #[schema(min_items = 1, max_items = 10000)]
    pub documents: Vec<DocumentIn>,
}

/// One document to insert: its index (created and added to the project when new), its
/// source and an optional id (a string or a number; one is assigned when missing).
#[derive(Deserialize, utoipa::ToSchema)]
pub struct DocumentIn {
    pub _index: String,
    #[schema(value_type = Object)]
    pub _source: Value,
    #[schema(value_type = Option<String>)]
    pub _id: Option<Value>,
}

/// `{"is_open"}` of an index.
#[derive(Deserialize, utoipa::ToSchema)]
pub struct IndexIn {
    pub is_open: bool,
}

/// Projects and their indices (listed first in the documentation).
pub fn project_operations() -> Vec<Operation> {
    vec![
        Operation {
            query: &[
                QueryParam {
                    name: "ordering",
                    description: "Comma-separated fields (id, title, users_count, indices_count), `-` for descending",
                },
                QueryParam {
                    name: "title",
                    description: "Case-insensitive substring of the title",
                },
            ],
            ..op!(Get "/projects/", "projects", "Projects the caller is a member of", [] => [Vec<ProjectOut>], |e, c| e.list_projects(c.ctx()?, c.query)?)
        },
        op!(Post "/projects/", "projects", "Create a project (superusers)", [ProjectIn] => [ProjectOut] 201, |e, c| e.create_project(c.ctx()?, c.body)?),
        op!(Get "/projects/{project_pk}/", "projects", "One project", [] => [ProjectOut], |e, c| e.get_project(c.ctx()?, c.pk()?)?),
        op!(Put "/projects/{project_pk}/", "projects", "Replace a project", [ProjectIn] => [ProjectOut], |e, c| e.update_project(c.ctx()?, c.pk()?, c.body, c.mode())?),
        op!(Patch "/projects/{project_pk}/", "projects", "Change a project", [ProjectIn] => [ProjectOut], |e, c| e.update_project(c.ctx()?, c.pk()?, c.body, c.mode())?),
        op!(Delete "/projects/{project_pk}/", "projects", "Delete a project and its resources", [] => [], |e, c| e.delete_project(c.ctx()?, c.pk()?)?),
        op!(Get "/projects/{project_pk}/get_indices/", "projects", "The project's indices", [] => [IndicesOut], |e, c| e.get_project_indices(c.ctx()?, c.pk()?)?),
        op!(Get "/projects/{project_pk}/get_fields/", "projects", "Fields of the project's indices", [] => [Vec<IndexFields>], |e, c| e.get_project_fields(c.ctx()?, c.pk()?)?),
        op!(Get "/projects/{project_pk}/get_resource_counts/", "projects", "How many resources of each kind the project has", [] => [ResourceCounts],
            |e, c| e.get_resource_counts(c.ctx()?, c.pk()?)?),
    ]
}

/// Dataset imports, documents, search and the index catalogue.
pub fn operations() -> Vec<Operation> {
    let mut ops = crud::operations::<DatasetImports>();
    ops.extend(crud::operations::<Searches>());
    ops.extend(crud::operations::<Lexicons>());
    ops.extend([
        op!(Post "/projects/{project_pk}/elastic/documents/", "documents", "Insert documents into an index of the project", [DocumentsIn] => [Value],
            |e, c| e.insert_documents(c.ctx()?, c.pk()?, c.body)?),
        op!(Get "/projects/{project_pk}/elastic/documents/{index}/{id}/", "documents", "One document", [] => [Value],
            |e, c| e.get_document(c.ctx()?, c.pk()?, c.param("index")?, c.param("id")?)?),
        op!(Patch "/projects/{project_pk}/elastic/documents/{index}/{id}/", "documents", "Change fields of a document", [Value] => [Value],
            |e, c| e.patch_document(c.ctx()?, c.pk()?, c.param("index")?, c.param("id")?, c.body)?),
        op!(Delete "/projects/{project_pk}/elastic/documents/{index}/{id}/", "documents", "Delete a document", [] => [],
            |e, c| e.delete_document(c.ctx()?, c.pk()?, c.param("index")?, c.param("id")?)?),
        op!(Post "/projects/{project_pk}/search/", "search", "Simple search: documents matching a text", [SimpleSearchIn] => [Value],
            |e, c| Value::Array(e.simple_search(c.ctx()?, c.pk()?, c.body)?)),
        op!(Post "/projects/{project_pk}/search_by_query/", "search", "Search with an Elasticsearch query (sort, aggs, highlight)", [SearchIn] => [Value],
            |e, c| e.search_by_query(c.ctx()?, c.pk()?, c.body)?),
        op!(Post "/projects/{project_pk}/scroll/", "search", "Page through every matching document", [Value] => [Value],
            |e, c| e.scroll(c.ctx()?, c.pk()?, c.body)?),
        op!(Post "/projects/{project_pk}/get_facts/", "search", "Fact names with their most frequent values, or the names alone", [FactsIn] => [Value],
            |e, c| e.get_facts(c.ctx()?, c.pk()?, c.body)?),
        op!(Post "/projects/{project_pk}/autocomplete_fact_values/", "search", "Values of a fact that start with a text, most frequent first", [FactValuesIn] => [Vec<String>],
            |e, c| e.autocomplete_fact_values(c.ctx()?, c.pk()?, c.body)?),
        op!(Get "/index/", "index", "Indices in the store with their size and documents (superusers)", [] => [Vec<IndexListed>], |e, c| e.list_index_catalogue(c.ctx()?)?),
        op!(Get "/index/{id}/", "index", "One index of the store", [] => [IndexOut], |e, c| e.get_index(c.ctx()?, c.id("id")?)?),
        op!(Patch "/index/{id}/", "index", "Open or close an index", [IndexIn] => [IndexOut], |e, c| e.update_index(c.ctx()?, c.id("id")?, c.body)?),
        op!(Patch "/index/{id}/open_index/", "index", "Open an index", [] => [MessageOut], |e, c| e.set_index_open(c.ctx()?, c.id("id")?, true)?),
        op!(Patch "/index/{id}/close_index/", "index", "Close an index: it leaves project listings", [] => [MessageOut], |e, c| e.set_index_open(c.ctx()?, c.id("id")?, false)?),
        op!(Delete "/index/{id}/", "index", "Delete an index and its documents", [] => [], |e, c| e.delete_index(c.ctx()?, c.id("id")?)?),
        op!(Get "/get_indices/", "index", "Names of the indices in the store", [] => [Vec<String>], |e, c| e.store_indices(c.ctx()?)?),
    ]);
    ops
}
