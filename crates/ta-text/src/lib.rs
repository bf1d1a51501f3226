//! Text basics every part of ta shares: Python's string semantics where the reference's
//! behaviour depends on them (`pytext`), and the input lines of batch runs (`lines`).
pub mod lines;
pub mod pytext;
