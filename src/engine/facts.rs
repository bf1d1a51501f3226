//! The facts of a project's indices as the search pages read them: fact names with their
//! most frequent values (`get_facts`) and the values of one fact that start with what a user
//! typed (`autocomplete_fact_values`). Both are aggregations over the nested `texta_facts`,
//! so they answer alike on the embedded store and on Elasticsearch.
use super::error::{Error, Result};
use super::indices::parse_index_refs;
use super::validate::{Form, Mode, Str};
use super::{Ctx, Engine};
use serde_json::{json, Value};

/// Most values a fact lists, or autocompletion answers.
const MAX_VALUES: i64 = 10_000;

impl Engine {
    /// POST /projects/{pk}/get_facts/ — with `output_type` true (the default)
    /// `[{"name", "values"}]`, the `values_per_name` most frequent values of each fact name;
    /// with false the names alone.
    pub fn get_facts(&self, ctx: &Ctx, pk: i64, body: &Value) -> Result<Value> {
        self.check_project_access(ctx, pk)?;
        let mut f = Form::new(body, Mode::Full)?;
        let names = parse_index_refs(&mut f, "indices")?;
        let per_name = f.integer("values_per_name", false, Some(1), Some(MAX_VALUES)).unwrap_or(10) as usize;
        let with_values = f.boolean("output_type").unwrap_or(true);
        f.finish()?;
        let indices = self.resolve_indices(pk, names)?;
        if indices.is_empty() {
            return Ok(json!([]));
        }
        let facts = self.search.facts(&indices, &json!({"match_all": {}}), per_name)?;
        Ok(Value::Array(
            facts
                .into_iter()
                .map(|fact| match with_values {
                    true => json!({"name": fact.name, "values": fact.values.into_iter().map(|v| v.value).collect::<Vec<_>>()}),
                    false => json!(fact.name),
                })
                .collect(),
        ))
    }

    /// POST /projects/{pk}/autocomplete_fact_values/ — up to `limit` values of fact
    /// `fact_name` that start with `startswith`, most frequent first.
    pub fn autocomplete_fact_values(&self, ctx: &Ctx, pk: i64, body: &Value) -> Result<Vec<String>> {
        self.check_project_access(ctx, pk)?;
        let mut f = Form::new(body, Mode::Full)?;
        let names = parse_index_refs(&mut f, "indices")?;
        let limit = f.integer("limit", false, Some(1), Some(MAX_VALUES)).unwrap_or(10);
        let startswith = f.string("startswith", Str::OPTIONAL.untrimmed()).unwrap_or_default();
        let fact = f.string("fact_name", Str::REQUIRED);
        f.finish()?;
        let indices = self.resolve_indices(pk, names)?;
        if indices.is_empty() {
            return Ok(Vec::new());
        }
        let mut must = vec![json!({"term": {"texta_facts.fact": fact.unwrap_or_default()}})];
        if !startswith.is_empty() {
            must.push(json!({"prefix": {"texta_facts.str_val": startswith}}));
        }
        let body = json!({
            "size": 0,
            "aggs": {"facts": {"nested": {"path": "texta_facts"}, "aggs": {
                "fact": {"filter": {"bool": {"must": must}}, "aggs": {
                    "values": {"terms": {"field": "texta_facts.str_val", "size": limit}}
                }}
            }}}
        });
        let answer = self.search.search(&indices, &body)?;
        let buckets = answer["aggregations"]["facts"]["fact"]["values"]["buckets"]
            .as_array()
            .ok_or_else(|| Error::Internal("the fact values aggregation answered no buckets".into()))?;
        Ok(buckets.iter().filter_map(|b| b["key"].as_str().map(str::to_string)).collect())
    }
}
