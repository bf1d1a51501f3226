//! Matcher-only throughput of the regex tagger engine (`Matcher::find`, no JSON, no CLI), to
//! tell the matcher's share from the batch command's input/output work. `bench.py` compiles
//! this file against the release `libta.rlib` and runs it.
//!
//! usage: engine TEXTS LEXICON COUNTER_LEXICON COUNTER_SLOP THREADS
//!   TEXTS: the texts, each followed by a NUL byte; LEXICON, COUNTER_LEXICON: one entry a
//!   line; every other parameter keeps its API default (as in make_config.py's configs).
//! Prints one JSON line: docs, threads, seconds (median of 5 timed passes after a warm-up
//! pass over the first 100 texts), matches.
use std::time::Instant;
use ta::engine::regex_tagger::{Matcher, MatcherConfig};

fn lines(path: &str) -> Vec<String> {
    std::fs::read_to_string(path)
        .expect("readable list")
        .lines()
        .map(str::to_string)
        .collect()
}

/// Matches found in `texts`, split over `threads` threads.
fn run(matcher: &Matcher, texts: &[&str], threads: usize) -> usize {
    let chunk = texts.len().div_ceil(threads).max(1);
    std::thread::scope(|s| {
        let workers: Vec<_> = texts
            .chunks(chunk)
            .map(|part| s.spawn(move || part.iter().map(|t| matcher.find(t).expect("no timeout").len()).sum::<usize>()))
            .collect();
        workers.into_iter().map(|w| w.join().expect("worker")).sum()
    })
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, texts, lexicon, counter, slop, threads] = args.as_slice() else {
        panic!("usage: engine TEXTS LEXICON COUNTER_LEXICON COUNTER_SLOP THREADS");
    };
    let data = std::fs::read_to_string(texts).expect("readable texts");
    let texts: Vec<&str> = data.split_terminator('\0').collect();
    let threads: usize = threads.parse().expect("thread count");
    let cfg = MatcherConfig {
        lexicon: lines(lexicon),
        counter_lexicon: lines(counter),
        counter_slop: slop.parse().expect("counter slop"),
        ..MatcherConfig::default()
    };
    let matcher = Matcher::compile(&cfg).expect("valid config");
    run(&matcher, &texts[..texts.len().min(100)], threads);
    let mut seconds = Vec::new();
    let mut matches = 0;
    for _ in 0..5 {
        let t0 = Instant::now();
        matches = run(&matcher, &texts, threads);
        seconds.push(t0.elapsed().as_secs_f64());
    }
    seconds.sort_by(f64::total_cmp);
    println!(
        "{{\"docs\": {}, \"threads\": {}, \"seconds\": {:.6}, \"matches\": {}}}",
        texts.len(),
        threads,
        seconds[2],
        matches
    );
}
