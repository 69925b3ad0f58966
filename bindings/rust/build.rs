//! Links the toolerr core statically: libtoolerr.a, the Go core built with
//! `-buildmode=c-archive`. Where it comes from, the first that applies:
//!
//! 1. `$TOOLERR_DIST/libtoolerr.a`, a `make build` output of your own;
//! 2. the copy bundled in the published crate, `native/<target>/libtoolerr.a`
//!    (scripts/packages.sh puts one there for x86_64-unknown-linux-gnu),
//!    unless `TOOLERR_BUILD_FROM_SOURCE=1`;
//! 3. in a toolerr clone, `../../dist/libtoolerr.a`, unless
//!    `TOOLERR_BUILD_FROM_SOURCE=1`;
//! 4. built into OUT_DIR from the Go source (`gosrc/` in the published crate,
//!    the clone's root in a clone) with Go (`$TOOLERR_GO`, else `go` on PATH)
//!    and the C compiler cgo uses, for the host target only.
//!
//! A `cargo:warning` says which (cargo shows build-script warnings for path
//! dependencies; `cargo build -vv` shows them for registry ones). Anything else
//! stops the build with what is missing.
use std::{
    env,
    path::{Path, PathBuf},
    process::Command,
};

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let target = env::var("TARGET").unwrap();
    let from_source = env::var("TOOLERR_BUILD_FROM_SOURCE").is_ok_and(|v| v == "1");
    for var in ["TOOLERR_DIST", "TOOLERR_BUILD_FROM_SOURCE", "TOOLERR_GO", "CC"] {
        println!("cargo:rerun-if-env-changed={var}");
    }

    copy_cas_script(&manifest);
    let bundled = manifest.join("native").join(&target).join("libtoolerr.a");
    let clone_dist = manifest.join("../../dist/libtoolerr.a");
    let (dir, how) = if let Some(dist) = env::var_os("TOOLERR_DIST").map(PathBuf::from) {
        let lib = dist.join("libtoolerr.a");
        if !lib.is_file() {
            // Cargo runs build scripts in the crate's folder, not where cargo was
            // started, so a relative TOOLERR_DIST names a folder under the crate.
            let relative = if dist.is_relative() {
                format!(
                    " (a relative TOOLERR_DIST is taken from the crate's folder, {}: give an absolute path, e.g. TOOLERR_DIST=\"$PWD/{}\")",
                    manifest.display(),
                    dist.display()
                )
            } else {
                String::new()
            };
            panic!("toolerr: TOOLERR_DIST is set but {} does not exist{relative}; run `make build` there", lib.display());
        }
        (dist, "TOOLERR_DIST".to_string())
    } else if !from_source && bundled.is_file() {
        (bundled.parent().unwrap().to_path_buf(), format!("the bundled static library for {target}"))
    } else if !from_source && clone_dist.is_file() && manifest.join("../../cshared/main.go").is_file() {
        (clone_dist.parent().unwrap().to_path_buf(), "the clone's dist/ (make build)".to_string())
    } else {
        let out = PathBuf::from(env::var("OUT_DIR").unwrap());
        let go = build_from_source(&manifest, &target, &out);
        (out, format!("the Go source, built with {go}"))
    };
    let lib = dir.join("libtoolerr.a");
    println!("cargo:rerun-if-changed={}", lib.display());
    println!("cargo:warning=toolerr: linking {} from {how}", lib.display());
    println!("cargo:rustc-link-search=native={}", dir.canonicalize().unwrap().display());
    println!("cargo:rustc-link-lib=static=toolerr");
    // A Go c-archive needs the C runtime's threads (and dl on older glibc).
    println!("cargo:rustc-link-lib=dylib=pthread");
    println!("cargo:rustc-link-lib=dylib=dl");
}

/// Builds libtoolerr.a into out with `go build -buildmode=c-archive` and
/// returns the Go version used; panics with what is missing.
fn build_from_source(manifest: &Path, target: &str, out: &Path) -> String {
    let src = [manifest.join("gosrc"), manifest.join("../..")]
        .into_iter()
        .find(|d| d.join("go.mod").is_file() && d.join("cshared/main.go").is_file());
    let host = env::var("HOST").unwrap();
    let go = env::var("TOOLERR_GO").unwrap_or_else(|_| "go".into());
    let version = Command::new(&go).arg("version").output().ok().filter(|o| o.status.success());
    let mut missing = Vec::new();
    if src.is_none() {
        missing.push("the core's Go source (gosrc/ in the crate, or a toolerr clone)".to_string());
    }
    if version.is_none() {
        missing.push(format!("Go (`{go}` did not run; install it from https://go.dev/dl or set TOOLERR_GO)"));
    }
    if target != host {
        missing.push(format!(
            "a libtoolerr.a for {target} (no bundled one, and the source build is for the host, {host}, only): \
             build one with GOOS/GOARCH, CGO_ENABLED=1 and a cross C compiler, and set TOOLERR_DIST"
        ));
    }
    if !missing.is_empty() {
        panic!("toolerr: no libtoolerr.a to link, and it cannot be built here: missing {}", missing.join("; "));
    }
    let src = src.unwrap();
    println!("cargo:rerun-if-changed={}", src.join("core").display());
    println!("cargo:rerun-if-changed={}", src.join("cshared").display());
    let status = Command::new(&go)
        .current_dir(&src)
        .env("CGO_ENABLED", "1")
        .args(["build", "-trimpath", "-buildvcs=false", "-ldflags=-buildid=", "-buildmode=c-archive", "-o"])
        .arg(out.join("libtoolerr.a"))
        .arg("./cshared")
        .status()
        .unwrap_or_else(|e| panic!("toolerr: running {go}: {e}"));
    if !status.success() {
        panic!("toolerr: `{go} build -buildmode=c-archive ./cshared` failed in {} ({status})", src.display());
    }
    String::from_utf8_lossy(&version.unwrap().stdout).trim().to_string()
}

/// Copies the Redis store's compare-and-swap script into OUT_DIR for
/// `include_str!`: `cas.lua` in the published crate, `redisstore/cas.lua` in a
/// clone (the one file every language's Redis store runs). Only the `redis`
/// feature needs it.
fn copy_cas_script(manifest: &Path) {
    let out = PathBuf::from(env::var("OUT_DIR").unwrap()).join("cas.lua");
    let src = [manifest.join("cas.lua"), manifest.join("../../redisstore/cas.lua")].into_iter().find(|p| p.is_file());
    match src {
        Some(src) => {
            println!("cargo:rerun-if-changed={}", src.display());
            std::fs::copy(&src, &out).unwrap_or_else(|e| panic!("toolerr: copying {}: {e}", src.display()));
        }
        None if env::var_os("CARGO_FEATURE_REDIS").is_some() => {
            panic!("toolerr: the redis feature needs cas.lua (in the crate, or redisstore/cas.lua in a clone)")
        }
        None => {}
    }
}
