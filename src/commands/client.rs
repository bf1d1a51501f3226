//! The remote mode's thin HTTP client of ta's own API: sends the same JSON bodies the
//! local mode validates, and turns error responses back into engine errors.
use crate::engine::error::{Error, Result};
use serde_json::Value;

pub struct Client {
    http: reqwest::blocking::Client,
    /// API root, e.g. `http://127.0.0.1:8000/api/v1`.
    pub base: String,
    token: Option<String>,
}

/// API root for a server address given with or without the `/api/v1` suffix.
pub fn api_root(server: &str) -> String {
    let s = server.trim_end_matches('/');
    if s.ends_with("/api/v1") {
        s.to_string()
    } else {
        format!("{s}/api/v1")
    }
}

impl Client {
    pub fn new(server: &str, token: Option<String>) -> Client {
        let http = reqwest::blocking::Client::builder()
            .timeout(None)
            .build()
            .expect("HTTP client builds");
        Client {
            http,
            base: api_root(server),
            token,
        }
    }

    /// Send a request; `path` is relative to the API root. Returns the JSON body
    /// (`null` for an empty one) or the error the server answered.
    pub fn send(&self, method: &str, path: &str, body: Option<&Value>) -> Result<Value> {
        let m = reqwest::Method::from_bytes(method.as_bytes()).map_err(Error::internal)?;
        let mut req = self
            .http
            .request(m, format!("{}{path}", self.base))
            .header("Accept", "application/json");
        if let Some(t) = &self.token {
            req = req.header("Authorization", format!("Token {t}"));
        }
        if let Some(b) = body {
            req = req.json(b);
        }
        let resp = req
            .send()
            .map_err(|e| Error::Internal(format!("cannot reach {}: {e}", self.base)))?;
        self.finish(resp)
    }

    /// Send a multipart form (dataset import); the file part streams from disk.
    pub fn send_multipart(&self, path: &str, form: reqwest::blocking::multipart::Form) -> Result<Value> {
        let req = self.authorized(self.http.post(format!("{}{path}", self.base))).multipart(form);
        let resp = req
            .send()
            .map_err(|e| Error::Internal(format!("cannot reach {}: {e}", self.base)))?;
        self.finish(resp)
    }

    /// GET a file (an exported model); errors come back as for `send`.
    pub fn download(&self, path: &str) -> Result<Vec<u8>> {
        let resp = self
            .authorized(self.http.get(format!("{}{path}", self.base)))
            .send()
            .map_err(|e| Error::Internal(format!("cannot reach {}: {e}", self.base)))?;
        if resp.status().as_u16() >= 400 {
            return self.finish(resp).map(|_| Vec::new());
        }
        Ok(resp.bytes().map_err(Error::internal)?.to_vec())
    }

    /// JSON accept header and the token, if any.
    fn authorized(&self, req: reqwest::blocking::RequestBuilder) -> reqwest::blocking::RequestBuilder {
        let req = req.header("Accept", "application/json");
        match &self.token {
            Some(t) => req.header("Authorization", format!("Token {t}")),
            None => req,
        }
    }

    fn finish(&self, resp: reqwest::blocking::Response) -> Result<Value> {
        let status = resp.status().as_u16();
        let text = resp.text().map_err(Error::internal)?;
        let body: Value = if text.is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&text).unwrap_or(Value::String(text))
        };
        if status < 400 {
            Ok(body)
        } else {
            Err(Error::from_wire(status, body))
        }
    }
}
