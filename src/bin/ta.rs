//! The `ta` binary: parse flags, run the command, exit with its code.
use clap::Parser;

fn main() {
    let cli = ta::commands::Cli::parse();
    std::process::exit(ta::commands::run(cli));
}
