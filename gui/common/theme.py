"""One look for the whole console: dark, high-contrast, big numbers readable from a step away."""

from __future__ import annotations

from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import QApplication

BG = "#14171c"
PANEL = "#1d2229"
PANEL_2 = "#262c35"
TEXT = "#e8ecf1"
MUTED = "#9aa5b1"
ACCENT = "#f2c14e"  # gold: money
OK = "#3ecf8e"
WARN = "#f5a524"
ALERT = "#ff4d4f"
INFO = "#4ea8f2"

BASE_POINT_SIZE = 12

FOCUS = "#ffd166"  # the keyboard's focus ring: seen from a step back, on every control

STYLESHEET = f"""
QWidget {{ background: {BG}; color: {TEXT}; font-size: {BASE_POINT_SIZE}pt; }}
QFrame#panel, QGroupBox {{ background: {PANEL}; border: 1px solid #2f3640; border-radius: 8px; }}
QGroupBox {{ margin-top: 18px; padding-top: 10px; font-weight: bold; }}
QGroupBox::title {{ subcontrol-origin: margin; left: 12px; padding: 0 6px; color: {MUTED}; }}
QLabel {{ background: transparent; }}
QLabel#muted {{ color: {MUTED}; }}
QLabel#title {{ font-size: 20pt; font-weight: bold; }}
QLabel#money {{ color: {ACCENT}; font-size: 30pt; font-weight: bold; }}
QLabel#bigmoney {{ color: {ACCENT}; font-size: 40pt; font-weight: bold; }}
QLabel#alert {{ color: {ALERT}; font-weight: bold; }}
QLabel#ok {{ color: {OK}; font-weight: bold; }}
QLabel#warn {{ color: {WARN}; font-weight: bold; }}
QPushButton {{ background: {PANEL_2}; border: 1px solid #3a424d; border-radius: 6px;
              padding: 8px 16px; min-height: 28px; }}
QPushButton:hover {{ border-color: {INFO}; }}
QPushButton:disabled {{ color: #5b6570; border-color: #2a3038; }}
QPushButton#primary {{ background: #1f6f4a; border-color: {OK}; font-weight: bold; }}
QPushButton#primary:disabled {{ background: {PANEL_2}; border-color: #2a3038; color: #5b6570; }}
QPushButton#danger {{ background: #6e1f22; border-color: {ALERT}; font-weight: bold; }}
QCheckBox {{ spacing: 10px; }}
QCheckBox::indicator {{ width: 20px; height: 20px; border: 2px solid {MUTED}; border-radius: 4px;
              background: #0f1216; }}
QCheckBox::indicator:checked {{ background: {OK}; border-color: {OK}; }}
QRadioButton {{ spacing: 10px; }}
QRadioButton::indicator {{ width: 16px; height: 16px; border: 2px solid {MUTED};
              border-radius: 10px; background: #0f1216; }}
QRadioButton::indicator:checked {{ background: {OK}; border-color: {OK}; }}
QLineEdit, QPlainTextEdit, QComboBox {{ background: #0f1216; border: 1px solid #3a424d;
              border-radius: 6px; padding: 6px; selection-background-color: {INFO}; }}
QTableWidget, QTableView, QListWidget {{ background: {PANEL}; alternate-background-color: {PANEL_2};
              gridline-color: #2f3640; border: 1px solid #2f3640; }}
QHeaderView::section {{ background: {PANEL_2}; color: {MUTED}; border: none; padding: 6px;
              font-weight: bold; }}
QTabWidget::pane {{ border: 1px solid #2f3640; }}
QTabBar::tab {{ background: {PANEL}; padding: 10px 22px; border: 1px solid #2f3640; }}
QTabBar::tab:selected {{ background: {PANEL_2}; color: {ACCENT}; }}
QPushButton:focus, QLineEdit:focus, QComboBox:focus, QPlainTextEdit:focus, QCheckBox:focus,
QTableWidget:focus, QTableView:focus, QListView:focus, QListWidget:focus, QTabBar:focus,
QSpinBox:focus, QDateEdit:focus, QDateTimeEdit:focus {{ border: 2px solid {FOCUS}; }}
QStatusBar {{ color: {MUTED}; }}
"""


def apply(app: QApplication) -> None:
    app.setStyle("Fusion")
    pal = QPalette()
    pal.setColor(QPalette.ColorRole.Window, QColor(BG))
    pal.setColor(QPalette.ColorRole.WindowText, QColor(TEXT))
    pal.setColor(QPalette.ColorRole.Base, QColor("#0f1216"))
    pal.setColor(QPalette.ColorRole.Text, QColor(TEXT))
    pal.setColor(QPalette.ColorRole.Button, QColor(PANEL_2))
    pal.setColor(QPalette.ColorRole.ButtonText, QColor(TEXT))
    pal.setColor(QPalette.ColorRole.Highlight, QColor(INFO))
    app.setPalette(pal)
    font = QFont(app.font())
    font.setPointSize(BASE_POINT_SIZE)
    app.setFont(font)
    app.setStyleSheet(STYLESHEET)
