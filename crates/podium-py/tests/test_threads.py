"""A league shared between threads: calls run one at a time; a call from inside one of the
league's own calls is refused by name."""

import sys
import threading
import time

import pytest

import podium

PLAYERS = [f"p{i}" for i in range(12)]


def matches(start, count, pause=False):
    """`count` four-player matches; with `pause`, the generator lets other threads run
    between them (while `rate_many` reads it)."""
    for i in range(start, start + count):
        if pause:
            time.sleep(0)
        yield [PLAYERS[(i + k * 5) % len(PLAYERS)] for k in range(4)]


@pytest.fixture
def switch_often():
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(before)


def test_threads_that_share_a_league_wait_for_each_other(switch_often):
    league = podium.League("kalman-mmr")
    errors = []
    boards = []

    def batches(t):
        try:
            for b in range(4):
                report = league.rate_many(matches(1000 * t + 100 * b, 50, pause=True))
                assert report.rated == 50
        except Exception as e:  # noqa: BLE001 - every failure is reported below
            errors.append(repr(e))

    def one_by_one(t):
        try:
            for i in range(200):
                league.rate(next(matches(1000 * t + i, 1)))
                boards.append(len(league.standings()))
                assert "p0" in league and league.rating("p0").games >= 0
        except Exception as e:  # noqa: BLE001
            errors.append(repr(e))

    threads = [threading.Thread(target=batches, args=(t,)) for t in range(2)]
    threads += [threading.Thread(target=one_by_one, args=(t,)) for t in range(2, 4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert league.matches_rated == 2 * 4 * 50 + 2 * 200
    assert boards and all(n == len(PLAYERS) for n in boards)


def test_a_batch_from_one_thread_is_rated_whole_before_another_thread_reads(switch_often):
    league = podium.League("sme")
    seen = []
    started = threading.Event()

    def slow():
        for m in matches(0, 40):
            started.set()
            time.sleep(0.001)
            yield m

    batch = threading.Thread(target=lambda: league.rate_many(slow()))
    batch.start()
    started.wait()
    # The batch is under way: a reader waits for its end, and sees all of it or none.
    seen.append(league.matches_rated)
    batch.join()
    assert seen[0] in (0, 40)
    assert league.matches_rated == 40


def test_a_call_from_inside_one_of_the_league_s_own_calls_is_refused_by_name():
    league = podium.League("sme")
    league.rate(["ann", "bo"])

    def peeking():
        yield ["ann", "bo"]
        league.standings()
        yield ["bo", "ann"]

    with pytest.raises(RuntimeError) as caught:
        league.rate_many(peeking())
    message = str(caught.value)
    assert "League.standings() was called from inside League.rate_many()" in message
    assert "call standings() after rate_many() returns" in message
    # Nothing of the batch was rated, and the league is free again.
    assert league.matches_rated == 1
    league.rate(["bo", "ann"])
    assert league.matches_rated == 2
