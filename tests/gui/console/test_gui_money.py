"""One currency per floor and per fund, written the way the casino's locale writes it (issue 26:
"$" on the poker room's peso fund while its forms said PHP).  The poker room's fund reads the
same in pesos on its screen, on PAGCOR's form and on its share slip; a table floor in another
currency and locale shows it on the console (meters, the Win slips list), on the ESC/POS slip
and on the win page.  A receipt printer with no peso sign in its code pages prints the ISO code.

Expected figures are written out by hand here, never asked of the code under test.  The slip and
the form page are also drawn to PNG ($PODIUM_SCREENSHOT_DIR, else the test's tmp folder)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import Engine

import core.pokerroom.fund as bf
from core.app.console import ConsoleCore
from core.floorconfig import FloorConfig, loads_floor
from core.tablegames.floor import Floor
from gui.common.bridge import default_bridge
from gui.common.swipe import SwipeCatcher
from gui.main_window import MainWindow
from gui.pokerroom import PokerRoomScreen
from printing.escpos.bbj_slip import demo_share_slip, render_share_slip
from printing.escpos.preview import preview_png, recovered_text
from printing.escpos.printers import FilePrinter
from printing.escpos.slip import PAPER
from printing.pages import ledger_forms as lf
from printing.pages.winpage import render_png, winpage_html
from tests.floors import floor_toml, table
from tests.paid_slips import PAYTABLES, console, make_slips

NBSP = "\u00a0"


def _shots(tmp_path: Path) -> Path:
    out = Path(os.environ.get("PODIUM_SCREENSHOT_DIR") or tmp_path)
    out.mkdir(parents=True, exist_ok=True)
    return out


def _floor(currency: str, locale: str) -> FloorConfig:
    return loads_floor(floor_toml("Money Casino", tables=[table("PG-1", 17301, name="Pai Gow 1")],
                                  currency=currency, locale=locale), "money.toml")


def _text(data: bytes) -> str:
    """A slip's text, its lines joined and its no-break spaces plain."""
    return " ".join(recovered_text(data).replace(NBSP, " ").split())


@pytest.fixture
def started(qapp, sqlite_engine: Engine, tmp_path: Path) -> Iterator[Any]:  # type: ignore[no-untyped-def]
    """A console (no controller links) for a floor config, stopped after the test."""
    made: list[ConsoleCore] = []

    def start(config: FloorConfig) -> ConsoleCore:
        c = console(sqlite_engine, config, FilePrinter(tmp_path / "slips"))
        made.append(c)
        return c

    yield start
    for c in made:
        c.stop()


def test_the_poker_rooms_fund_reads_in_pesos_on_screen_on_the_form_and_on_paper(  # type: ignore[no-untyped-def]
        qtbot, sqlite_engine: Engine, started, tmp_path: Path) -> None:
    """A floor file that says nothing of money: the table floor in USD as en_US writes it, the
    poker room's funds in pesos (PHP) as the same locale writes them.  The fund of 5,000,000
    centavos is ₱50,000.00 (PAGCOR's guideline writes the peso sign before the figures:
    "individual payout above P10,000.00"), on the Poker room tab and on the TGD-1581 form
    alike; the share slip's printer has no peso sign in any code page, so the slip writes PHP
    before the same figures, and its amount in words says PHILIPPINE PESOS.  Before: MAIN
    50,000.00 on screen, PHP 50,000.00 on the form."""
    config = loads_floor(floor_toml("Money Casino"), "money.toml")
    start = datetime.now(UTC) - timedelta(days=3)
    bf.create_fund(sqlite_engine, "bbj", "Poker room BBJ", at=start)
    bf.seed(sqlite_engine, "bbj", 5_000_000, by="operator", reason="opening seed", at=start)
    screen = PokerRoomScreen(started(config), window=None)
    qtbot.addWidget(screen)
    screen.show()
    qtbot.waitUntil(lambda: screen.fund.main_label.text() not in ("", "MAIN —"), timeout=10000)
    assert default_bridge().wait_idle(5000)
    assert screen.fund.main_label.text() == "MAIN ₱50,000.00"
    assert screen.fund.reserve_label.text() == "RESERVE ₱0.00"
    assert config.poker_room.currency == "PHP"  # the default: the poker room's funds in pesos

    effective = (datetime.now(ZoneInfo("Asia/Manila")) + timedelta(days=60)).date()
    form = lf.render(sqlite_engine, lf.FormRequest("implementation", fund_id="bbj",
                                                   effective_on=effective),
                     casino="Money Casino", operator="Money Casino", tz=ZoneInfo("Asia/Manila"),
                     poker_room=config.poker_room, money=config.fund_money)
    assert "₱50,000.00" in form.html and "PHP 50,000.00" not in form.html
    assert "$" not in form.html
    render_png(form.html, _shots(tmp_path) / "money-form-tgd1581.png")

    # 1,014,112 gross - 202,822 tax = 811,290 centavos net
    slip = render_share_slip(replace(demo_share_slip(), currency=config.fund_money))
    text = _text(slip)
    for shown in ("PHP 10,141.12", "PHP 2,028.22", "PHP 8,112.90",
                  "EIGHT THOUSAND ONE HUNDRED TWELVE AND 90/100 PHILIPPINE PESOS"):
        assert shown in text, shown
    assert "$" not in text and "?" not in text  # no sign the printer would print as "?"
    preview_png(slip, _shots(tmp_path) / "money-share-slip.png")


