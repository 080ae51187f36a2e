"""Simulated Nexus Command controllers (RULES.md section 5; docs/protocol.md "The simulator")."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Coroutine
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core import cli
from core.controllers.events import (
    ControllerEvent,
    GameEnded,
    GameStarted,
    HitClaimed,
    Misdealt,
    Origin,
    Undone,
)
from core.controllers.frames import (
    Ack,
    CommandFrame,
    EventFrame,
    Gone,
    HitRejected,
    PayConfirmed,
    Resend,
    Welcome,
    hit_ref,
)
from core.controllers.link import ControllerLink
from core.controllers.protocol import FrameBuffer, encode_frame
from core.controllers.sim_floor import build_simulator
from core.controllers.sim_game import SimulatorError, stacked_cards
from core.controllers.simulator import SimulatedTable
from core.kernel.cards import JOKER, full_deck
from core.tablegames.rules.fortune import hands_made
from core.tablegames.rules.paytables import load_paytables
from tests.pki import pki

PAYTABLES = load_paytables()
WA01 = PAYTABLES["FPGPP-WA01"]
GUARD = 30.0


def table(**kw: Any) -> SimulatedTable:
    """A table over plain TCP (these tests script the console's side by hand; the link's tests
    run over TLS)."""
    opts: dict[str, Any] = {"speed": 0, "seed": 1, "mistake_rate": 0.0, "tls": None}
    opts.update(kw)
    pt = opts.pop("paytable", WA01)
    return SimulatedTable(opts.pop("table_id", "T1"), pt, **opts)


def pay_all(t: SimulatedTable) -> None:
    for ref, hit in list(t.open_hits.items()):
        assert t.resolve(PayConfirmed(hit.round_no, hit.seat, ref, 600)) == ("ok", "")


def rounds(t: SimulatedTable, n: int) -> list[list[ControllerEvent]]:
    """Play n rounds; each round's events (the console pays every hit)."""
    out = []
    for _ in range(n):
        evs = [f.event for f in t.play_round()]
        pay_all(t)
        if t.phase != "idle":
            evs += [f.event for f in t.step()]
        out.append(evs)
    return out


def arun(coro: Callable[[], Coroutine[Any, Any, None]]) -> None:
    asyncio.run(asyncio.wait_for(coro(), GUARD * 2))


async def until(cond: Callable[[], bool], what: str) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + GUARD
    while not cond():
        if loop.time() > end:
            pytest.fail(f"gave up waiting for: {what}")
        await asyncio.sleep(0.005)


# ------------------------------------------------------------------ the round (RULES.md 5)


def test_same_seed_same_game_different_seed_different_game() -> None:
    a, b, c = table(seed=42), table(seed=42), table(seed=43)
    ra, rb, rc = rounds(a, 30), rounds(b, 30), rounds(c, 30)
    assert ra == rb
    assert ra != rc


def test_a_round_locks_wagers_deals_real_hands_and_hits_exactly_the_paying_wagered_seats() -> None:
    t = table(seed=2024)
    deck = set(full_deck())
    hits_seen = 0
    for _ in range(400):
        frames = t.step()  # START GAME
        started = frames[0].event
        assert isinstance(started, GameStarted) and started.round_no == t.round_no
        assert set(started.wagers.values()) <= {WA01.wager_cents}  # the paytable's wager
        assert set(started.wagers) <= set(range(1, 7))
        dealt = [c for h in t.hands.values() for c in h]
        assert len(dealt) == 42 and len(set(dealt)) == 42 and set(dealt) <= deck
        hits = [f.event for f in t.step()]
        expected = {(s, pay.hand) for s in started.wagers
                    if (pay := WA01.paying(t.hands[s])) is not None}
        assert all(isinstance(h, HitClaimed) for h in hits)
        assert {(h.seat, h.hand) for h in hits if isinstance(h, HitClaimed)} == expected
        for h in hits:
            assert isinstance(h, HitClaimed) and h.cards == t.hands[h.seat]
        hits_seen += len(hits)
        if hits:
            assert t.step() == []  # waits for the console's decisions
            pay_all(t)
        ended = t.step()
        assert [f.event for f in ended] == [GameEnded(t.round_no)]
    assert hits_seen > 0


