"""Polls ``/readyz`` (every second) and ``/metrics`` (every 5 s) of a running
stack, as a load balancer and Prometheus would, and sums up what they said
during a benchmark's measured window."""

from __future__ import annotations

import threading
import time
from collections import Counter, defaultdict
from typing import Any

from bench.stack import percentile

Sample = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def parse(text: str) -> Sample:
    from prometheus_client.parser import text_string_to_metric_families

    found: Sample = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            found[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return found


def total(sample: Sample, name: str, **match: str) -> float:
    return sum(
        v
        for (n, labels), v in sample.items()
        if n == name and all(dict(labels).get(k) == w for k, w in match.items())
    )


def quantile(q: float, first: Sample, last: Sample, name: str, **match: str) -> float | None:
    """histogram_quantile() over the increase between two scrapes (summed over
    the series whose labels ``match``; all of them by default)."""
    buckets: dict[float, float] = defaultdict(float)
    for (n, labels), v in last.items():
        if n == f"{name}_bucket" and all(dict(labels).get(k) == w for k, w in match.items()):
            le = float(dict(labels)["le"])
            buckets[le] += v - first.get((n, labels), 0.0)
    if not buckets or buckets[float("inf")] <= 0:
        return None
    rank = q * buckets[float("inf")]
    lower_bound, lower_count = 0.0, 0.0
    for le in sorted(buckets):
        count = buckets[le]
        if count >= rank:
            if le == float("inf"):
                return lower_bound
            return lower_bound + (le - lower_bound) * (rank - lower_count) / max(
                count - lower_count, 1e-9
            )
        lower_bound, lower_count = le, count
    return None


def ms(first: Sample, last: Sample, metric: str, qs: tuple[float, ...]) -> list[float | None]:
    values = (quantile(q, first, last, f"vipgame_{metric}_seconds") for q in qs)
    return [None if v is None else round(v * 1000, 1) for v in values]


class Probes:
    def __init__(self, port: int) -> None:
        self.base = f"http://127.0.0.1:{port}"
        self.ready: list[tuple[float, int, float, dict[str, Any]]] = []
        self.scrapes: list[tuple[float, float, int, Sample]] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        import requests

        last_scrape = 0.0
        while not self.stop.wait(1.0):
            now = time.perf_counter()
            try:
                response = requests.get(f"{self.base}/readyz", timeout=10)
                took = time.perf_counter() - now
                self.ready.append((now, response.status_code, took, response.json()))
            except Exception as exc:  # a probe that failed is a finding too
                self.ready.append((now, 0, time.perf_counter() - now, {"error": str(exc)}))
            if now - last_scrape >= 5:
                last_scrape = now
                started = time.perf_counter()
                try:
                    response = requests.get(f"{self.base}/metrics", timeout=10)
                    took = time.perf_counter() - started
                    self.scrapes.append((now, took, len(response.content), parse(response.text)))
                except Exception:
                    pass

    def __enter__(self) -> Probes:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()

    def summary(self, window: tuple[float, float]) -> dict[str, Any]:
        def inside(t: float) -> bool:
            return window[0] <= t <= window[1]

        ready = [r for r in self.ready if inside(r[0])]
        scrapes = [s for s in self.scrapes if inside(s[0])]
        latencies = [r[2] * 1000 for r in ready]

        def pct(values: list[float], q: float) -> float | None:
            found = percentile(values, q)
            return None if found is None else round(found, 1)

        checks = [r[3].get("checks", {}) for r in ready]
        out: dict[str, Any] = {
            "readyz": {
                "polls": len(ready),
                "status": dict(Counter(str(r[1]) for r in ready)),
                "ms_p50": pct(latencies, 50),
                "ms_p99": pct(latencies, 99),
                "sweeper_age_s_max": max(
                    (c.get("sweeper", {}).get("age_s", 0) for c in checks), default=None
                ),
                "backlog_max": max(
                    (c.get("settlement_backlog", {}).get("hands", 0) for c in checks), default=None
                ),
                "failed_checks": sorted(
                    {name for c in checks for name, check in c.items() if not check.get("ok")}
                ),
            }
        }
        if len(scrapes) >= 2:
            (t0, _, _, first), (t1, _, size, last) = scrapes[0], scrapes[-1]
            span = t1 - t0

            def grew(name: str, **match: str) -> float:
                return total(last, name, **match) - total(first, name, **match)

            def rate(name: str, **match: str) -> float:
                return grew(name, **match) / span

            out["metrics"] = {
                "scrapes": len(scrapes),
                "scrape_ms_max": round(max(s[1] for s in scrapes) * 1000, 1),
                "bytes": size,
                "between_scrapes_s": round(span, 1),
                "sockets_open": {
                    k: total(last, "vipgame_sockets_open", kind=k) for k in ("lobby", "table")
                },
                "moves_per_s": {
                    by: round(rate("vipgame_moves_total", by=by), 2)
                    for by in ("player", "bot", "timeout")
                },
                "hands_finished_per_s": round(rate("vipgame_hands_total", event="finished"), 2),
                "action_state_ms_p50_p95_p99": ms(first, last, "action_state", (0.5, 0.95, 0.99)),
                "timer_lateness_ms_p50_p99": ms(first, last, "timer_lateness", (0.5, 0.99)),
                "sweeper_ms_p50_p99": ms(first, last, "sweeper", (0.5, 0.99)),
                # (the Daphnes' collections; the longest to its bucket's bound)
                "gc_pauses_by_generation": {
                    g: round(grew("vipgame_gc_pause_seconds_count", generation=g))
                    for g in ("0", "1", "2")
                },
                "gc_pauses_over_100_ms": round(
                    grew("vipgame_gc_pause_seconds_count")
                    - grew("vipgame_gc_pause_seconds_bucket", le="0.1")
                ),
                "gc_pause_ms_max_bucket": ms(first, last, "gc_pause", (1.0,))[0],
                "settlement_backlog_max": max(
                    total(s[3], "vipgame_settlement_backlog") for s in scrapes
                ),
                "celery_queue_length_max": max(
                    total(s[3], "vipgame_celery_queue_length") for s in scrapes
                ),
                "celery_unacked_max": max(
                    total(s[3], "vipgame_celery_unacked_tasks") for s in scrapes
                ),
                "chips_issued": total(last, "vipgame_chips_issued"),
                # Whole states read for one socket in the window, by why.
                "state_reads_by_reason": {
                    reason: round(grew("vipgame_state_reads_total", reason=reason))
                    for reason in ("open", "sync", "auth", "refused", "catch_up", "gap")
                },
            }
        return out