@pytest.mark.parametrize(("currency", "locale", "screen", "paper"), [
    # fil_PH writes pesos "₱6.00"; the printer has no ₱: "PHP 6.00"
    ("PHP", "fil_PH", "₱6.00", "PHP 6.00"),
    # de_DE writes euros after the figures with a decimal comma: "6,00 €"; CP858 has the €
    ("EUR", "de_DE", f"6,00{NBSP}€", "6,00 €"),
])
def test_a_table_floor_in_its_own_currency_shows_it_on_the_console_the_slip_and_the_win_page(  # type: ignore[no-untyped-def]
        qtbot, qapp, sqlite_engine: Engine, started, tmp_path: Path, currency: str, locale: str,
        screen: str, paper: str) -> None:
    """An auto-paid full house pays 6.00 on FPGPP-WA01's 1.00 wager (the paytable's source,
    Fortune Pai Gow rules of play 8d: "Full Houses at 6 do not usually require this additional
    verification.") in the floor's currency; the Win slips list, the slip's paper and the
    win page write it the way the locale does, and the meter tiles carry the same sign.
    Before: "$6.00" everywhere, whatever the floor's currency."""
    config = _floor(currency, locale)
    (slip_no,) = make_slips(sqlite_engine, config, 1)
    floor = Floor(sqlite_engine, config, PAYTABLES, paper=PAPER)
    floor.record_print(slip_no, "file", True)  # printed: nothing offered at start

    data = floor.slip_bytes(slip_no)
    text = _text(data)
    assert paper in text and "$" not in text and "?" not in text
    preview_png(data, _shots(tmp_path) / f"money-slip-{currency}.png")
    page = winpage_html(floor.win_slip(slip_no))
    assert screen in page and "$" not in page
    render_png(page, _shots(tmp_path) / f"money-winpage-{currency}.png")

    catcher = SwipeCatcher()
    catcher.install(qapp)
    try:
        window = MainWindow(started(config), catcher)
        qtbot.addWidget(window)
        window.show()
        window.tabs.setCurrentIndex(1)
        qtbot.waitUntil(lambda: window.slips.rowCount() == 1, timeout=10000)
        amounts = [window.slips.item(0, c).text() for c in range(window.slips.columnCount())]
        assert screen in amounts
        qtbot.waitUntil(lambda: bool(window._meter_tiles), timeout=10000)
        tiles = list(window._meter_tiles.values())
        qtbot.waitUntil(lambda: all(t.amount.text() for t in tiles), timeout=10000)
        sign = "₱" if currency == "PHP" else "€"
        for tile in tiles:
            assert sign in tile.amount.text() and "$" not in tile.amount.text()
            assert sign in tile.sub.text() and "$" not in tile.sub.text()
        window.close()
    finally:
        qapp.removeEventFilter(catcher)


@pytest.mark.parametrize(("key", "value", "said"), [
    ("currency", "usd", "casino.currency: 'usd' is not an ISO 4217 currency code"),
    ("currency", "XYZ", "casino.currency: 'XYZ' is not an ISO 4217 currency code"),
    ("currency", "JPY", "casino.currency: 'JPY' has 0 decimals"),
    ("locale", "en-PH", "casino.locale: 'en-PH' is not a known locale"),
    ("locale", "xx_YY", "casino.locale: 'xx_YY' is not a known locale"),
    ("locale", "EN_ph", "casino.locale: 'EN_ph': write the locale as 'en_PH'"),
    ("currency_symbol", "₱", "casino.currency_symbol: '₱' is no longer read"),
])
def test_a_bad_currency_or_locale_is_refused_on_one_line_naming_the_key(
        key: str, value: str, said: str) -> None:
    text = floor_toml("Money Casino").replace("[casino]\n", f'[casino]\n{key} = "{value}"\n', 1)
    with pytest.raises(ValueError) as info:
        loads_floor(text, "money.toml")
    message = str(info.value)
    assert message.startswith(f"money.toml: {said}"), message
    assert "\n" not in message and "Traceback" not in message


def test_the_poker_rooms_currency_is_refused_by_its_key_and_defaults_to_pesos() -> None:
    base = floor_toml("Money Casino")
    assert loads_floor(base, "money.toml").fund_money.code == "PHP"
    with pytest.raises(ValueError, match=r"^money.toml: poker_room.currency: 'php' is not an ISO "
                                         r"4217 currency code"):
        loads_floor(base + '\n[poker_room]\ncurrency = "php"\n', "money.toml")
    nz = loads_floor(base.replace("[casino]\n", '[casino]\ncurrency = "NZD"\nlocale = "en_NZ"\n',
                                  1) + '\n[poker_room]\ncurrency = "NZD"\n', "money.toml")
    # en_NZ writes its own dollars "$" and 1,234.56 cents as "$1,234.56"
    assert (nz.money.text(123_456), nz.fund_money.text(123_456)) == ("$1,234.56", "$1,234.56")
