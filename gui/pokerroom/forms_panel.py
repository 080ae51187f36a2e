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

from core.pokerroom.room import RoomFund
from gui.common import theme
from gui.common.bridge import default_bridge
from gui.pokerroom.common import day_edit

log = logging.getLogger("podium.gui.forms")

def forms_folder() -> Path:
    """``<user data folder>/forms``: where "Save PDF…" proposes to save."""
    import platformdirs

    return Path(platformdirs.user_data_dir("podium")) / "forms"


def _date(edit: QDateEdit) -> date:
    return cast(date, edit.date().toPython())


def _note(f: QFormLayout, text: str) -> QLabel:
    """A muted line under a form's fields."""
    note = QLabel(text)
    note.setObjectName("muted")
    note.setWordWrap(True)
    f.addRow(note)
    return note


@dataclass(frozen=True)
class FormKind:
    """One form the panel fills: its kind (the list's data), its name in the list, its fields
    (``fields(panel, layout, today)`` adds them to its page) and the request they make
    (``request(panel, fund)``: ``fund`` the fund chosen at the top, never None when
    ``needs_fund``)."""

    kind: str
    title: str
    fields: Callable[[FormsPanel, QFormLayout, date], None]
    request: Callable[[FormsPanel, str | None], Any]
    needs_fund: bool = True
    shows_fund: bool = False  # a "Fund" row: the fund chosen at the top


