//! DRF-compatible request validation. A `Form` reads fields from a JSON object in
//! serializer order, coerces them the way Django REST Framework does, and collects the
//! exact DRF messages for every failing field; `finish` turns them into `Error::Invalid`.
use super::error::{Error, Result};
use serde_json::{json, Map, Value};

/// Python type name of a JSON value, as DRF messages print it.
pub fn py_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "NoneType",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "int",
        Value::String(_) => "str",
        Value::Array(_) => "list",
        Value::Object(_) => "dict",
    }
}

/// Whether the request is a create/PUT (missing required fields fail, defaults apply) or
/// a PATCH (missing fields are left alone).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Full,
    Partial,
}

/// Rules for a string field (DRF `CharField`).
#[derive(Clone, Copy)]
pub struct Str {
    pub required: bool,
    pub allow_blank: bool,
    pub allow_null: bool,
    pub trim: bool,
    pub max_len: Option<usize>,
}

impl Str {
    pub const REQUIRED: Str = Str {
        required: true,
        allow_blank: false,
        allow_null: false,
        trim: true,
        max_len: None,
    };
    pub const OPTIONAL: Str = Str {
        required: false,
        allow_blank: true,
        allow_null: false,
        trim: true,
        max_len: None,
    };
    pub const fn max(self, n: usize) -> Str {
        Str { max_len: Some(n), ..self }
    }
    pub const fn nullable(self) -> Str {
        Str { allow_null: true, ..self }
    }
    pub const fn blank(self) -> Str {
        Str { allow_blank: true, ..self }
    }
    pub const fn untrimmed(self) -> Str {
        Str { trim: false, ..self }
    }
}

/// Rules for a list field (DRF `ListField`).
#[derive(Clone, Copy)]
pub struct List {
    pub required: bool,
    pub allow_empty: bool,
    pub max_items: Option<usize>,
}

impl List {
    pub const REQUIRED: List = List {
        required: true,
        allow_empty: true,
        max_items: None,
    };
    pub const OPTIONAL: List = List {
        required: false,
        allow_empty: true,
        max_items: None,
    };
    pub const fn non_empty(self) -> List {
        List {
            allow_empty: false,
            ..self
        }
    }
    pub const fn max(self, n: usize) -> List {
        List {
            max_items: Some(n),
            ..self
        }
    }
}

pub const REQUIRED: &str = "This field is required.";
pub const NOT_NULL: &str = "This field may not be null.";
pub const NOT_BLANK: &str = "This field may not be blank.";

/// Coerce one value with `CharField` rules. `Err` is the DRF message.
pub fn char_field(v: &Value, rule: Str) -> std::result::Result<Option<String>, String> {
    let s = match v {
        Value::Null if rule.allow_null => return Ok(None),
        Value::Null => return Err(NOT_NULL.into()),
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        _ => return Err("Not a valid string.".into()),
    };
    let s = if rule.trim { super::pytext::strip(&s).to_string() } else { s };
    if s.is_empty() && !rule.allow_blank {
        return Err(NOT_BLANK.into());
    }
    if let Some(max) = rule.max_len {
        if s.chars().count() > max {
            return Err(format!("Ensure this field has no more than {max} characters."));
        }
    }
    Ok(Some(s))
}

fn integer_value(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n
            .as_i64()
            .or_else(|| n.as_f64().filter(|f| f.fract() == 0.0 && f.abs() < 9e15).map(|f| f as i64)),
        Value::String(s) => {
            let t = s.trim();
            let t = match t.find('.') {
                Some(i) if t[i + 1..].chars().all(|c| c == '0') => &t[..i],
                _ => t,
            };
            t.parse::<i64>().ok()
        }
        _ => None,
    }
}

fn number_value(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
        Value::String(s) => s.trim().parse::<f64>().ok().filter(|f| f.is_finite()),
        _ => None,
    }
}

