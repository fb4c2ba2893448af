#!/usr/bin/env python3
"""Writes the shared SCT test vectors next to this file. Run it after changing a case; commit its output.

Analyzer cases state their expected result by hand from how the samples were built (see each comment); they are
not computed by the Java code. Recorder cases are computed by the small reference integrator below, written
independently of the Java recorder, from the definitions in sct-tuner/README.md.
"""
import json
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))
SPREAD = [-0.02, -0.01, 0.0, 0.01, 0.02]  # mean exactly 0: a level's mean throughput is exactly its base


def level_samples(level, base, rt_ms=None, waiting=0.0, spread=SPREAD, q_offset=0.0):
    rt = 10.0 * level if rt_ms is None else rt_ms
    return [[level + q_offset, base * (1 + d), rt, waiting] for d in spread]


def write(kind, name, case):
    os.makedirs(os.path.join(HERE, kind), exist_ok=True)
    with open(os.path.join(HERE, kind, name + ".json"), "w") as f:
        json.dump(case, f, indent=1)
        f.write("\n")


def analyzer_cases():
    # Throughput 100/s per permit up to 6, flat to 10, then 10 % lower per level: plateau [6, 10].
    def knee6(n):
        return 100.0 * min(n, 6) if n <= 10 else 600.0 * (1 - 0.1 * (n - 10))
    write("analyzer", "plateau_then_fall", {
        "description": "flat from 6 to 10, falling above: Q_lower 6, Q_upper 10",
        "config": {},
        "samples": [s for n in range(1, 13) for s in level_samples(n, knee6(n))],
        "expected": {"verdict": "PLATEAU", "q_lower": 6, "q_upper": 10, "recommended": 6,
                     "plateau_throughput": 600.0}})
    write("analyzer", "response_time_limit", {
        "description": "same curve, RT = 10 ms per level, limit 85 ms: Q_upper stops at 8",
        "config": {"response_time_limit_ms": 85.0},
        "samples": [s for n in range(1, 13) for s in level_samples(n, knee6(n))],
        "expected": {"verdict": "PLATEAU", "q_lower": 6, "q_upper": 8, "recommended": 6,
                     "plateau_throughput": 600.0}})
    write("analyzer", "rising_with_waiting", {
        "description": "100/s per permit up to the top level 8 where 3 requests wait: explore 8 + ceil(8*0.25)",
        "config": {},
        "samples": [s for n in range(1, 9) for s in level_samples(n, 100.0 * n, waiting=3.0 if n == 8 else 0.0)],
        "expected": {"verdict": "EXPLORE", "q_lower": 8, "q_upper": 8, "recommended": 10,
                     "plateau_throughput": 800.0}})
    write("analyzer", "rising_explore_step_bounded", {
        "description": "rising as 100 n^2 (level 39 is 4.9 % below 40) to level 40 with waiting:"
                       " step min(max_step 8, ceil(40*0.25)=10) = 8",
        "config": {"explore_max_step": 8},
        "samples": [s for n in range(36, 41) for s in level_samples(n, 100.0 * n * n, waiting=2.0)],
        "expected": {"verdict": "EXPLORE", "q_lower": 40, "q_upper": 40, "recommended": 48,
                     "plateau_throughput": 160000.0}})
    write("analyzer", "rising_without_waiting", {
        "description": "rising to the top level 8 with nobody waiting: no plateau, no recommendation",
        "config": {},
        "samples": [s for n in range(1, 9) for s in level_samples(n, 100.0 * n)],
        "expected": {"verdict": "NO_PLATEAU", "q_lower": 8, "q_upper": 8, "recommended": None,
                     "plateau_throughput": 800.0}})
    write("analyzer", "pinned_single_level_probes_down", {
        "description": "one qualified group: two samples on 11 merge into level 12 (20 samples, 40 requests"
                       " waiting), which stands at round(262/22) = 12: probe down by ceil(12*0.25) = 3",
        "config": {},
        "samples": level_samples(12, 1200.0, waiting=40.0) * 4 + level_samples(11, 1100.0)[:2],
        "expected": {"verdict": "EXPLORE", "q_lower": 12, "q_upper": 12, "recommended": 9,
                     "plateau_throughput": (20 * 1200.0 + 1100.0 * 0.98 + 1100.0 * 0.99) / 22}})
    write("analyzer", "pinned_at_one_probes_up", {
        "description": "one qualified level, 1, with 2 requests waiting: nothing lies below one permit, so probe"
                       " up by max(1, ceil(1*0.25)) = 1 instead of recommending 1 again",
        "config": {},
        "samples": level_samples(1, 100.0, waiting=2.0) * 4,
        "expected": {"verdict": "EXPLORE", "q_lower": 1, "q_upper": 1, "recommended": 2,
                     "plateau_throughput": 100.0}})
    # Throughput proportional to concurrency (25/s per permit) up to the reservation, 50, where 5 requests wait.
    # Level 49 is 2 % below the peak: significantly (25/s against 1.645 * sqrt(75.0 + 78.1) = 20.4/s of noise) but
    # within the 3 % tolerance, so it is on the plateau and Q_lower is 49; level 48 (4 % below) is not. The rise from
    # 49 to 50 is significant and all of the proportional one (1225 * 1 / 49 = 25/s): the reservation cuts the curve
    # before its plateau, so explore 50 + ceil(50 * 0.25) = 63 instead of creeping down to 49.
    write("analyzer", "rising_in_proportion_at_the_reservation_explores", {
        "description": "throughput still proportional to concurrency at the binding top level, the level below"
                       " within the tolerance: explore up, do not ratchet down",
        "config": {},
        "samples": [s for n in range(40, 51) for s in level_samples(n, 25.0 * n, waiting=5.0 if n == 50 else 0.0)],
        "expected": {"verdict": "EXPLORE", "q_lower": 49, "q_upper": 50, "recommended": 63,
                     "plateau_throughput": (1225.0 + 1250.0) / 2}})
    # Flat at 1000/s from 40 to 50, the top level 1 % higher where requests wait: the rise is noise (10/s against
    # about 16/s) and far from proportional (1000 * 10 / 40 = 250/s), so the plateau stands and nothing walks up.
    write("analyzer", "flat_plateau_peak_at_the_reservation_holds", {
        "description": "a flat plateau whose top, binding level happens to be highest: plateau from 40, no exploring",
        "config": {},
        "samples": [s for n in range(40, 51)
                    for s in level_samples(n, 1010.0 if n == 50 else 1000.0, waiting=5.0 if n == 50 else 0.0)],
        "expected": {"verdict": "PLATEAU", "q_lower": 40, "q_upper": 50, "recommended": 40,
                     "plateau_throughput": (10 * 1000.0 + 1010.0) / 11}})
    write("analyzer", "two_levels_peak_at_top_probes_up", {
        "description": "two qualified levels, throughput higher at the top one where requests wait: up by 2",
        "config": {},
        "samples": level_samples(5, 500.0) + level_samples(6, 600.0, waiting=1.0),
        "expected": {"verdict": "EXPLORE", "q_lower": 6, "q_upper": 6, "recommended": 8,
                     "plateau_throughput": 600.0}})
    write("analyzer", "two_levels_peak_at_bottom_probes_down", {
        "description": "two qualified levels, throughput higher at the lower one, requests wait at the top:"
                       " down from 40 by ceil(40*0.25) = 10",
        "config": {},
        "samples": level_samples(40, 3000.0) + level_samples(48, 2000.0, waiting=100.0),
        "expected": {"verdict": "EXPLORE", "q_lower": 40, "q_upper": 40, "recommended": 30,
                     "plateau_throughput": 3000.0}})
    write("analyzer", "too_few_levels", {
        "description": "two qualified levels (a third has only 4 samples), nobody waits: insufficient data",
        "config": {},
        "samples": [s for n in (3, 4) for s in level_samples(n, 100.0 * n)] + level_samples(5, 500.0)[:4],
        "expected": {"verdict": "INSUFFICIENT_DATA", "q_lower": None, "q_upper": None, "recommended": None,
                     "plateau_throughput": None}})
    write("analyzer", "empty_window", {
        "description": "no samples at all",
        "config": {},
        "samples": [],
        "expected": {"verdict": "INSUFFICIENT_DATA", "q_lower": None, "q_upper": None, "recommended": None,
                     "plateau_throughput": None}})
    wide = [-0.3, -0.15, 0.0, 0.15, 0.3]
    # Level 3 is 6 % below the peak, more than the 3 % tolerance, but with +-30 % noise the shortfall (60/s) is far
    # inside 1.645 * sqrt(SE_3^2 + SE_peak^2) (about 239/s), so it is on the plateau. Level 2 (300/s) is not.
    write("analyzer", "shortfall_not_significant", {
        "description": "a 6 % shortfall hidden in 30 % noise stays on the plateau",
        "config": {},
        "samples": level_samples(2, 300.0) + level_samples(3, 940.0, spread=wide)
                   + [s for n in (4, 5, 6) for s in level_samples(n, 1000.0, spread=wide)],
        "expected": {"verdict": "PLATEAU", "q_lower": 3, "q_upper": 6, "recommended": 3,
                     "plateau_throughput": 985.0}})
    # Level 5 is 2 % below the peak with almost no noise: significant but not relevant (tolerance 3 %).
    write("analyzer", "shortfall_not_relevant", {
        "description": "a significant 2 % shortfall is within the 3 % tolerance",
        "config": {},
        "samples": level_samples(4, 800.0, spread=[0.0] * 5) + level_samples(5, 980.0, spread=[0.0] * 5)
                   + [s for n in (6, 7) for s in level_samples(n, 1000.0, spread=[0.0] * 5)],
        "expected": {"verdict": "PLATEAU", "q_lower": 5, "q_upper": 7, "recommended": 5,
                     "plateau_throughput": (980.0 + 1000.0 + 1000.0) / 3}})
    # Width 4: Q 12.4 and 13.9 both fall on level 12 (round(3.1) = 3, round(3.475) = 3), Q 14.1 on 16.
    samples = []
    for level, base in ((4, 400.0), (8, 800.0), (12, 1000.0), (16, 1000.0), (20, 900.0)):
        samples += level_samples(level, base, q_offset=0.4)
    samples += level_samples(12, 1000.0, q_offset=1.9)[:2] + level_samples(16, 1000.0, q_offset=-1.9)[:3]
    write("analyzer", "level_width_four", {
        "description": "levels grouped by 4: plateau on 12 and 16",
        "config": {"level_width": 4},
        "samples": samples,
        "expected": {"verdict": "PLATEAU", "q_lower": 12, "q_upper": 16, "recommended": 12,
                     "plateau_throughput": 1000.0 * (1 + (-0.02 - 0.01 - 0.02 - 0.01 + 0.0) / 15)}})
    # Requests wait at the top of two levels, and the top has the higher throughput, but only by 1 % (inside the
    # 3 % tolerance): the rise is noise, so the same throughput may come with less concurrency. Look below the
    # lowest level: 10 - ceil(10 * 0.25) = 7. The range reported for a probe is the peak level.
    write("analyzer", "two_levels_rise_within_noise_probes_down", {
        "description": "two qualified levels, the top one 1 % higher where requests wait: down from 10 by 3",
        "config": {},
        "samples": level_samples(10, 1000.0) + level_samples(12, 1010.0, waiting=4.0),
        "expected": {"verdict": "EXPLORE", "q_lower": 12, "q_upper": 12, "recommended": 7,
                     "plateau_throughput": 1010.0}})
    # The same within-the-noise rise from level 1: nothing lies below one permit and the rise shows nothing worth
    # a step up, so there is no move to make.
    write("analyzer", "two_levels_from_one_within_noise_is_insufficient", {
        "description": "levels 1 and 2, the rise within the tolerance, requests wait at 2: no probe either way",
        "config": {},
        "samples": level_samples(1, 100.0) + level_samples(2, 102.0, waiting=3.0),
        "expected": {"verdict": "INSUFFICIENT_DATA", "q_lower": None, "q_upper": None, "recommended": None,
                     "plateau_throughput": None}})
    # The proportional rise of rising_in_proportion_at_the_reservation_explores, but level 50 answers in 500 ms,
    # over the 495 ms limit: Q_upper stops at Q_lower = 49, and no step goes past a level whose response time
    # already broke the limit. A plateau at 49.
    write("analyzer", "rising_in_proportion_stopped_by_response_time_is_plateau", {
        "description": "proportional rise at the binding top level, but the top level breaks the response-time"
                       " limit: plateau at 49, no exploring",
        "config": {"response_time_limit_ms": 495.0},
        "samples": [s for n in range(40, 51) for s in level_samples(n, 25.0 * n, waiting=5.0 if n == 50 else 0.0)],
        "expected": {"verdict": "PLATEAU", "q_lower": 49, "q_upper": 49, "recommended": 49,
                     "plateau_throughput": 1225.0}})
    # Idle intervals (Q rounds to 0) count as samples of the window but belong to no level: the plateau_then_fall
    # result is unchanged.
    write("analyzer", "idle_samples_ignored", {
        "description": "plateau_then_fall with twelve idle samples (Q 0, 0.2, 0.49): same plateau [6, 10]",
        "config": {},
        "samples": [[q, 0.0, 0.0, 0.0] for q in (0.0, 0.2, 0.49) * 4]
                   + [s for n in range(1, 13) for s in level_samples(n, knee6(n))],
        "expected": {"verdict": "PLATEAU", "q_lower": 6, "q_upper": 10, "recommended": 6,
                     "plateau_throughput": 600.0}})
    # shortfall_not_relevant's samples with neither tolerance nor noise allowance: level 5's 2 % shortfall now
    # puts it below the plateau, which starts at 6 (6 and 7 are exactly 1000/s).
    write("analyzer", "zero_tolerance_and_z", {
        "description": "tolerance 0 and z 0: any shortfall is below the plateau",
        "config": {"tolerance": 0.0, "confidence_z": 0.0},
        "samples": level_samples(4, 800.0, spread=[0.0] * 5) + level_samples(5, 980.0, spread=[0.0] * 5)
                   + [s for n in (6, 7) for s in level_samples(n, 1000.0, spread=[0.0] * 5)],
        "expected": {"verdict": "PLATEAU", "q_lower": 6, "q_upper": 7, "recommended": 6,
                     "plateau_throughput": 1000.0}})
    # rising_with_waiting's samples (3 requests wait at the top level 8) against a waiting threshold of 4: not
    # enough waiting to act on, so the curve only has not reached its knee.
    write("analyzer", "waiting_below_threshold", {
        "description": "3 requests wait at the top level but the threshold is 4: no plateau, no step",
        "config": {"waiting_threshold": 4.0},
        "samples": [s for n in range(1, 9) for s in level_samples(n, 100.0 * n, waiting=3.0 if n == 8 else 0.0)],
        "expected": {"verdict": "NO_PLATEAU", "q_lower": 8, "q_upper": 8, "recommended": None,
                     "plateau_throughput": 800.0}})
    write("analyzer", "explore_fraction_half", {
        "description": "rising_with_waiting with explore_fraction 0.5: explore 8 + ceil(8 * 0.5) = 12",
        "config": {"explore_fraction": 0.5},
        "samples": [s for n in range(1, 9) for s in level_samples(n, 100.0 * n, waiting=3.0 if n == 8 else 0.0)],
        "expected": {"verdict": "EXPLORE", "q_lower": 8, "q_upper": 8, "recommended": 12,
                     "plateau_throughput": 800.0}})
    # Three samples per level, 1 to 8, rising, nobody waits. With 3 samples a level qualifies and 8 levels are
    # enough. (With the defaults, pairs of levels would merge into 4 groups, too few for min_levels 8.)
    write("analyzer", "min_samples_and_levels", {
        "description": "min_samples_per_level 3 and min_levels 8: eight levels of three samples, still rising",
        "config": {"min_samples_per_level": 3, "min_levels": 8},
        "samples": [s for n in range(1, 9) for s in level_samples(n, 100.0 * n, spread=SPREAD[1:4])],
        "expected": {"verdict": "NO_PLATEAU", "q_lower": 8, "q_upper": 8, "recommended": None,
                     "plateau_throughput": 800.0}})
    # A level with two huge samples does not qualify and cannot become the peak.
    write("analyzer", "sparse_level_ignored", {
        "description": "level 9 has two samples at 5000/s; it does not qualify, the plateau stays [6, 8]",
        "config": {},
        "samples": [s for n in range(4, 9) for s in level_samples(n, 100.0 * min(n, 6))]
                   + [[9.0, 5000.0, 90.0, 0.0], [9.1, 5000.0, 90.0, 0.0]],
        "expected": {"verdict": "PLATEAU", "q_lower": 6, "q_upper": 8, "recommended": 6,
                     "plateau_throughput": 600.0}})


