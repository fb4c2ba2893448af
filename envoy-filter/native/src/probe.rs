//! The module's first filter, `probe`: reads each request's `:path`, as every filter that tells paths apart must,
//! and otherwise lets requests through. Configured, it also shows that the ABI does what PathFence will need:
//! a response header set from what was read, a counter in Envoy's stats, and a local reply.

use serde::Deserialize;

/// The probe's configuration, JSON (the filter's `filter_config` as a `google.protobuf.StringValue`); an empty
/// configuration reads `:path` and does nothing else: the floor of the native build.
#[derive(Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ProbeConfig {
    /// Copies the request's `:path` into this response header.
    #[serde(default)]
    pub path_header: Option<String>,
    /// Answers requests whose path starts with this with a local `503`.
    #[serde(default)]
    pub refuse_prefix: Option<String>,
    /// Counts the requests seen in the counter `requests`.
    #[serde(default)]
    pub count_requests: bool,
}

/// What to do with a request.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    Refuse,
}

impl ProbeConfig {
    /// Parses and checks a configuration; `Err` names the field and what is wrong with it.
    pub fn parse(config: &[u8]) -> Result<ProbeConfig, String> {
        if config.trim_ascii().is_empty() {
            return Ok(ProbeConfig::default());
        }
        let parsed: ProbeConfig =
            serde_json::from_slice(config).map_err(|e| format!("invalid probe configuration: {e}"))?;
        if let Some(name) = &parsed.path_header {
            let token = |c: u8| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-';
            if name.is_empty() || !name.bytes().all(token) {
                return Err(format!(
                    "invalid probe configuration: field `path_header`: `{name}` is not a lowercase header name \
                     (a-z, 0-9, -)"
                ));
            }
        }
        if parsed.refuse_prefix.as_deref().is_some_and(|p| !p.starts_with('/')) {
            return Err("invalid probe configuration: field `refuse_prefix`: must start with `/`".to_string());
        }
        Ok(parsed)
    }

    pub fn verdict(&self, path: &[u8]) -> Verdict {
        match &self.refuse_prefix {
            Some(prefix) if path.starts_with(prefix.as_bytes()) => Verdict::Refuse,
            _ => Verdict::Pass,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_configuration_only_reads_the_path() {
        assert_eq!(ProbeConfig::parse(b"").unwrap(), ProbeConfig::default());
        assert_eq!(ProbeConfig::parse(b"  \n").unwrap().verdict(b"/anything"), Verdict::Pass);
    }

    #[test]
    fn refuses_only_under_the_prefix() {
        let c = ProbeConfig::parse(br#"{"refuse_prefix": "/blocked"}"#).unwrap();
        assert_eq!(c.verdict(b"/blocked/1"), Verdict::Refuse);
        assert_eq!(c.verdict(b"/open"), Verdict::Pass);
        assert_eq!(c.verdict(b""), Verdict::Pass);
    }

    #[test]
    fn bad_configurations_name_the_field() {
        let e = ProbeConfig::parse(br#"{"path_heder": "x"}"#).unwrap_err();
        assert!(e.contains("unknown field `path_heder`"), "{e}");
        let e = ProbeConfig::parse(br#"{"path_header": "X Path"}"#).unwrap_err();
        assert!(e.contains("field `path_header`"), "{e}");
        let e = ProbeConfig::parse(br#"{"refuse_prefix": "blocked"}"#).unwrap_err();
        assert!(e.contains("field `refuse_prefix`"), "{e}");
        let e = ProbeConfig::parse(b"{").unwrap_err();
        assert!(e.contains("EOF"), "{e}");
    }
}