fn boolean_value(v: &Value) -> Option<bool> {
    match v {
        Value::Bool(b) => Some(*b),
        Value::Number(n) if n.as_i64() == Some(1) || n.as_f64() == Some(1.0) => Some(true),
        Value::Number(n) if n.as_i64() == Some(0) || n.as_f64() == Some(0.0) => Some(false),
        Value::String(s) => match s.as_str() {
            "true" | "True" | "TRUE" | "1" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" | "t" | "T" | "y" | "Y" => Some(true),
            "false" | "False" | "FALSE" | "0" | "no" | "No" | "NO" | "off" | "Off" | "OFF" | "f" | "F" | "n" | "N" => Some(false),
            _ => None,
        },
        _ => None,
    }
}

/// Render a float bound the way Python prints it (`1.0`, `0.5`).
pub fn py_float(f: f64) -> String {
    if f.fract() == 0.0 && f.abs() < 1e16 {
        format!("{f:.1}")
    } else {
        format!("{f}")
    }
}

/// Key a face puts into a body parsed from an HTML form (url-encoded or multipart):
/// every value is then a list of the strings sent under that name, and scalar fields
/// take the last one, as DRF's QueryDict does.
pub const FORM_MARKER: &str = "\u{0}form";

/// A request body being validated field by field.
pub struct Form<'a> {
    obj: &'a Map<String, Value>,
    mode: Mode,
    form: bool,
    errors: Map<String, Value>,
}