def reference_samples(events, interval_ns, origin_ns, end_ns):
    """events: (t, kind, arrival) in processing order; returns one dict per interval [origin, end)."""
    out = []
    start = origin_ns
    while start < end_ns:
        stop = start + interval_ns
        area = wait_area = 0
        completions = 0
        rt = 0
        n = w = 0
        last = start
        # replay everything from the beginning: slow and obviously right
        n = w = 0
        prev = origin_ns
        for t, kind, arrival in events:
            lo, hi = max(prev, start), min(t, stop)
            if hi > lo:
                area += n * (hi - lo)
                wait_area += w * (hi - lo)
            prev = max(prev, t)
            if kind == "arrive":
                n += 1
            elif kind == "depart":
                n -= 1
                if start <= t < stop:
                    completions += 1
                    rt += t - arrival
            elif kind == "wait_start":
                w += 1
            elif kind == "wait_end":
                w -= 1
        lo = max(prev, start)
        if stop > lo:
            area += n * (stop - lo)
            wait_area += w * (stop - lo)
        out.append({"start_ns": start,
                    "concurrency": area / interval_ns,
                    "throughput": completions / (interval_ns / 1e9),
                    "response_time_ms": 0.0 if completions == 0 else rt / 1e6 / completions,
                    "waiting": wait_area / interval_ns})
        start = stop
    return out