def test_hands_are_random_deals_full_house_or_better_about_three_percent() -> None:
    # Seven cards of a 53-card deck make a full house or better about 3% of the time
    # (2.6% for a full house alone from 52 cards): a stacked or broken deal would not.
    t = table(seed=7, bet_probability=1.0)
    paying = total = 0
    for _ in range(600):
        t.step()
        for cards in t.hands.values():
            total += 1
            paying += WA01.paying(cards) is not None
        t.step()
        pay_all(t)
        t.step()
    assert total == 3600
    assert 0.02 < paying / total < 0.045
    assert t.stacked_rounds == []


def test_only_lit_sensors_count() -> None:
    t = table(seed=3, bet_probability=0.0)
    t.force_hand(4, ["As", "Ad", "Ah", "Ac", "Jk", "2c", "3d"], wager=False)
    evs = rounds(t, 1)[0]
    assert evs[0] == GameStarted(1, {})
    assert not any(isinstance(e, HitClaimed) for e in evs)  # five aces, but no wager


def test_forced_hand_is_dealt_to_the_seat_and_claimed() -> None:
    t = table(seed=3, bet_probability=0.0)
    t.force_hand(5, ["9c", "9d", "9h", "9s", "2c", "5d", "Kh"])
    frames = t.play_round()
    assert frames[0].event == GameStarted(1, {5: 100})
    hit = frames[1].event
    assert isinstance(hit, HitClaimed) and (hit.seat, hit.hand) == (5, "FOUR_OF_A_KIND")
    assert t.open_hits.keys() == {hit_ref(frames[1].origin)}
    assert t.step() == []
    assert t.resolve(HitRejected(1, 5, "cards do not match")) == ("ok", "")  # by round+seat
    assert [f.event for f in t.step()] == [GameEnded(1)]
    assert t.decisions == {hit_ref(frames[1].origin): "rejected"}


def test_pay_and_reject_decide_a_hit_once() -> None:
    t = table(seed=3, bet_probability=0.0)
    t.force_hand(2, ["Ts", "Js", "Qs", "Ks", "As", "2c", "3d"])
    frames = t.play_round()
    ref = hit_ref(frames[1].origin)
    assert t.resolve(PayConfirmed(1, 3, ref, 20_000))[0] == "refused"  # wrong seat
    assert t.resolve(PayConfirmed(1, 2, "nope:1", 20_000))[0] == "refused"
    assert t.resolve(PayConfirmed(1, 2, ref, 20_000)) == ("ok", "")
    assert t.resolve(PayConfirmed(1, 2, ref, 20_000)) == ("ok", "")  # repeat: same answer
    result, reason = t.resolve(HitRejected(1, 2, "late", ref))
    assert result == "refused" and "already paid" in reason
    assert t.decisions == {ref: "paid"}


def test_dealer_mistakes_undo_and_misdeal_happen_at_the_mistake_rate() -> None:
    t = table(seed=5, mistake_rate=1.0)
    kinds: dict[str, int] = {}
    for evs in rounds(t, 300):
        started = evs[0]
        assert isinstance(started, GameStarted)
        for e in evs[1:]:
            if isinstance(e, Misdealt):
                kinds["misdeal"] = kinds.get("misdeal", 0) + 1
            elif isinstance(e, Undone):
                kinds[f"undo_{e.what}"] = kinds.get(f"undo_{e.what}", 0) + 1
            elif isinstance(e, HitClaimed):
                pay = WA01.paying(e.cards)
                if e.seat not in started.wagers:
                    kinds["no_wager"] = kinds.get("no_wager", 0) + 1
                elif pay is None or pay.hand != e.hand:
                    kinds["wrong_button"] = kinds.get("wrong_button", 0) + 1
    assert set(kinds) == {"misdeal", "undo_START_GAME", "undo_HIT", "no_wager", "wrong_button"}
    clean = table(seed=5, mistake_rate=0.0)
    for evs in rounds(clean, 300):
        assert not any(isinstance(e, (Misdealt, Undone)) for e in evs)


def test_jackpot_rate_stacks_a_qualifying_hand_and_says_so() -> None:
    t = table(seed=8, jackpot_rate=1.0, bet_probability=0.5)
    played = rounds(t, 40)
    with_wagers = [i + 1 for i, evs in enumerate(played)
                   if isinstance(evs[0], GameStarted) and evs[0].wagers]
    assert t.stacked_rounds == with_wagers
    for rno in with_wagers:
        assert any(isinstance(e, HitClaimed) for e in played[rno - 1])


