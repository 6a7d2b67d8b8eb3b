"""The limits on what one client may cost, on a clock the test turns by hand."""

from __future__ import annotations

import logging

import pytest

from webapp.server.limits.rates import (
    AddressPackets,
    QuietLog,
    RateLimits,
    TokenBucket,
    Verdict,
    address_key,
)


class Clock:
    """A clock that moves only when told."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


def test_a_bucket_allows_its_burst_then_its_rate(clock: Clock) -> None:
    bucket = TokenBucket(2.0, 3, clock=clock)
    assert [bucket.take() for _ in range(4)] == [True, True, True, False]
    clock.now += 0.5
    assert bucket.take() is True and bucket.take() is False


def test_bookings_queue_one_after_another_up_to_the_longest_wait(clock: Clock) -> None:
    bucket = TokenBucket(10.0, 2, clock=clock)
    waits = [bucket.reserve(0.25) for _ in range(6)]
    assert waits[:2] == [0.0, 0.0]
    assert waits[2] == pytest.approx(0.1) and waits[3] == pytest.approx(0.2)
    assert waits[4] is None and waits[5] is None  # 0.3 s would be over the longest wait
    clock.now += 0.2
    assert bucket.reserve(0.25) == pytest.approx(0.1)


def address_limits(clock: Clock, **kwargs: float) -> RateLimits:
    settings = {"address_rate": 10.0, "longest_wait": 1.0, **kwargs}
    return RateLimits(20.0, 40, cooldown_seconds=5.0, clock=clock, **settings)


def test_connections_of_one_address_share_its_rate(clock: Clock) -> None:
    limits = address_limits(clock)
    for key in ("a", "b", "c"):
        limits.open(key, "203.0.113.7")
    limits.open("other", "198.51.100.1")
    verdicts = [limits.check(key) for key in ("a", "b", "c") * 10]
    assert verdicts[:20] == [Verdict.PASS] * 20  # two seconds' burst, across connections
    assert verdicts[20:] == [Verdict.WAIT] * 10
    assert [limits.wait(key) for key in ("a", "b", "c")] == pytest.approx([0.8, 0.9, 1.0])
    assert limits.check("other") is Verdict.PASS  # another address is not held up


def test_a_packet_that_would_wait_too_long_is_refused_and_counts_as_a_strike(
    clock: Clock,
) -> None:
    limits = address_limits(clock, longest_wait=0.0)
    limits.open("a", "203.0.113.7")
    verdicts = [limits.check("a") for _ in range(21)]
    assert verdicts[-1] is Verdict.REFUSE
    assert limits.connections["a"].strikes.tokens < 2 * 40


def test_an_ipv6_address_is_counted_by_its_64(clock: Clock) -> None:
    limits = address_limits(clock)
    limits.open("a", "2001:db8::1")
    limits.open("b", "2001:db8::ffff")
    assert list(limits.addresses) == [address_key("2001:db8::1")]
    assert limits.addresses[address_key("2001:db8::1")].connections == 2


def test_an_address_is_forgotten_with_its_last_connection(clock: Clock) -> None:
    limits = address_limits(clock)
    limits.open("a", "203.0.113.7")
    limits.open("b", "203.0.113.7")
    limits.forget("a")
    assert "203.0.113.7" in limits.addresses
    limits.forget("b")
    assert limits.addresses == {} and limits.connections == {}


def test_no_address_rate_means_no_shared_budget(clock: Clock) -> None:
    limits = address_limits(clock, address_rate=0.0)
    limits.open("a", "203.0.113.7")
    assert limits.addresses == {}
    assert [limits.check("a") for _ in range(40)] == [Verdict.PASS] * 40


def test_a_connection_over_its_own_rate_is_cut_and_its_player_cools_down(clock: Clock) -> None:
    limits = address_limits(clock, address_rate=0.0)
    limits.bind("a", "player-1")
    verdicts = [limits.check("a") for _ in range(200)]
    assert Verdict.CUT in verdicts and verdicts[-1] is Verdict.DROP
    assert limits.cooldown_left("player-1") == pytest.approx(5.0)
    clock.now += 5.0
    assert limits.cooldown_left("player-1") == 0.0


def test_one_cause_is_logged_once_then_counted(
    clock: Clock, caplog: pytest.LogCaptureFixture
) -> None:
    log = QuietLog(logging.getLogger("test.quiet"), period=60.0, clock=clock)
    with caplog.at_level(logging.WARNING, "test.quiet"):
        for _ in range(5):
            log.warning("unreadable packets", "x" * 500)
        clock.now += 60.0
        log.warning("unreadable packets", "again")
    assert [record.getMessage() for record in caplog.records] == [
        "unreadable packets: " + "x" * 200,
        "unreadable packets: again (4 more since the last line)",
    ]


def test_an_address_pays_packets_from_one_bucket_kept_while_in_debt(clock: Clock) -> None:
    packets = AddressPackets(10.0, clock=clock)
    first, second = packets.enter("203.0.113.7"), packets.enter("203.0.113.7")
    assert first is second is not None  # shared by the address's transports
    first.spend(30)  # 20 of burst, 10 into debt: a second's wait
    packets.leave("203.0.113.7")
    packets.leave("203.0.113.7")
    again = packets.enter("203.0.113.7")  # a new socket gets no new budget
    assert again is first and again.debt_seconds() == pytest.approx(1.0)
    packets.leave("203.0.113.7")
    clock.now += 3  # paid back and refilled: forgotten with its last transport
    packets.enter("203.0.113.7")
    packets.leave("203.0.113.7")
    assert packets.buckets == {} and packets.open == {}
    assert AddressPackets(0.0).enter("203.0.113.7") is None  # no limit
