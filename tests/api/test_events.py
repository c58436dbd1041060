"""Events: an operation's progress, typed, to one listener, one at a time."""

from __future__ import annotations

import threading
import time

from truegreen.events import QUIET, Event, Events


def test_an_event_carries_where_the_operation_is() -> None:
    heard: list[Event] = []
    events = Events("verify", heard.append)
    events.start("strength", "strength: running 2 mutants", total=2)
    events.step("strength", 1, 2, "calc.py:2 a - b -> a + b")
    events.note("worktrees", "carried: a.py")
    events.end("strength")
    events.of("seal").note("sandbox", "bwrap")
    assert [e.to_json() for e in heard] == [
        {"operation": "verify", "layer": "strength", "phase": "start",
         "message": "strength: running 2 mutants", "n": None, "total": 2, "subject": None},
        {"operation": "verify", "layer": "strength", "phase": "step", "message": None,
         "n": 1, "total": 2, "subject": "calc.py:2 a - b -> a + b"},
        {"operation": "verify", "layer": "worktrees", "phase": "note", "message": "carried: a.py",
         "n": None, "total": None, "subject": None},
        {"operation": "verify", "layer": "strength", "phase": "end", "message": None,
         "n": None, "total": None, "subject": None},
        {"operation": "seal", "layer": "sandbox", "phase": "note", "message": "bwrap",
         "n": None, "total": None, "subject": None},
    ]  # fmt: skip


def test_steps_taken_on_two_threads_are_counted_once_each_and_heard_one_at_a_time() -> None:
    inside = threading.Lock()
    overlapped: list[bool] = []
    heard: list[Event] = []

    def listener(event: Event) -> None:
        overlapped.append(not inside.acquire(blocking=False))
        time.sleep(0.001)  # long enough for the other thread to arrive
        heard.append(event)
        inside.release()

    step = Events("verify", listener).steps("exam", 40)
    threads = [
        threading.Thread(target=lambda side=side: [step(side) for _ in range(20)])
        for side in ("base", "head")
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(e.n or 0 for e in heard) == list(range(1, 41))
    assert {e.total for e in heard} == {40}
    assert sorted(e.subject or "" for e in heard) == ["base"] * 20 + ["head"] * 20
    assert not any(overlapped)


def test_without_a_listener_nothing_is_heard() -> None:
    QUIET.start("exam", "nobody hears this")  # no listener: nothing to call, nothing raised
    notes = Events("demo").notes("demo")
    notes("nor this")
