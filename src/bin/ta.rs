//! The `ta` binary: parse flags, run the command, exit with its code.
//!
//! mimalloc is the allocator: imports, batch tagging and the server allocate from several
//! threads at once, where glibc's allocator spent about 15 % of an import's CPU time and
//! contended on its arena locks. Its purge delay is raised from 10 ms to 10 s: an import frees
//! and allocates hundreds of megabytes a second (document batches, segment writers' arenas),
//! and returning that memory to the system at once made the kernel zero it again on the next
//! allocation, 5 % of an import's CPU time. Memory still goes back to the system once idle.
use clap::Parser;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_purge_delay` (milliseconds), from its `mi_option_e`.
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

fn main() {
    // SAFETY: sets a plain integer option, before any other thread exists.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 10_000) };
    let cli = ta::commands::Cli::parse();
    std::process::exit(ta::commands::run(cli));
}
