//! The Rust binding as an external target of the Go conformance suite
//! (conformance/external.go): reads {"id", "request": base64} lines on stdin,
//! answers {"id", "output": base64} per line on stdout, request bytes unchanged.
//!   cargo build --release --example batch   # then:
//!   go test ./conformance -target "rust=bindings/rust/target/release/examples/batch"
use serde::{Deserialize, Serialize};
use std::io::{BufRead, Write};

#[derive(Deserialize)]
struct In {
    id: String,
    request: String,
}

#[derive(Serialize)]
struct Out<'a> {
    id: &'a str,
    output: String,
}

const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn encode(data: &[u8]) -> String {
    let mut s = String::new();
    for c in data.chunks(3) {
        let n = (c[0] as u32) << 16 | (*c.get(1).unwrap_or(&0) as u32) << 8 | *c.get(2).unwrap_or(&0) as u32;
        for i in 0..4 {
            s.push(if i <= c.len() { A[(n >> (18 - 6 * i) & 63) as usize] as char } else { '=' });
        }
    }
    s
}

fn decode(s: &str) -> Vec<u8> {
    let v = |c: u8| A.iter().position(|&a| a == c).unwrap_or(0) as u32;
    s.as_bytes().chunks(4).flat_map(|c| {
        let n = c.iter().enumerate().fold(0, |n, (i, &b)| n | v(b) << (18 - 6 * i));
        let keep = c.iter().filter(|&&b| b != b'=').count() - 1;
        [(n >> 16) as u8, (n >> 8) as u8, n as u8].into_iter().take(keep)
    }).collect()
}

fn main() {
    let stdout = std::io::stdout();
    let mut w = std::io::BufWriter::new(stdout.lock());
    for line in std::io::stdin().lock().lines() {
        let line = line.unwrap();
        if line.trim().is_empty() {
            continue;
        }
        let m: In = serde_json::from_str(&line).unwrap();
        let out = toolerr::invoke_bytes(&decode(&m.request));
        writeln!(w, "{}", serde_json::to_string(&Out { id: &m.id, output: encode(&out) }).unwrap()).unwrap();
    }
}