@given(st.sampled_from(["SF7_NATURAL", "RF_ROYAL_MATCH", "SF7_JOKER", "FIVE_ACES",
                        "ROYAL_FLUSH", "STRAIGHT_FLUSH", "FOUR_OF_A_KIND", "FULL_HOUSE",
                        "FLUSH", "THREE_OF_A_KIND", "STRAIGHT", "THREE_PAIR"]),
       st.integers(0, 10**6))
def test_stacked_cards_make_the_hand_they_are_stacked_for(hand: str, seed: int) -> None:
    rng = random.Random(seed)
    cards = stacked_cards(hand, rng)
    assert len(set(cards)) == len(cards) <= 7
    rest = [c for c in full_deck() if c not in cards]
    rng.shuffle(rest)
    seven = cards + rest[: 7 - len(cards)]
    assert hand in hands_made(seven)
    assert cards.count(JOKER) <= 1


def test_settings_are_checked_with_a_clear_message() -> None:
    with pytest.raises(SimulatorError, match="not a progressive paytable"):
        table(paytable=PAYTABLES["PT1"])
    with pytest.raises(SimulatorError, match="mistake rate 2"):
        table(mistake_rate=2)
    with pytest.raises(SimulatorError, match="--paytable: unknown paytable 'NOPE'"):
        build_simulator(tables=2, port=7000, paytable="NOPE", paytables=PAYTABLES,
                        plain_lab_only=True)


# ------------------------------------------------------------------ over TCP


def test_a_running_table_plays_on_after_the_console_pays_each_hit() -> None:
    async def main() -> None:
        t = table(speed=2000, seed=12, jackpot_rate=0.5, heartbeat=0.2)
        await t.start()
        link: ControllerLink

        def on_event(origin: Origin, event: ControllerEvent) -> None:
            if isinstance(event, HitClaimed):  # the supervisor pays at once
                cmd = PayConfirmed(event.round_no, event.seat, hit_ref(origin), 600)
                asyncio.get_running_loop().create_task(link.send_command(cmd))

        link = ControllerLink("T1", "127.0.0.1", t.port, on_event, lambda *a: None,
                              tls=None, heartbeat=0.2, paytable="FPGPP-WA01", decks=1)
        task = asyncio.create_task(link.run())
        await until(lambda: len(t.decisions) >= 5 and t.round_no >= 12, "hits paid, rounds on")
        await link.close()
        await task
        await t.stop()
        ended = {f.event.round_no for f in t.history if isinstance(f.event, GameEnded)}
        hit_rounds = {f.event.round_no for f in t.history if isinstance(f.event, HitClaimed)}
        assert set(t.decisions.values()) == {"paid"}
        assert hit_rounds & ended  # rounds with hits did end, after the PAY

    arun(main)


def test_a_repeated_command_is_applied_once_and_answered_alike() -> None:
    async def main() -> None:
        t = table(seed=3, bet_probability=0.0, heartbeat=0.2)
        t.force_hand(2, ["Ts", "Js", "Qs", "Ks", "As", "2c", "3d"])
        await t.start()
        frames = t.play_round()
        ref = hit_ref(frames[1].origin)
        reader, writer = await asyncio.open_connection("127.0.0.1", t.port)
        writer.write(encode_frame(Welcome("c1", 200)))
        cmd = CommandFrame("c1", 1, PayConfirmed(1, 2, ref, 20_000))
        writer.write(encode_frame(cmd) + encode_frame(cmd))
        buf = FrameBuffer()
        acks: list[Any] = []
        while len(acks) < 2:
            data = await asyncio.wait_for(reader.read(65536), GUARD)
            acks += [f for f in buf.feed(data) if type(f).__name__ == "CommandAck"]
        writer.close()
        await t.stop()
        assert acks[0] == acks[1] and acks[0].result == "ok"
        assert t.decisions == {ref: "paid"}

    arun(main)


def test_a_silent_console_is_declared_gone() -> None:
    async def main() -> None:
        t = table(heartbeat=0.05)
        await t.start()
        reader, writer = await asyncio.open_connection("127.0.0.1", t.port)
        writer.write(encode_frame(Welcome("c1", 50)))  # then says nothing ever again
        while await asyncio.wait_for(reader.read(65536), GUARD):
            pass  # heartbeats arrive until the controller hangs up
        assert not t.connected
        writer.close()
        await t.stop()

    arun(main)


