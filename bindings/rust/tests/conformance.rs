//! Every conformance/fixtures/**/*.json fixture through the Rust binding, byte for byte.
//!
//! Each request's raw bytes go in unchanged (serde_json RawValue); the expected
//! bytes are the RFC 8785 form of "response" made by the core's own canonicalize
//! op (on the value of its one member, "ok" or "error"). With TOOLERR_EMIT_OUTPUTS=path, one line per fixture
//! "<op>/<file>/<case>/<test> <base64>" is written there for the Go conformance
//! suite (split at the last space).
use libtest_mimic::{Arguments, Failed, Trial};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

#[derive(Deserialize)]
struct Case {
    description: String,
    tests: Vec<Test>,
}

#[derive(Deserialize)]
struct Test {
    description: String,
    request: Box<RawValue>,
    response: Box<RawValue>,
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let p = e.unwrap().path();
        if p.is_dir() {
            walk(&p, out);
        } else if p.extension().is_some_and(|x| x == "json") {
            out.push(p);
        }
    }
}

fn b64(data: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::new();
    for c in data.chunks(3) {
        let n = (c[0] as u32) << 16 | (*c.get(1).unwrap_or(&0) as u32) << 8 | *c.get(2).unwrap_or(&0) as u32;
        for i in 0..4 {
            s.push(if i <= c.len() { A[(n >> (18 - 6 * i) & 63) as usize] as char } else { '=' });
        }
    }
    s
}

fn run(id: &str, request: &[u8], response: &[u8], emit: &Option<Mutex<std::fs::File>>) -> Result<(), Failed> {
    let got = toolerr::invoke_bytes(request);
    if let Some(f) = emit {
        writeln!(f.lock().unwrap(), "{id} {}", b64(&got)).unwrap();
    }
    // response is {"ok": X} or {"error": X}: canonicalize X alone (the wrapper would add a nesting level)
    let member: BTreeMap<String, Box<RawValue>> = serde_json::from_slice(response)?;
    let (key, inner) = member.iter().next().ok_or("empty response")?;
    let canon = toolerr::invoke_bytes(&[&b"{\"op\":\"canonicalize\",\"value\":"[..], inner.get().as_bytes(), b"}"].concat());
    if !canon.starts_with(b"{\"ok\":") {
        return Err(format!("canonicalize failed: {}", String::from_utf8_lossy(&canon)).into());
    }
    let want = [format!("{{{}:", serde_json::to_string(key)?).as_bytes(), &canon[6..canon.len() - 1], b"}"].concat();
    let want = &want[..];
    if got == want {
        return Ok(());
    }
    let off = got.iter().zip(want).take_while(|(a, b)| a == b).count();
    let at = |x: &[u8]| String::from_utf8_lossy(&x[off.saturating_sub(20)..(off + 20).min(x.len())]).into_owned();
    Err(format!("{id}: first difference at byte {off}\n got: {:?}\nwant: {:?}", at(&got), at(want)).into())
}

fn main() {
    let args = Arguments::from_args();
    let root = std::env::var_os("TOOLERR_FIXTURES").map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../conformance/fixtures"));
    let emit = std::env::var_os("TOOLERR_EMIT_OUTPUTS").map(|p| Mutex::new(std::fs::File::create(p).unwrap()));
    let emit: &'static Option<Mutex<std::fs::File>> = Box::leak(Box::new(emit));
    let mut files = Vec::new();
    walk(&root, &mut files);
    files.sort();
    let mut trials = Vec::new();
    for file in files {
        let stem = file.strip_prefix(&root).unwrap().with_extension("").to_string_lossy().into_owned();
        let text = std::fs::read(&file).unwrap();
        let cases: Vec<Case> = serde_json::from_slice(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        for case in cases {
            for t in case.tests {
                let id = format!("{stem}/{}/{}", case.description, t.description);
                let (req, resp) = (t.request.get().as_bytes().to_vec(), t.response.get().as_bytes().to_vec());
                let tid = id.clone();
                trials.push(Trial::test(id, move || run(&tid, &req, &resp, emit)));
            }
        }
    }
    let found = !trials.is_empty();
    trials.push(Trial::test("fixtures are found", move || {
        if found { Ok(()) } else { Err(format!("no conformance fixtures under {}", root.display()).into()) }
    }));
    libtest_mimic::run(&args, trials).exit();
}