impl<'a> Form<'a> {
    /// Start validating `body`; a non-object body fails at once as DRF does.
    pub fn new(body: &'a Value, mode: Mode) -> Result<Form<'a>> {
        match body {
            Value::Object(obj) => Ok(Form {
                obj,
                mode,
                form: obj.contains_key(FORM_MARKER),
                errors: Map::new(),
            }),
            other => Err(Error::Invalid(json!({
                "non_field_errors": [format!("Invalid data. Expected a dictionary, but got {}.", py_type(other))]
            }))),
        }
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The raw value of a field, if sent (a form field's last value).
    pub fn raw(&self, name: &str) -> Option<&'a Value> {
        self.obj.get(name).map(|v| self.scalar(v))
    }

    fn scalar(&self, v: &'a Value) -> &'a Value {
        match v {
            Value::Array(a) if self.form => a.last().unwrap_or(v),
            _ => v,
        }
    }

    pub fn has_errors(&self) -> bool {
        !self.errors.is_empty()
    }

    /// Record an error under `name` (a list of messages, or a nested error object).
    pub fn error(&mut self, name: &str, err: Value) {
        self.errors.entry(name.to_string()).or_insert(err);
    }

    pub fn fail(&mut self, name: &str, msg: impl Into<String>) {
        self.error(name, json!([msg.into()]));
    }

    /// Look a scalar field up; handles absence (required / default / partial)
    /// uniformly: `None` when the field is absent and nothing should be set.
    fn present(&mut self, name: &str, required: bool) -> Option<&'a Value> {
        self.present_raw(name, required).map(|v| self.scalar(v))
    }

    fn present_raw(&mut self, name: &str, required: bool) -> Option<&'a Value> {
        match self.obj.get(name) {
            Some(v) => Some(v),
            None => {
                if required && self.mode == Mode::Full {
                    self.fail(name, REQUIRED);
                }
                None
            }
        }
    }

    pub fn string(&mut self, name: &str, rule: Str) -> Option<String> {
        let v = self.present(name, rule.required)?;
        match char_field(v, rule) {
            Ok(s) => s,
            Err(m) => {
                self.fail(name, m);
                None
            }
        }
    }

    /// A nullable string: `Some(None)` when null was sent.
    pub fn nullable_string(&mut self, name: &str, rule: Str) -> Option<Option<String>> {
        let v = self.present(name, rule.required)?;
        match char_field(v, rule.nullable()) {
            Ok(s) => Some(s),
            Err(m) => {
                self.fail(name, m);
                None
            }
        }
    }

    pub fn integer(&mut self, name: &str, required: bool, min: Option<i64>, max: Option<i64>) -> Option<i64> {
        let v = self.present(name, required)?;
        if v.is_null() {
            self.fail(name, NOT_NULL);
            return None;
        }
        let Some(i) = integer_value(v) else {
            self.fail(name, "A valid integer is required.");
            return None;
        };
        if let Some(m) = min.filter(|m| i < *m) {
            self.fail(name, format!("Ensure this value is greater than or equal to {m}."));
            return None;
        }
        if let Some(m) = max.filter(|m| i > *m) {
            self.fail(name, format!("Ensure this value is less than or equal to {m}."));
            return None;
        }
        Some(i)
    }

    pub fn number(&mut self, name: &str, required: bool, min: Option<f64>, max: Option<f64>) -> Option<f64> {
        let v = self.present(name, required)?;
        if v.is_null() {
            self.fail(name, NOT_NULL);
            return None;
        }
        let Some(f) = number_value(v) else {
            self.fail(name, "A valid number is required.");
            return None;
        };
        if let Some(m) = min.filter(|m| f < *m) {
            self.fail(name, format!("Ensure this value is greater than or equal to {}.", py_float(m)));
            return None;
        }
        if let Some(m) = max.filter(|m| f > *m) {
            self.fail(name, format!("Ensure this value is less than or equal to {}.", py_float(m)));
            return None;
        }
        Some(f)
    }

    pub fn boolean(&mut self, name: &str) -> Option<bool> {
        let v = self.present(name, false)?;
        if v.is_null() {
            self.fail(name, NOT_NULL);
            return None;
        }
        match boolean_value(v) {
            Some(b) => Some(b),
            None => {
                self.fail(name, "Must be a valid boolean.");
                None
            }
        }
    }

    /// A string restricted to `choices`.
    pub fn choice<T: serde::de::DeserializeOwned>(&mut self, name: &str, required: bool) -> Option<T> {
        let v = self.present(name, required)?;
        let shown = match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        match v {
            Value::String(s) => match ta_text::choice::parse(s) {
                Some(choice) => Some(choice),
                None => {
                    self.fail(name, format!("\"{shown}\" is not a valid choice."));
                    None
                }
            },
            Value::Null => {
                self.fail(name, NOT_NULL);
                None
            }
            _ => {
                self.fail(name, format!("\"{shown}\" is not a valid choice."));
                None
            }
        }
    }

    /// The list envelope checks shared by every list field; yields the items.
    fn list(&mut self, name: &str, rule: List) -> Option<&'a Vec<Value>> {
        let v = self.present_raw(name, rule.required)?;
        let items = match v {
            Value::Array(a) => a,
            Value::Null => {
                self.fail(name, NOT_NULL);
                return None;
            }
            other => {
                self.fail(name, format!("Expected a list of items but got type \"{}\".", py_type(other)));
                return None;
            }
        };
        if items.is_empty() && !rule.allow_empty {
            self.fail(name, "This list may not be empty.");
            return None;
        }
        if let Some(max) = rule.max_items.filter(|m| items.len() > *m) {
            self.fail(name, format!("Ensure this field has no more than {max} elements."));
            return None;
        }
        Some(items)
    }

    /// DRF `MultipleChoiceField`: a list of `choices`; the first item that is not one
    /// (compared as Python's `str(item)`) fails the whole field.
    pub fn multiple_choice(&mut self, name: &str, rule: List, choices: &[&str]) -> Option<Vec<String>> {
        let items = self.list(name, rule)?;
        let mut out = Vec::with_capacity(items.len());
        for v in items {
            let shown = match v {
                Value::String(s) => s.clone(),
                Value::Bool(b) => if *b { "True" } else { "False" }.to_string(),
                Value::Null => "None".to_string(),
                Value::Number(n) => n.as_f64().filter(|_| n.is_f64()).map(py_float).unwrap_or_else(|| n.to_string()),
                other => other.to_string(),
            };
            if !choices.contains(&shown.as_str()) {
                self.fail(name, format!("\"{shown}\" is not a valid choice."));
                return None;
            }
            out.push(shown);
        }
        Some(out)
    }

