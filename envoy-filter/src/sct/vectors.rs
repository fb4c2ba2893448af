//! sct-tuner's shared test vectors (`sct-tuner/src/test/resources/vectors`), read from the same files as its
//! `SharedVectorsTest`: the filter's model must give the same verdict, range, recommendation and plateau
//! throughput on every analyzer case, and the same samples on every recorder case.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::accumulator::IntervalAccumulator;
use super::interval::{IntervalTotals, Sample};
use super::plateau::Analyzer;
use super::settings::ModelSettings;
use super::window::SampleWindow;
use super::wire::WorkerInterval;

/// Samples and response times compare to this, as on the Java side.
const EXACT: f64 = 1e-9;

fn vectors(kind: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../sct-tuner/src/test/resources/vectors").join(kind);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no vectors in {}", dir.display());
    files
}

fn read(file: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap()
}

fn name(file: &Path) -> String {
    file.file_stem().unwrap().to_string_lossy().into_owned()
}

fn number(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// Runs `check` on every vector of `kind` and fails once, listing every vector that failed.
fn run_all(kind: &str, check: fn(&Value) -> Result<(), String>) -> usize {
    let files = vectors(kind);
    let failures: Vec<String> =
        files.iter().filter_map(|f| check(&read(f)).err().map(|why| format!("{}: {why}", name(f)))).collect();
    assert!(
        failures.is_empty(),
        "{} of {} {kind} vectors failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
    println!("{} {kind} vectors passed", files.len());
    files.len()
}

fn same_int(what: &str, actual: Option<u32>, expected: &Value) -> Result<(), String> {
    let expected = expected.as_u64().map(|e| e as u32);
    if actual == expected {
        Ok(())
    } else {
        Err(format!("{what} {actual:?}, expected {expected:?}"))
    }
}

fn analyzer_case(vector: &Value) -> Result<(), String> {
    let settings: ModelSettings = serde_json::from_value(vector["config"].clone()).map_err(|e| e.to_string())?;
    settings.check().map_err(|e| e.to_string())?;
    let samples: Vec<Sample> = vector["samples"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| Sample {
            concurrency: number(&s[0]),
            throughput: number(&s[1]),
            response_time_ms: number(&s[2]),
            waiting: number(&s[3]),
        })
        .collect();
    let result = Analyzer::new(settings).analyze(&samples);
    let expected = &vector["expected"];
    let verdict = expected["verdict"].as_str().unwrap();
    if result.verdict.name() != verdict {
        return Err(format!("verdict {}, expected {verdict} ({})", result.verdict.name(), result.reason));
    }
    same_int("q_lower", result.q_lower, &expected["q_lower"])?;
    same_int("q_upper", result.q_upper, &expected["q_upper"])?;
    same_int("recommended", result.recommended, &expected["recommended"])?;
    match (result.plateau_throughput, expected["plateau_throughput"].as_f64()) {
        (None, None) => {}
        (Some(a), Some(e)) if (a - e).abs() <= EXACT => {}
        (a, e) => return Err(format!("plateau_throughput {a:?}, expected {e:?}")),
    }
    if result.samples != samples.len() {
        return Err(format!("{} samples counted of {}", result.samples, samples.len()));
    }
    if result.verdict.recommends() != result.recommended.is_some() {
        return Err(format!("{} with recommendation {:?}", verdict, result.recommended));
    }
    Ok(())
}

fn ns(ms: &Value) -> u64 {
    (number(ms) * 1e6).round() as u64
}

/// Feeds one worker's closed intervals through the wire and into a window, as the filter will, and reads the
/// window's totals of `[origin, end)` back.
fn through_window(acc: &mut IntervalAccumulator, origin: u64, end: u64) -> Vec<IntervalTotals> {
    let interval = acc.interval_ns();
    acc.close_until(end);
    let intervals = ((end - origin) / interval) as usize;
    let mut window = SampleWindow::new(interval, origin, intervals, 0);
    let mut value = Vec::new();
    while let Some(totals) = acc.pop_closed() {
        WorkerInterval { worker: 1, interval_ns: interval, totals }.encode_into(&mut value);
    }
    for record in super::wire::decode_all(&value) {
        window.merge(&record, end).unwrap();
    }
    assert_eq!(acc.dropped(), 0);
    window.totals_through(end).collect()
}

fn recorder_case(vector: &Value) -> Result<(), String> {
    let interval = ns(&vector["interval_ms"]);
    let mut actual: Vec<(String, Vec<IntervalTotals>)> = Vec::new();
    if let Some(records) = vector["records"].as_array() {
        let mut paths: Vec<&str> = Vec::new();
        for r in records {
            let path = r["path"].as_str().unwrap();
            if !paths.contains(&path) {
                paths.push(path);
            }
        }
        for path in paths {
            let mine: Vec<(u64, u64)> = records
                .iter()
                .filter(|r| r["path"] == path)
                .map(|r| (ns(&r["arrival_ms"]), ns(&r["departure_ms"])))
                .collect();
            // (time, 0 for an arrival and 1 for a departure, arrival time): arrivals first at one instant, so
            // that a request taking no time arrives before it leaves.
            let mut events: Vec<(u64, u8, u64)> = mine.iter().flat_map(|&(a, d)| [(a, 0, a), (d, 1, a)]).collect();
            events.sort();
            let first = events.first().map_or(0, |e| e.0);
            let last = events.iter().map(|e| e.0).max().unwrap_or(0);
            let origin = first - first % interval;
            let end = last - last % interval + interval;
            let mut acc = IntervalAccumulator::starting_at(interval, origin, ((end - origin) / interval) as usize);
            for (t, kind, arrival) in events {
                if kind == 0 {
                    acc.admitted(t);
                } else {
                    acc.released(arrival, t);
                }
            }
            actual.push((path.to_string(), through_window(&mut acc, origin, end)));
        }
    } else {
        let origin = vector["origin_ns"].as_u64().unwrap();
        let drain = vector["drain_ns"].as_u64().unwrap();
        let mut acc = IntervalAccumulator::starting_at(interval, origin, 1024);
        for e in vector["events"].as_array().unwrap() {
            let t = e["t_ns"].as_u64().unwrap();
            match e["kind"].as_str().unwrap() {
                "arrive" => acc.admitted(t),
                "depart" => acc.released(e["arrival_ns"].as_u64().unwrap(), t),
                "wait_start" => acc.wait_started(t),
                "wait_end" => acc.wait_ended(t),
                other => return Err(format!("unknown event {other}")),
            }
        }
        actual.push(("online".to_string(), through_window(&mut acc, origin, drain)));
    }
    let expected = vector["expected"].as_object().unwrap();
    let expected_paths: Vec<&String> = expected.keys().collect();
    let actual_paths: Vec<&String> = actual.iter().map(|(p, _)| p).collect();
    let mut sorted = actual_paths.clone();
    sorted.sort();
    if sorted != expected_paths {
        return Err(format!("paths {actual_paths:?}, expected {expected_paths:?}"));
    }
    for (path, totals) in &actual {
        let want = expected[path].as_array().unwrap();
        if totals.len() != want.len() {
            return Err(format!("{path}: {} samples, expected {}", totals.len(), want.len()));
        }
        for (i, (t, e)) in totals.iter().zip(want).enumerate() {
            let s = t.sample(interval);
            let pairs = [
                ("concurrency", s.concurrency, &e["concurrency"]),
                ("throughput", s.throughput, &e["throughput"]),
                ("response_time_ms", s.response_time_ms, &e["response_time_ms"]),
                ("waiting", s.waiting, &e["waiting"]),
            ];
            if t.start_ns != e["start_ns"].as_u64().unwrap() {
                return Err(format!("{path} sample {i}: start {} ns, expected {}", t.start_ns, e["start_ns"]));
            }
            for (what, a, want) in pairs {
                if (a - number(want)).abs() > EXACT {
                    return Err(format!("{path} sample {i}: {what} {a}, expected {want}"));
                }
            }
        }
    }
    Ok(())
}

#[test]
fn every_analyzer_vector_gives_sct_tuners_verdict_range_and_recommendation() {
    assert!(run_all("analyzer", analyzer_case) >= 25);
}

#[test]
fn every_recorder_vector_gives_sct_tuners_samples_through_the_wire_and_the_window() {
    assert!(run_all("recorder", recorder_case) >= 6);
}
