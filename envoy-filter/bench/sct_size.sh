#!/usr/bin/env bash
# What the SCT model adds to the filter's .wasm (not a test): the release module built three times from a copy of
# this folder: without the model (its `mod` line taken out of lib.rs), as it is, and with an export that links every
# part of src/sct the runtime will call (recording, the wire, the window, the analysis, the guards and the decision's
# log line). Until the runtime calls the model, LTO drops it, so the first two should be the same size; the third
# shows what wiring it in will add.
# Usage: envoy-filter/bench/sct_size.sh
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
source "$here/../scripts/env.sh"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# The copy shares this folder's build cache of dependencies but not its target folder's outputs.
tar -C "$here" --exclude=./target -cf - . | tar -C "$work" -xf -
export CARGO_TARGET_DIR="$here/target/sct-size"
build() {
  # Cargo judges freshness by modification times, and tar restores old ones: every build must see its sources as new.
  find "$work/src" -type f -exec touch {} +
  (cd "$work" && cargo build --release --locked --quiet --target wasm32-wasip1 --lib)
  cp "$CARGO_TARGET_DIR/wasm32-wasip1/release/pathfence_envoy_filter.wasm" "$work/$1.wasm"
  stat -c %s "$work/$1.wasm"
}
sed -i '/^pub mod sct;$/d' "$work/src/lib.rs"
without=$(build without)
tar -C "$here" -cf - src/lib.rs | tar -C "$work" -xf -
unwired=$(build unwired)
cat >> "$work/src/sct/mod.rs" <<'RUST'

/// Links the model in, for measuring its size only.
#[no_mangle]
pub extern "C" fn pathfence_sct_size_probe(ptr: *const u8, len: usize, now_ns: u64) -> u32 {
    use crate::sct::{accumulator::*, decision::*, guards::*, settings::*, tuner::*, window::*, wire::*};
    // SAFETY: only ever built to be measured, never called.
    let bytes = unsafe { core::slice::from_raw_parts(ptr, len) };
    let interval = 50_000_000;
    let mut acc = IntervalAccumulator::aligned(interval, now_ns, 64);
    acc.wait_started(now_ns);
    acc.wait_ended(now_ns + 1);
    acc.admitted(now_ns + 1);
    acc.released(now_ns + 1, now_ns + len as u64);
    acc.close_until(now_ns + 2 * interval);
    let settings = ModelSettings::default();
    if settings.check().is_err() {
        return 0;
    }
    let guards = Guards { min: 1, max: 1000, max_step: 8, hysteresis: 2 };
    let mut tuner = PathTuner::new(SampleWindow::new(interval, now_ns, 1200, 4), settings, guards, 64);
    let mut value = Vec::new();
    while let Some(totals) = acc.pop_closed() {
        WorkerInterval { worker: 1, interval_ns: interval, totals }.encode_into(&mut value);
    }
    for record in decode_all(bytes).chain(decode_all(&value)) {
        let _ = tuner.merge(&record, now_ns + 2 * interval);
    }
    let decision = tuner.decide(now_ns + 2 * interval);
    log::info!("pathfence: {decision}");
    decision.limit.wrapping_add(decision.gauge(Gauge::QLower) as u32)
}
RUST
with=$(build with)
echo "pathfence_envoy_filter.wasm (cargo's release build, untrimmed): $without bytes without src/sct," \
  "$unwired bytes with it but not called (+$((unwired - without))), $with bytes with all of it linked" \
  "(+$((with - without)))"
if cmp -s "$work/without.wasm" "$work/unwired.wasm"; then
  echo "without src/sct and with it unwired, the modules are byte for byte the same"
else
  # Seen so far: the same functions, with the same body sizes, in another order (the crate's symbols changed).
  echo "without src/sct and with it unwired, the modules differ in" \
    "$(cmp -l "$work/without.wasm" "$work/unwired.wasm" | wc -l) bytes"
fi
# PATHFENCE_SCT_SIZE_KEEP=DIR keeps the three modules there for a closer look.
if [ -n "${PATHFENCE_SCT_SIZE_KEEP:-}" ]; then
  cp "$work"/without.wasm "$work"/unwired.wasm "$work"/with.wasm "$PATHFENCE_SCT_SIZE_KEEP"/
fi
