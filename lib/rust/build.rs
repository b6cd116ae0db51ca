//! Finds libplacement:
//!  1. `PLACEMENT_LIB_DIR`, when set: links `placement` from that directory
//!     (the shared library if it holds one, else the static one; set
//!     `PLACEMENT_STATIC=1` to insist on `libplacement.a`);
//!  2. built in the project's tree: the project's own `build/libplacement.a`,
//!     linked statically, so tests and examples run with no LD_LIBRARY_PATH
//!     (run `make` in the project's root first);
//!  3. otherwise `pkg-config --libs libplacement` (`PKG_CONFIG` names the
//!     command), as installed by `make install`.
use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=PLACEMENT_LIB_DIR");
    println!("cargo:rerun-if-env-changed=PLACEMENT_STATIC");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");
    println!("cargo:rerun-if-changed=build.rs");

    if let Some(dir) = env::var_os("PLACEMENT_LIB_DIR") {
        let dir = PathBuf::from(dir);
        for lib in ["libplacement.a", "libplacement.so"] {
            if dir.join(lib).exists() {
                println!("cargo:rerun-if-changed={}", dir.join(lib).display());
            }
        }
        println!("cargo:rustc-link-search=native={}", dir.display());
        let kind = if env::var_os("PLACEMENT_STATIC").map_or(false, |v| v == "1") {
            "static="
        } else {
            ""
        };
        println!("cargo:rustc-link-lib={}placement", kind);
        return;
    }

    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let root = manifest.join("..").join("..");
    let in_tree = root.join("include").join("placement.h").is_file();
    let archive = root.join("build").join("libplacement.a");
    if in_tree && archive.is_file() {
        let dir = canonical(&root.join("build"));
        println!("cargo:rerun-if-changed={}", archive.display());
        println!("cargo:rustc-link-search=native={}", dir.display());
        println!("cargo:rustc-link-lib=static=placement");
        return;
    }

    let pkg_config = env::var("PKG_CONFIG").unwrap_or_else(|_| "pkg-config".to_owned());
    match Command::new(&pkg_config)
        .args(["--libs", "libplacement"])
        .output()
    {
        Ok(out) if out.status.success() => {
            let flags = String::from_utf8_lossy(&out.stdout).into_owned();
            for flag in flags.split_whitespace() {
                if let Some(dir) = flag.strip_prefix("-L") {
                    println!("cargo:rustc-link-search=native={}", dir);
                } else if let Some(lib) = flag.strip_prefix("-l") {
                    println!("cargo:rustc-link-lib={}", lib);
                }
            }
        }
        _ => {
            let hint = if in_tree {
                "run `make` in the project's root to build build/libplacement.a"
            } else {
                "install it (make install) or set PLACEMENT_LIB_DIR"
            };
            panic!(
                "libplacement not found: no PLACEMENT_LIB_DIR, no {}, and `{} --libs libplacement` failed; {}",
                archive.display(),
                pkg_config,
                hint
            );
        }
    }
}

fn canonical(p: &Path) -> PathBuf {
    p.canonicalize().unwrap_or_else(|_| p.to_path_buf())
}