class FormsPanel(QWidget):
    def __init__(self, console: Any, tz: ZoneInfo, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.console = console
        self.tz = tz
        self.fund: RoomFund | None = None
        self.funds: list[RoomFund] = []
        self.saved: Path | None = None  # the PDF last written
        self._asked = 0  # forms asked for: only the latest one's answer is used
        # shows a built print preview (modal); a test replaces it
        self.show_dialog: Callable[[Any], None] = self._exec
        self.fund_labels: dict[str, QLabel] = {}  # kind: the form's "Fund" row
        today = datetime.now(tz).date()
        lay = QVBoxLayout(self)

        pick = QFormLayout()
        self.kind_box = QComboBox()
        pick.addRow("Form", self.kind_box)
        lay.addLayout(pick)

        self.pages = QStackedWidget()
        for form in FORMS:  # one page of fields per form, in the list's order
            self.kind_box.addItem(form.title, form.kind)
            page = QWidget()
            f = QFormLayout(page)
            f.setContentsMargins(0, 0, 0, 0)
            if form.shows_fund:
                self.fund_labels[form.kind] = QLabel("—")
                f.addRow("Fund", self.fund_labels[form.kind])
            form.fields(self, f, today)
            self.pages.addWidget(page)
            for i in range(f.rowCount()):  # a message is about the choice made
                for role in (QFormLayout.ItemRole.FieldRole, QFormLayout.ItemRole.SpanningRole):
                    item = f.itemAt(i, role)
                    field = item.widget() if item is not None else None
                    if field is not None:
                        self._clears_message(field)
        lay.addWidget(self.pages)
        self.kind_box.currentIndexChanged.connect(self._kind_changed)

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

    def _clears_message(self, field: QWidget) -> None:
        """A change of ``field`` clears the message (it was about the choice before)."""
        if isinstance(field, QDateTimeEdit):  # QDateEdit too
            field.dateTimeChanged.connect(self._clear_message)
        elif isinstance(field, QComboBox):
            field.currentIndexChanged.connect(self._clear_message)
        elif isinstance(field, QSpinBox):
            field.valueChanged.connect(self._clear_message)
        elif isinstance(field, QCheckBox):
            field.toggled.connect(self._clear_message)

    # --- each form's fields and its request (FORMS) -----------------------------------------

    def _daily_fields(self, f: QFormLayout, today: date) -> None:
        self.daily_date = day_edit(today)
        f.addRow("Business date", self.daily_date)
        self.onsite_box = QComboBox()
        self.onsite_box.addItem("Onsite (TGD-1623, with the remittance)", True)
        self.onsite_box.addItem("Offsite (TGD-1494)", False)
        f.addRow("Poker room", self.onsite_box)

    def _daily_request(self, fund: str | None) -> Any:
        from printing.pages.ledger_forms import FormRequest

        return FormRequest(kind="daily", fund_id=fund, business_date=_date(self.daily_date),
                           onsite=bool(self.onsite_box.currentData()))

    def _award_fields(self, f: QFormLayout, _today: date) -> None:
        self.case_box = QComboBox()
        f.addRow("Case", self.case_box)
        _note(f, "The case selected on the Cases page is chosen here.")

    def _award_request(self, _fund: str | None) -> Any:
        from printing.pages.ledger_forms import FormRequest

        case_id = self.case_box.currentData()
        if case_id is None:
            raise ValueError("awarding request: no case; open one or select it first")
        return FormRequest(kind="award", case_id=case_id)

    def _quarterly_fields(self, f: QFormLayout, today: date) -> None:
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

    def _quarterly_request(self, fund: str | None) -> Any:
        from printing.pages.ledger_forms import FormRequest

        return FormRequest(kind="quarterly", fund_id=fund, year=self.year.value(),
                           quarter=self.quarter.currentData(),
                           onsite=bool(self.q_onsite_box.currentData()))

    def _cessation_fields(self, f: QFormLayout, today: date) -> None:
        self.to_fund = QComboBox()
        f.addRow("Transfer to", self.to_fund)
        self.effective = day_edit(today)
        f.addRow("Effective on", self.effective)
        self.cess_note = _note(f, "")

    def _cessation_request(self, fund: str | None) -> Any:
        from printing.pages.ledger_forms import FormRequest

        if self.fund is not None and self.fund.ceased:
            return FormRequest(kind="cessation", fund_id=fund)
        to_fund = self.to_fund.currentData()
        if to_fund is None:
            raise ValueError("transfer: no other fund to transfer to; create it first")
        return FormRequest(kind="cessation", fund_id=fund, to_fund_id=to_fund,
                           effective_on=_date(self.effective))

    def _implementation_fields(self, f: QFormLayout, today: date) -> None:
        self.impl_effective = day_edit(today)
        f.addRow("Implementation on", self.impl_effective)
        self.impl_filed_known = QCheckBox("Filing time known")
        f.addRow(self.impl_filed_known)
        self.impl_filed = QDateTimeEdit(QDateTime(QDate(today.year, today.month, today.day),
                                                  QTime(14, 0)))
        self.impl_filed.setDisplayFormat("yyyy-MM-dd HH:mm")
        self.impl_filed.setCalendarPopup(True)
        self.impl_filed.setEnabled(False)
        self.impl_filed_known.toggled.connect(self.impl_filed.setEnabled)
        f.addRow("Filed at (casino time)", self.impl_filed)
        _note(f, "Filed at least 8 business days before the implementation date; after 3:00 PM "
                 "counts as the next business day. The form prints the latest filing time, and "
                 "on time or LATE.")

    def _implementation_request(self, fund: str | None) -> Any:
        from printing.pages.ledger_forms import FormRequest

        filed = None
        if self.impl_filed_known.isChecked():
            naive = cast(datetime, self.impl_filed.dateTime().toPython())
            filed = naive.replace(second=0, microsecond=0, tzinfo=self.tz)
        return FormRequest(kind="implementation", fund_id=fund,
                           effective_on=_date(self.impl_effective), filed_at=filed)

    def _forfeiture_fields(self, f: QFormLayout, _today: date) -> None:
        _note(f, "A fund forfeited to PAGCOR on the closure of the poker room: every amount "
                 "forfeited and the remittance, from the ledger.")

    def _forfeiture_request(self, fund: str | None) -> Any:
        from printing.pages.ledger_forms import FormRequest

        return FormRequest(kind="forfeiture", fund_id=fund)

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

    def set_funds(self, funds: Sequence[RoomFund], current: str | None) -> None:
        """The funds (for the transfer destination) and the fund chosen at the top."""
        self.funds = list(funds)
        self.fund = next((f for f in self.funds if f.fund_id == current), None)
        for label in self.fund_labels.values():
            label.setText(self.fund.label if self.fund else "— (no fund)")
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
        form = FORMS[self.kind_box.currentIndex()]
        fund = self.fund.fund_id if self.fund else None
        if form.needs_fund and fund is None:
            raise ValueError("no Bad Beat Jackpot fund: create one first (docs/bbj.md)")
        return form.request(self, fund)

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
        default_bridge().query(fill, filled, refused, owner=self)

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


FORMS: tuple[FormKind, ...] = (
    FormKind("daily", "Daily report (TGD-1623 onsite / TGD-1494 offsite)",
             FormsPanel._daily_fields, FormsPanel._daily_request),
    FormKind("award", "Awarding request (TGD-1500)", FormsPanel._award_fields,
             FormsPanel._award_request, needs_fund=False),
    FormKind("quarterly", "Quarterly tax compliance (TGD-108)", FormsPanel._quarterly_fields,
             FormsPanel._quarterly_request),
    FormKind("cessation", "Transfer / cessation (TGD-1540)", FormsPanel._cessation_fields,
             FormsPanel._cessation_request, shows_fund=True),
    FormKind("implementation", "Implementation request (TGD-1581, Annex A)",
             FormsPanel._implementation_fields, FormsPanel._implementation_request,
             shows_fund=True),
    FormKind("forfeiture", "Forfeiture on closure (report to PAGCOR)",
             FormsPanel._forfeiture_fields, FormsPanel._forfeiture_request, shows_fund=True),
)
"""Every form of the panel, in the list's order: one row each (its page and its request)."""
