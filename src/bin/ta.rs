//! The `ta` binary: parse flags, run the command, exit with its code.
//!
//! mimalloc is the allocator: imports, batch tagging and the server allocate from several
//! threads at once, where glibc's allocator spent about 15 % of an import's CPU time and
//! contended on its arena locks. Its purge delay is raised from 10 ms to 10 s: an import frees
//! and allocates hundreds of megabytes a second (document batches, segment writers' arenas),
//! and returning that memory to the system at once made the kernel zero it again on the next
//! allocation, 5 % of an import's CPU time. Memory still goes back to the system once idle.
//! It never asks for transparent huge pages (the `no_thp` build feature): where the system
//! grants them on request, each page fault of a fragmented memory waited for the kernel to
//! compact memory, which made a tagger's training take 0.55 s or 0.75 s by what ran before it.
use clap::Parser;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// A command whose reader goes away (`ta search … | head -1`) ends as a shell tool does, by
/// SIGPIPE (exit status 141 in a shell), without a word: Rust ignores the signal, which
/// would turn every write after it into an error. The server keeps ignoring it; its sockets
/// are written with `MSG_NOSIGNAL` either way.
fn restore_sigpipe() {
    #[cfg(unix)]
    // SAFETY: sets the default disposition of one signal, before any other thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// mimalloc's `mi_option_purge_delay` (milliseconds), from its `mi_option_e`.
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

fn main() {
    // SAFETY: sets a plain integer option, before any other thread exists.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 10_000) };
    // A panic is a bug: say so on one line (a server goes on serving other requests; the
    // CLI exits 1) instead of the default multi-line report.
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .copied()
            .or_else(|| info.payload().downcast_ref::<String>().map(String::as_str))
            .unwrap_or("panic");
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        eprintln!("ta: internal error: {msg}{at}");
    }));
    let cli = ta::commands::Cli::parse();
    if !cli.serves() {
        restore_sigpipe();
    }
    let code = std::panic::catch_unwind(|| ta::commands::run(cli)).unwrap_or(1);
    std::process::exit(code);
}