def test_a_restart_keeps_the_old_boot_s_unacknowledged_events_and_numbers_from_1() -> None:
    t = table(seed=9)
    rounds(t, 2)
    old_boot, held = t.boot, dict(t.outbox)
    t.restart(keep_outbox=True)
    assert t.boot != old_boot and t.kept == {old_boot: held} and t.outbox == {}
    first = t.step()[0]
    assert (first.origin.boot, first.origin.seq, first.event.round_no) == (t.boot, 1, 1)
    assert t.unacknowledged == len(held) + 1
    t.restart(keep_outbox=False)
    assert t.outbox == {} and len(t.kept) == 1  # the first boot's events are still held


def test_events_are_sent_again_on_a_timer_and_from_where_the_console_asks() -> None:
    async def main() -> None:
        t = table(seed=4, heartbeat=5, retransmit=0.1)
        await t.start()
        rounds(t, 2)
        n = len(t.history)
        reader, writer = await asyncio.open_connection("127.0.0.1", t.port)
        writer.write(encode_frame(Welcome("c1", 5000)))
        buf = FrameBuffer()
        got: list[Any] = []

        async def until_seen(cond: Callable[[], bool]) -> None:
            while not cond():
                data = await asyncio.wait_for(reader.read(65536), GUARD)
                got.extend(buf.feed(data))

        def seqs() -> list[int]:
            return [f.origin.seq for f in got if isinstance(f, EventFrame)]

        await until_seen(lambda: seqs().count(1) >= 2)  # the whole outbox, then again on the timer
        assert seqs()[:n] == list(range(1, n + 1))
        for seq in (1, 2, 3):
            writer.write(encode_frame(Ack(t.boot, seq)))
        writer.write(encode_frame(Resend(t.boot, 2)))  # 2 and 3 are acknowledged by now
        await until_seen(lambda: any(isinstance(f, Gone) for f in got))
        gone = next(f for f in got if isinstance(f, Gone))
        assert gone == Gone(t.boot, 2, 4)  # 2..3 no longer held; 4 is the first held
        got.clear()
        await until_seen(lambda: 4 in seqs())
        writer.close()
        await t.stop()
        assert sorted(t.outbox) == list(range(4, n + 1)) and t.retransmissions >= n

    arun(main)


# ------------------------------------------------------------------ command line


def test_simulate_tables_get_ids_t1_to_tn_on_consecutive_ports() -> None:
    sim = build_simulator(tables=3, port=17000, seed=1, speed=5, paytables=PAYTABLES,
                          plain_lab_only=True)
    assert [(t.table_id, t.port, t.paytable_id) for t in sim.tables.values()] == [
        ("T1", 17000, "FPGPP-WA01"), ("T2", 17001, "FPGPP-WA01"), ("T3", 17002, "FPGPP-WA01")]


def test_simulate_takes_tables_from_the_floor_configuration() -> None:
    floorconfig = pytest.importorskip("core.floorconfig")
    floor = floorconfig.load_demo_floor(pki().folder)
    for t in floor.tables:
        pki().table(t.id)
    sim = build_simulator(floor=floor, seed=1, paytables=PAYTABLES)
    assert [(t.table_id, t.host, t.port, t.seats) for t in sim.tables.values()] == [
        (c.id, c.host, c.port, c.seats) for c in floor.tables]
    for c in floor.tables:
        assert sim[c.id].paytable_id == (c.paytable or floor.group(c.group).paytable)


@pytest.mark.parametrize(("argv", "named"), [
    (["--speed", "0"], "--speed"),
    (["--paytable", "NOPE"], "unknown paytable 'NOPE'"),
    (["--mistake-rate", "1.5", "--plain-lab-only"], "mistake rate"),
    (["--retransmit", "0", "--plain-lab-only"], "--retransmit"),
    (["--floor", "/nonexistent/floor.toml"], "floor.toml"),
])
def test_simulate_refuses_bad_options_with_one_line_and_status_2(
        argv: list[str], named: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["simulate", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and named in err and "Traceback" not in err


def test_simulate_help_says_jackpot_rate_is_not_a_random_deal(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["simulate", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "NOT a random deal" in out