    /// A list whose items are coerced by `item`; item errors are keyed by index.
    pub fn list_of<T>(&mut self, name: &str, rule: List, item: impl Fn(&Value) -> std::result::Result<T, String>) -> Option<Vec<T>> {
        let items = self.list(name, rule)?;
        let mut out = Vec::with_capacity(items.len());
        let mut errs = Map::new();
        for (i, v) in items.iter().enumerate() {
            match item(v) {
                Ok(x) => out.push(x),
                Err(m) => {
                    errs.insert(i.to_string(), json!([m]));
                }
            }
        }
        if errs.is_empty() {
            Some(out)
        } else {
            self.error(name, Value::Object(errs));
            None
        }
    }

    pub fn strings(&mut self, name: &str, rule: List, item: Str) -> Option<Vec<String>> {
        self.list_of(name, rule, |v| char_field(v, item).map(Option::unwrap_or_default))
    }

    /// A list of primary keys (`Incorrect type. Expected pk value, received str.`).
    pub fn pks(&mut self, name: &str, rule: List) -> Option<Vec<i64>> {
        let items = self.list(name, rule)?;
        let mut out = Vec::new();
        for v in items {
            match v {
                Value::Number(_) => match integer_value(v) {
                    Some(i) => out.push(i),
                    None => {
                        self.fail(name, format!("Incorrect type. Expected pk value, received {}.", py_type(v)));
                        return None;
                    }
                },
                Value::String(s) => match s.trim().parse::<i64>() {
                    Ok(i) => out.push(i),
                    Err(_) => {
                        self.fail(name, "Incorrect type. Expected pk value, received str.");
                        return None;
                    }
                },
                other => {
                    self.fail(name, format!("Incorrect type. Expected pk value, received {}.", py_type(other)));
                    return None;
                }
            }
        }
        Some(out)
    }

    /// A JSON object field (`Expected a dictionary of items but got type "list".`).
    pub fn object(&mut self, name: &str, required: bool) -> Option<&'a Map<String, Value>> {
        let v = self.present(name, required)?;
        match v {
            Value::Object(o) => Some(o),
            Value::Null => {
                self.fail(name, NOT_NULL);
                None
            }
            other => {
                self.fail(name, format!("Expected a dictionary of items but got type \"{}\".", py_type(other)));
                None
            }
        }
    }

    /// End validation: all collected errors, in field order, or success.
    pub fn finish(self) -> Result<()> {
        if self.errors.is_empty() {
            Ok(())
        } else {
            Err(Error::Invalid(Value::Object(self.errors)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coercions_follow_drf() {
        let body = json!({"a": "5", "b": 5.0, "c": 5.5, "d": "yes", "e": 12, "f": true, "g": "x", "h": ["a", ""]});
        let mut f = Form::new(&body, Mode::Full).unwrap();
        assert_eq!(f.integer("a", true, None, None), Some(5));
        assert_eq!(f.integer("b", true, None, None), Some(5));
        assert_eq!(f.integer("c", true, None, None), None);
        assert_eq!(f.boolean("d"), Some(true));
        assert_eq!(f.string("e", Str::REQUIRED), Some("12".into()));
        assert_eq!(f.string("f", Str::REQUIRED), None);
        assert_eq!(f.choice::<crate::engine::regex_tagger::Operator>("g", true), None);
        assert_eq!(f.strings("h", List::REQUIRED, Str::REQUIRED), None);
        assert_eq!(f.string("missing", Str::REQUIRED), None);
        let err = f.finish().unwrap_err();
        assert_eq!(
            err.body(),
            json!({"c": ["A valid integer is required."], "f": ["Not a valid string."],
                   "g": ["\"x\" is not a valid choice."], "h": {"1": ["This field may not be blank."]},
                   "missing": ["This field is required."]})
        );
    }

    #[test]
    fn non_object_body() {
        let err = Form::new(&json!(["a"]), Mode::Full).err().unwrap();
        assert_eq!(
            err.body(),
            json!({"non_field_errors": ["Invalid data. Expected a dictionary, but got list."]})
        );
    }
}
