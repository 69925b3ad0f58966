//! Links the toolerr core statically: libtoolerr.a (a Go c-archive) from
//! $TOOLERR_DIST, else ../../dist (what `make build` writes).
use std::{env, path::PathBuf};

fn main() {
    let dist = env::var_os("TOOLERR_DIST").map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap()).join("../../dist")
    });
    let lib = dist.join("libtoolerr.a");
    if !lib.is_file() {
        panic!("toolerr: {} not found; run `make build` or set TOOLERR_DIST", lib.display());
    }
    println!("cargo:rerun-if-env-changed=TOOLERR_DIST");
    println!("cargo:rerun-if-changed={}", lib.display());
    println!("cargo:rustc-link-search=native={}", dist.canonicalize().unwrap().display());
    println!("cargo:rustc-link-lib=static=toolerr");
    // A Go c-archive needs the C runtime's threads (and dl on older glibc).
    println!("cargo:rustc-link-lib=dylib=pthread");
    println!("cargo:rustc-link-lib=dylib=dl");
}
