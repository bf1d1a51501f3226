//! Clusters the rows of a vector file with `ta_cluster::cluster` (k-means, seed 10) and prints
//! `{"seconds": <clustering time>, "inertia": <sum of squared distances>, "labels": [...]}`: the benchmark's way of running ta's
//! k-means on vectors made elsewhere (`scripts/bench/clustering`).
//!
//! usage: kmeans_file FILE K [kmeans|minibatchkmeans]
//! FILE: a first line `ROWS DIM`, then one line per row of `column:value` pairs.
use std::io::BufRead;
use ta_cluster::{cluster, Algorithm, Rows};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(path), Some(k)) = (args.get(1), args.get(2).and_then(|k| k.parse::<usize>().ok())) else {
        eprintln!("usage: kmeans_file FILE K [kmeans|minibatchkmeans]");
        std::process::exit(2);
    };
    let algorithm = match args.get(3).map(String::as_str) {
        Some("minibatchkmeans") => Algorithm::MiniBatchKMeans,
        _ => Algorithm::KMeans,
    };
    let file = std::io::BufReader::new(std::fs::File::open(path).expect("the vector file opens"));
    let mut lines = file.lines().map(|l| l.expect("a line"));
    let header = lines.next().expect("a header line");
    let dim: usize = header.split_whitespace().nth(1).and_then(|d| d.parse().ok()).expect("ROWS DIM");
    let mut rows = Rows::new(dim);
    for line in lines {
        let mut entries: Vec<(u32, f32)> = line
            .split_whitespace()
            .map(|pair| {
                let (c, v) = pair.split_once(':').expect("column:value");
                (c.parse().expect("a column"), v.parse().expect("a value"))
            })
            .collect();
        entries.sort_by_key(|e| e.0);
        rows.push(entries);
    }
    let start = std::time::Instant::now();
    let found = cluster(&rows, k, algorithm, 10);
    let seconds = start.elapsed().as_secs_f64();
    let labels: Vec<String> = found.labels.iter().map(usize::to_string).collect();
    println!(
        "{{\"seconds\": {seconds}, \"inertia\": {}, \"labels\": [{}]}}",
        found.inertia,
        labels.join(",")
    );
}
