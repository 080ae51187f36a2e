"""The Poker room tab's "Forms" page (docs/operator.md "Poker room"): the regulator's forms of
RULES.md section 6 filled from the ledger by ``printing.pages.ledger_forms.render`` (docs/forms.md),
previewed and printed through Qt's print preview, or saved as PDF.

The accountant picks the form and its period: the daily report (a business date, onsite
TGD-1623 or offsite TGD-1494), the awarding request TGD-1500 (a case), the quarterly tax
compliance TGD-108 (year and quarter, onsite or offsite), the transfer / cessation TGD-1540
(the fund chosen at the top of the tab; for a fund not ceased, the destination fund and the
effective date) or the implementation request TGD-1581 (the fund chosen at the top, the
requested implementation date and, when known, the filing time).  A
refusal (``printing.pages.forms.FormError``, a ValueError) is shown in red in the panel.

The form is filled from the ledger off the GUI thread (the bridge, :meth:`FormsPanel.with_form`);
the dialogs open when it is ready.  For tests nothing here opens a modal dialog by itself:
``show_dialog`` (the print preview's ``exec``) can be replaced, :meth:`FormsPanel.save_pdf`
takes the path the "Save PDF…" button asks for and leaves what it wrote in ``saved``."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any, cast
from zoneinfo import ZoneInfo

from PySide6.QtCore import QDate, QDateTime, Qt, QTime
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDateEdit,
    QDateTimeEdit,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from gui.common import theme
from gui.common.bridge import default_bridge

log = logging.getLogger("podium.gui.forms")

KINDS: tuple[tuple[str, str], ...] = (
    ("daily", "Daily report (TGD-1623 onsite / TGD-1494 offsite)"),
    ("award", "Awarding request (TGD-1500)"),
    ("quarterly", "Quarterly tax compliance (TGD-108)"),
    ("cessation", "Transfer / cessation (TGD-1540)"),
    ("implementation", "Implementation request (TGD-1581, Annex A)"),
    ("forfeiture", "Forfeiture on closure (report to PAGCOR)"),
)


@dataclass(frozen=True)
class FundInfo:
    """A Bad Beat Jackpot fund as the tab lists it."""

    fund_id: str
    name: str
    ceased: bool

    @property
    def label(self) -> str:
        return f"{self.name} (ceased)" if self.ceased else self.name


def forms_folder() -> Path:
    """``<user data folder>/forms``: where "Save PDF…" proposes to save."""
    import platformdirs

    return Path(platformdirs.user_data_dir("podium")) / "forms"


def _qdate(d: date) -> QDate:
    return QDate(d.year, d.month, d.day)


class FormsPanel(QWidget):
    def __init__(self, console: Any, tz: ZoneInfo, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.console = console
        self.tz = tz
        self.fund: FundInfo | None = None
        self.funds: list[FundInfo] = []
        self.saved: Path | None = None  # the PDF last written
        self._asked = 0  # forms asked for: only the latest one's answer is used
        # shows a built print preview (modal); a test replaces it
        self.show_dialog: Callable[[Any], None] = self._exec
        today = datetime.now(tz).date()
        lay = QVBoxLayout(self)

        pick = QFormLayout()
        self.kind_box = QComboBox()
        for kind, text in KINDS:
            self.kind_box.addItem(text, kind)
        pick.addRow("Form", self.kind_box)
        lay.addLayout(pick)

        self.pages = QStackedWidget()
        # daily report
        daily = QWidget()
        f = QFormLayout(daily)
        f.setContentsMargins(0, 0, 0, 0)
        self.daily_date = QDateEdit(_qdate(today))
        self.daily_date.setDisplayFormat("yyyy-MM-dd")
        self.daily_date.setCalendarPopup(True)
        f.addRow("Business date", self.daily_date)
        self.onsite_box = QComboBox()
        self.onsite_box.addItem("Onsite (TGD-1623, with the remittance)", True)
        self.onsite_box.addItem("Offsite (TGD-1494)", False)
        f.addRow("Poker room", self.onsite_box)
        self.pages.addWidget(daily)
        # awarding request
        award = QWidget()
        f = QFormLayout(award)
        f.setContentsMargins(0, 0, 0, 0)
        self.case_box = QComboBox()
        f.addRow("Case", self.case_box)
        hint = QLabel("The case selected on the Cases page is chosen here.")
        hint.setObjectName("muted")
        hint.setWordWrap(True)
        f.addRow(hint)
        self.pages.addWidget(award)
        # quarterly tax
        quarterly = QWidget()
        f = QFormLayout(quarterly)
        f.setContentsMargins(0, 0, 0, 0)
        self.year = QSpinBox()
        self.year.setRange(2000, 2100)
        self.year.setValue(today.year)
        f.addRow("Year", self.year)
        self.quarter = QComboBox()
        for q, months in enumerate(("Jan–Mar", "Apr–Jun", "Jul–Sep", "Oct–Dec"), 1):
            self.quarter.addItem(f"Q{q} ({months})", q)
        self.quarter.setCurrentIndex((today.month - 1) // 3)
        f.addRow("Quarter", self.quarter)
        self.q_onsite_box = QComboBox()
        self.q_onsite_box.addItem("Onsite", True)
        self.q_onsite_box.addItem("Offsite", False)
        f.addRow("Poker club", self.q_onsite_box)
        self.pages.addWidget(quarterly)
        # transfer / cessation
        cess = QWidget()
        f = QFormLayout(cess)
        f.setContentsMargins(0, 0, 0, 0)
        self.cess_fund = QLabel("—")
        f.addRow("Fund", self.cess_fund)
        self.to_fund = QComboBox()
        f.addRow("Transfer to", self.to_fund)
        self.effective = QDateEdit(_qdate(today))
        self.effective.setDisplayFormat("yyyy-MM-dd")
        self.effective.setCalendarPopup(True)
        f.addRow("Effective on", self.effective)
        self.cess_note = QLabel("")
        self.cess_note.setObjectName("muted")
        self.cess_note.setWordWrap(True)
        f.addRow(self.cess_note)
        self.pages.addWidget(cess)
        # implementation request (TGD-1581)
        impl = QWidget()
        f = QFormLayout(impl)
        f.setContentsMargins(0, 0, 0, 0)
        self.impl_fund = QLabel("—")
        f.addRow("Fund", self.impl_fund)
        self.impl_effective = QDateEdit(_qdate(today))
        self.impl_effective.setDisplayFormat("yyyy-MM-dd")
        self.impl_effective.setCalendarPopup(True)
        f.addRow("Implementation on", self.impl_effective)
        self.impl_filed_known = QCheckBox("Filing time known")
        f.addRow(self.impl_filed_known)
        self.impl_filed = QDateTimeEdit(QDateTime(_qdate(today), QTime(14, 0)))
        self.impl_filed.setDisplayFormat("yyyy-MM-dd HH:mm")
        self.impl_filed.setCalendarPopup(True)
        self.impl_filed.setEnabled(False)
        self.impl_filed_known.toggled.connect(self.impl_filed.setEnabled)
        f.addRow("Filed at (casino time)", self.impl_filed)
        impl_note = QLabel("Filed at least 8 business days before the implementation date; "
                           "after 3:00 PM counts as the next business day. The form prints "
                           "the latest filing time, and on time or LATE.")
        impl_note.setObjectName("muted")
        impl_note.setWordWrap(True)
        f.addRow(impl_note)
        self.pages.addWidget(impl)
        # forfeiture on closure
        forfeit = QWidget()
        f = QFormLayout(forfeit)
        f.setContentsMargins(0, 0, 0, 0)
        self.forfeit_fund = QLabel("—")
        f.addRow("Fund", self.forfeit_fund)
        note = QLabel("A fund forfeited to PAGCOR on the closure of the poker room: every "
                      "amount forfeited and the remittance, from the ledger.")
        note.setObjectName("muted")
        note.setWordWrap(True)
        f.addRow(note)
        self.pages.addWidget(forfeit)
        lay.addWidget(self.pages)
        self.kind_box.currentIndexChanged.connect(self._kind_changed)
        for changed in (self.daily_date.dateChanged, self.onsite_box.currentIndexChanged,
                        self.case_box.currentIndexChanged, self.year.valueChanged,
                        self.quarter.currentIndexChanged, self.to_fund.currentIndexChanged,
                        self.effective.dateChanged, self.q_onsite_box.currentIndexChanged,
                        self.impl_effective.dateChanged, self.impl_filed_known.toggled,
                        self.impl_filed.dateTimeChanged):
            changed.connect(self._clear_message)  # a message is about the choice made

        buttons = QHBoxLayout()
        self.preview_btn = QPushButton("Preview / print…")
        self.preview_btn.setObjectName("primary")
        self.preview_btn.clicked.connect(lambda: self.preview())
        self.pdf_btn = QPushButton("Save PDF…")
        self.pdf_btn.clicked.connect(lambda: self.save_pdf_clicked())
        buttons.addWidget(self.preview_btn)
        buttons.addWidget(self.pdf_btn)
        buttons.addStretch(1)
        lay.addLayout(buttons)
        self.msg = QLabel("")
        self.msg.setWordWrap(True)
        self.msg.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lay.addWidget(self.msg)
        lay.addStretch(1)
        self._kind_changed(0)

    def _kind_changed(self, index: int) -> None:
        """Show the chosen form's fields; the panel takes only their height (the buttons
        follow them)."""
        self.pages.setCurrentIndex(index)
        for i in range(self.pages.count()):
            page = self.pages.widget(i)
            policy = QSizePolicy.Policy.Preferred if i == index else QSizePolicy.Policy.Ignored
            if page is not None:
                page.setSizePolicy(QSizePolicy.Policy.Preferred, policy)
        self.pages.adjustSize()
        self.msg.setText("")

    def _clear_message(self) -> None:
        self.msg.setText("")

    # --- what the tab tells the panel -------------------------------------------------------

    def set_funds(self, funds: Sequence[FundInfo], current: str | None) -> None:
        """The funds (for the transfer destination) and the fund chosen at the top."""
        self.funds = list(funds)
        self.fund = next((f for f in self.funds if f.fund_id == current), None)
        self.cess_fund.setText(self.fund.label if self.fund else "— (no fund)")
        self.impl_fund.setText(self.fund.label if self.fund else "— (no fund)")
        self.forfeit_fund.setText(self.cess_fund.text())
        keep = self.to_fund.currentData()
        self.to_fund.clear()
        for f in self.funds:
            if self.fund is None or f.fund_id != self.fund.fund_id:
                self.to_fund.addItem(f.label, f.fund_id)
        i = self.to_fund.findData(keep)
        if i >= 0:
            self.to_fund.setCurrentIndex(i)
        ceased = self.fund is not None and self.fund.ceased
        self.to_fund.setEnabled(not ceased)
        self.effective.setEnabled(not ceased)
        self.cess_note.setText(
            "The fund has ceased: the form shows the cessation as recorded." if ceased else
            "Not ceased yet: the notice (part 1) of a transfer of the increment and the "
            "reserve to the fund above, from the effective date.")

    def set_cases(self, cases: Sequence[Any], selected: int | None) -> None:
        """The cases for TGD-1500 (``core.pokerroom.cases.CaseView``), the selected one chosen."""
        self.case_box.clear()
        for c in cases:
            verdict = "" if c.qualifies else ", does not qualify"
            self.case_box.addItem(f"#{c.case_id} table {c.table}, hit "
                                  f"{c.hit_at.astimezone(self.tz):%d %b %Y %H:%M}{verdict}",
                                  c.case_id)
        i = self.case_box.findData(selected)
        if i >= 0:
            self.case_box.setCurrentIndex(i)

    # --- the form ---------------------------------------------------------------------------

    def _message(self, text: str, ok: bool) -> None:
        self.msg.setText(text)
        self.msg.setStyleSheet(f"color: {theme.OK if ok else theme.ALERT}; font-weight: bold;")

    def request(self) -> Any:
        """The ``printing.pages.ledger_forms.FormRequest`` of what is chosen (ValueError naming what
        is missing; ImportError while the forms module is not there)."""
        from printing.pages.ledger_forms import FormRequest

        kind = self.kind_box.currentData()
        fund = self.fund.fund_id if self.fund else None
        if kind == "award":
            case_id = self.case_box.currentData()
            if case_id is None:
                raise ValueError("awarding request: no case; open one or select it first")
            return FormRequest(kind="award", case_id=case_id)
        if fund is None:
            raise ValueError("no Bad Beat Jackpot fund: create one first (docs/bbj.md)")
        if kind == "daily":
            return FormRequest(kind="daily", fund_id=fund,
                               business_date=cast(date, self.daily_date.date().toPython()),
                               onsite=bool(self.onsite_box.currentData()))
        if kind == "quarterly":
            return FormRequest(kind="quarterly", fund_id=fund, year=self.year.value(),
                               quarter=self.quarter.currentData(),
                               onsite=bool(self.q_onsite_box.currentData()))
        if kind == "implementation":
            filed = None
            if self.impl_filed_known.isChecked():
                naive = cast(datetime, self.impl_filed.dateTime().toPython())
                filed = naive.replace(second=0, microsecond=0, tzinfo=self.tz)
            return FormRequest(kind="implementation", fund_id=fund,
                               effective_on=cast(date, self.impl_effective.date().toPython()),
                               filed_at=filed)
        if kind == "forfeiture":
            return FormRequest(kind="forfeiture", fund_id=fund)
        if self.fund is not None and self.fund.ceased:
            return FormRequest(kind="cessation", fund_id=fund)
        to_fund = self.to_fund.currentData()
        if to_fund is None:
            raise ValueError("transfer: no other fund to transfer to; create it first")
        return FormRequest(kind="cessation", fund_id=fund, to_fund_id=to_fund,
                           effective_on=cast(date, self.effective.date().toPython()))

    def with_form(self, then: Callable[[Any], None]) -> None:
        """Fill the chosen form from the ledger off the GUI thread (the bridge), then
        ``then(form)`` (a ``RenderedForm``) on the GUI thread; a refusal is shown in red and
        ``then`` is not called."""
        from printing.pages.ledger_forms import render

        casino = self.console.config.casino
        try:
            request = self.request()
        except ValueError as exc:  # a missing choice: for the user
            self._message(str(exc), False)
            return
        engine, tz = self.console.engine, self.tz
        poker_room, money = self.console.config.poker_room, self.console.config.fund_money
        self._asked += 1
        asked = self._asked

        def fill() -> Any:
            return render(engine, request, casino=casino.name, operator=casino.operator_name,
                          tz=tz, holidays=tuple(casino.public_holidays),
                          poker_room=poker_room, money=money,
                          day_starts=casino.gaming_day_starts)

        def filled(form: Any) -> None:
            if asked != self._asked:  # asked again since: that answer counts
                return
            self._message(f"{form.title}: ready.", True)
            then(form)

        def refused(exc: BaseException) -> None:
            if asked != self._asked:
                return
            if isinstance(exc, ValueError):  # FormError: for the user
                self._message(str(exc), False)
                return
            log.warning("could not fill the form from the ledger: %s", exc)
            reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
            self._message(f"The ledger could not be read ({reason}).", False)

        self._message("Filling the form from the ledger…", True)
        default_bridge().query(fill, filled, refused)

    def preview_dialog(self, form: Any) -> Any:
        """Qt's print preview of a filled form, built but not shown.  Printing from it goes
        through the platform's print dialog."""
        from gui.tablegames.winpage_dialog import preview_dialog

        dlg = preview_dialog(form.html, doc_name=form.title, title=f"Print — {form.title}",
                             parent=self)
        dlg.resize(1100, 700)
        dlg.setProperty("formTitle", form.title)
        return dlg

    def preview(self) -> None:
        """Fill the chosen form, then show its print preview (``self.show_dialog``)."""
        self.with_form(lambda form: self.show_dialog(self.preview_dialog(form)))

    @staticmethod
    def _exec(dlg: Any) -> None:
        dlg.exec()
        dlg.deleteLater()

    def save_pdf(self, path: str | Path) -> None:
        """Fill the chosen form and write it to ``path`` as PDF (A4); ``self.saved`` is the
        path written, or None with the reason shown."""
        self.saved = None
        self.with_form(lambda form: self._write_pdf(form, Path(path)))

    def _write_pdf(self, form: Any, path: Path) -> None:
        from printing.pages.winpage import write_pdf

        try:
            out = write_pdf(form.html, path, page_size="A4", title=form.title)
        except ValueError as exc:  # a folder that does not exist
            self._message(str(exc), False)
            return
        except OSError as exc:
            self._message(f"{path}: could not be written ({exc.strerror or exc}).", False)
            return
        self.saved = out
        self._message(f"{form.title}: saved to {out}.", True)

    def save_pdf_clicked(self) -> None:
        """Fill the chosen form (refused before a file name is asked for), then ask where."""
        self.saved = None
        self.with_form(self._ask_where)

    def _ask_where(self, form: Any) -> None:
        folder = forms_folder()
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            folder = Path.home()
        name, _filter = QFileDialog.getSaveFileName(self, f"Save {form.title} as PDF",
                                                    str(folder / f"{form.filename}.pdf"),
                                                    "PDF files (*.pdf)")
        if name:
            self._write_pdf(form, Path(name if name.lower().endswith(".pdf") else name + ".pdf"))