def recorder_cases():
    ms = 1_000_000

    def records_case(name, description, interval_ms, records):
        interval = int(interval_ms * ms)
        expected = {}
        for path in dict.fromkeys(r[0] for r in records):
            mine = [r for r in records if r[0] == path]
            events = []
            for _, a, d in mine:
                a_ns, d_ns = round(a * ms), round(d * ms)
                events.append((a_ns, 0, "arrive", a_ns))
                events.append((d_ns, 1, "depart", a_ns))
            events.sort(key=lambda e: (e[0], e[1]))
            first = min(e[0] for e in events)
            last = max(e[0] for e in events)
            origin = first - first % interval
            end = last - last % interval + interval
            expected[path] = reference_samples([(t, k, a) for t, _, k, a in events], interval, origin, end)
        write("recorder", name, {
            "description": description,
            "interval_ms": interval_ms,
            "records": [{"path": p, "arrival_ms": a, "departure_ms": d} for p, a, d in records],
            "expected": expected})

    records_case("single_request", "one request inside one interval", 50, [("a", 10, 30)])
    records_case("spanning_intervals", "a request over three intervals and a short one inside the second", 50,
                 [("a", 40, 120), ("a", 60, 70)])
    records_case("two_paths_fractional", "two paths, fractional milliseconds, a request ending on a boundary",
                 50, [("orders", 0.25, 12.75), ("stock", 1.5, 100.0), ("orders", 5.125, 50.0),
                      ("orders", 49.5, 51.5), ("stock", 60.0, 60.0)])
    records_case("idle_gap", "an idle interval between two bursts stays in the series with Q = 0", 100,
                 [("a", 0, 30), ("a", 10, 90), ("a", 250, 260), ("a", 255, 299.5)])

    # Online: explicit events in time order, including waiting, on an origin that is not a multiple of the interval.
    interval = 100 * ms
    origin = 7 * ms
    raw = [(10, "arrive", None), (20, "wait_start", None), (40, "arrive", None), (60, "depart", 10),
           (60, "wait_end", None), (60, "arrive", None), (150, "depart", 40), (230, "depart", 60),
           (280, "wait_start", None), (290, "wait_end", None)]
    events = [(t * ms, k, None if a is None else a * ms) for t, k, a in raw]
    write("recorder", "online_events_with_waiting", {
        "description": "online calls with nanosecond timestamps, waiting included, origin 7 ms, drained at 307 ms",
        "interval_ms": 100,
        "origin_ns": origin,
        "drain_ns": 307 * ms,
        "events": [{"t_ns": t, "kind": k, **({} if a is None else {"arrival_ns": a})} for t, k, a in events],
        "expected": {"online": reference_samples(events, interval, origin, 307 * ms)}})

    # A clock that steps back: a timestamp earlier than the latest one seen counts as that latest one. The
    # reference integrator takes the events with their times so held, which is what the recorder must do.
    raw = [(10, "arrive", None), (50, "arrive", None), (40, "depart", 10), (45, "wait_start", None),
           (120, "wait_end", None), (110, "depart", 50), (150, "arrive", None), (190, "depart", 150)]
    events = [(t * ms, k, None if a is None else a * ms) for t, k, a in raw]
    held = []
    latest = 0
    for t, k, a in events:
        latest = max(latest, t)
        held.append((latest, k, a))
    write("recorder", "online_clock_steps_back", {
        "description": "timestamps that step back are held at the latest one seen: a departure at 40 ms after an"
                       " arrival at 50 ms counts at 50 ms",
        "interval_ms": 100,
        "origin_ns": 0,
        "drain_ns": 200 * ms,
        "events": [{"t_ns": t, "kind": k, **({} if a is None else {"arrival_ns": a})} for t, k, a in events],
        "expected": {"online": reference_samples(held, interval, 0, 200 * ms)}})


if __name__ == "__main__":
    analyzer_cases()
    recorder_cases()
