//! The `ta` binary: parse flags, run the command, exit with its code.
//!
//! mimalloc is the allocator: imports, batch tagging and the server allocate from several
//! threads at once, where glibc's allocator spent about 15 % of an import's CPU time and
//! contended on its arena locks.
use clap::Parser;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let cli = ta::commands::Cli::parse();
    std::process::exit(ta::commands::run(cli));
}
