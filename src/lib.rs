//! ta: a text-analysis toolkit. `engine` holds all behaviour; `server` (HTTP API) and
//! `commands` (CLI) are thin faces over it.
pub mod commands;
pub mod engine;
pub mod server;
