//! Text basics every part of ta shares: Python's string semantics where the reference's
//! behaviour depends on them (`pytext`), the input lines of batch runs (`lines`), and the
//! wire names of closed choices (`choice`).
pub mod choice;
pub mod lines;
pub mod pytext;
