//! How a path is recognised: its URL path, method and headers, compiled from the operator's `match`.

use regex::Regex;

use super::raw::RawMatch;
use super::{error, ConfigError};

/// How a request's URL path is compared. The query string is never part of the comparison.
#[derive(Debug, Clone)]
pub enum PathMatch {
    Any,
    Prefix(String),
    Exact(String),
    Regex(Regex),
}

#[derive(Debug, Clone)]
pub enum ValueMatch {
    Present,
    Exact(String),
    Prefix(String),
    Regex(Regex),
}

#[derive(Debug, Clone)]
pub struct HeaderMatch {
    /// Lower-cased, as Envoy presents header names.
    pub name: String,
    pub value: ValueMatch,
}

#[derive(Debug, Clone)]
pub struct Matcher {
    pub path: PathMatch,
    pub method: Option<String>,
    pub headers: Vec<HeaderMatch>,
}

fn compile(pattern: &str, field: &str) -> Result<Regex, ConfigError> {
    // The pattern alone first: wrapped, an unbalanced one such as `/x)|(.*` would close the group early and come out
    // valid, matching every path.
    Regex::new(pattern).map_err(|e| error(field, format!("invalid regex: {e}")))?;
    // Anchored: a pattern describes the whole path or value, as in Envoy's safe_regex.
    Regex::new(&format!("^(?:{pattern})$")).map_err(|e| error(field, format!("invalid regex once anchored: {e}")))
}

pub(super) fn matcher(raw: &RawMatch, at: &str) -> Result<Matcher, ConfigError> {
    let given = [raw.prefix.is_some(), raw.exact.is_some(), raw.regex.is_some()];
    if given.iter().filter(|g| **g).count() > 1 {
        return Err(error(at, "give at most one of `prefix`, `exact` and `regex`"));
    }
    let path = if let Some(p) = &raw.prefix {
        PathMatch::Prefix(p.clone())
    } else if let Some(e) = &raw.exact {
        PathMatch::Exact(e.clone())
    } else if let Some(r) = &raw.regex {
        PathMatch::Regex(compile(r, &format!("{at}.regex"))?)
    } else {
        PathMatch::Any
    };
    let method = match &raw.method {
        Some(m) if m.is_empty() => return Err(error(format!("{at}.method"), "must not be empty")),
        Some(m) => Some(m.to_ascii_uppercase()),
        None => None,
    };
    let mut headers = Vec::with_capacity(raw.headers.len());
    for (j, h) in raw.headers.iter().enumerate() {
        let hat = format!("{at}.headers[{j}]");
        if h.name.is_empty() {
            return Err(error(format!("{hat}.name"), "must not be empty"));
        }
        let value = match (&h.exact, &h.prefix, &h.regex) {
            (None, None, None) => ValueMatch::Present,
            (Some(e), None, None) => ValueMatch::Exact(e.clone()),
            (None, Some(p), None) => ValueMatch::Prefix(p.clone()),
            (None, None, Some(r)) => ValueMatch::Regex(compile(r, &format!("{hat}.regex"))?),
            _ => return Err(error(hat, "give at most one of `exact`, `prefix` and `regex`")),
        };
        headers.push(HeaderMatch { name: h.name.to_ascii_lowercase(), value });
    }
    Ok(Matcher { path, method, headers })
}
