//! Showing a task's progress on a terminal: an indicatif bar fed either by the engine's
//! observer (local mode, the task runs in the foreground) or by polling the resource that
//! carries the task (remote mode). The command ends when the task does.
use super::client::Client;
use crate::engine::error::{Error, Result};
use crate::engine::tasks::{Observer, TaskOut};
use serde_json::Value;
use std::io::IsTerminal;
use std::time::Duration;

fn bar() -> indicatif::ProgressBar {
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let pb = indicatif::ProgressBar::new(1000);
    pb.set_style(
        indicatif::ProgressStyle::with_template("{msg:24} [{bar:40}] {percent:>3}%  {elapsed}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    pb
}

fn show(pb: &indicatif::ProgressBar, t: &TaskOut) {
    pb.set_message(if t.step.is_empty() {
        t.status.as_str().to_string()
    } else {
        t.step.clone()
    });
    pb.set_position((t.progress * 10.0).round() as u64);
}

/// An observer that draws the task on a terminal bar (local mode).
pub fn observer() -> Observer {
    let pb = bar();
    Box::new(move |t: &TaskOut| {
        show(&pb, t);
        if !t.status.is_active() {
            pb.finish_and_clear();
        }
    })
}

fn terminal(task: &Value) -> bool {
    matches!(task["status"].as_str(), Some("completed" | "failed" | "cancelled"))
}

/// Remote mode: poll `path` (a resource with a `task` field) until its task ends,
/// drawing the bar; returns the final resource.
pub fn follow(c: &Client, path: &str) -> Result<Value> {
    let pb = bar();
    loop {
        let v = c.send("GET", path, None)?;
        if let Ok(task) = serde_json::from_value::<TaskOut>(v["task"].clone()) {
            show(&pb, &task);
        }
        if v["task"].is_null() || terminal(&v["task"]) {
            pb.finish_and_clear();
            return Ok(v);
        }
        std::thread::sleep(Duration::from_millis(300));
    }
}

/// Turn a finished resource whose task failed into an error for the exit code.
pub fn check(v: Value) -> Result<Value> {
    if v["task"]["status"] == "failed" {
        let errors = v["task"]["errors"].as_str().unwrap_or("[]").to_string();
        return Err(Error::BadRequest(format!("task failed: {errors}")));
    }
    Ok(v)
}
