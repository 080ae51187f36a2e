"""Preview: ESC/POS bytes back into what the paper shows.

An interpreter for the ESC/POS subset Podium's slips use (and a little more): text in
the selected code page, bold, underline, reverse, double width/height (``ESC !`` and
``GS !``), alignment, line spacing, feeds, native QR codes (``GS ( k``, drawn with the
``qrcode`` package), 1-D barcodes (a box with the data), raster images (``GS v 0``) and
the cut.  :func:`interpret` returns the recovered :class:`Receipt` (text lines, codes,
anything it did not understand); :func:`render` draws it as a PIL image of an 80 mm
receipt (576 dots wide at scale 1), the on-screen preview.

Because the preview is drawn from the very bytes the printer receives, tests can check
what the paper would show, and a supervisor sees the slip before it is printed.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from printing.escpos.slip import DEFAULT_PROFILE, escpos_dummy

PAPER_DOTS = 576  # 80 mm paper as the preview draws it
DEFAULT_PRINTABLE_DOTS = 512  # TM-T88V: 72 mm at 180 dpi
DEFAULT_LINE_SPACING = 30  # 1/6 inch at 180 dpi
FONTS = {0: (12, 24), 1: (9, 17)}  # font A, font B: cell width, height in dots
PAPER = (252, 252, 248)
INK = (20, 20, 20)

ESC, GS, DLE, FS = 0x1B, 0x1D, 0x10, 0x1C
# ESC commands we understand or safely skip: letter -> number of parameter bytes
_ESC_ARGS = {"@": 0, "2": 0, "t": 1, "!": 1, "E": 1, "-": 1, "a": 1, "M": 1, "d": 1, "J": 1,
             "3": 1, "G": 1, "{": 1, "V": 1, "r": 1, " ": 1, "R": 1, "c": 2, "p": 3, "=": 1,
             "U": 1, "A": 1, "+": 1, "e": 1, "$": 2, "\\": 2}
_GS_ONE_ARG = {"B", "h", "w", "H", "f", "a", "!", "r", "I"}


class PreviewError(ValueError):
    """The bytes can not be previewed (the message names the offset and the problem)."""


@dataclass
class Style:
    bold: bool = False
    underline: int = 0
    invert: bool = False
    width: int = 1
    height: int = 1
    font: int = 0

    def copy(self) -> Style:
        return Style(self.bold, self.underline, self.invert, self.width, self.height, self.font)


@dataclass
class Run:
    text: str
    style: Style

    @property
    def cell(self) -> tuple[int, int]:
        w, h = FONTS.get(self.style.font, FONTS[0])
        return w * self.style.width, h * self.style.height


@dataclass
class TextLine:
    runs: list[Run]
    align: int  # 0 left, 1 center, 2 right
    spacing: int

    @property
    def text(self) -> str:
        return "".join(r.text for r in self.runs)

    @property
    def width(self) -> int:
        return sum(r.cell[0] * len(r.text) for r in self.runs)

    @property
    def height(self) -> int:
        return max((r.cell[1] for r in self.runs if r.text), default=FONTS[0][1])


@dataclass
class Code:
    kind: str  # "qr" or "barcode"
    data: bytes
    align: int
    module: int = 3
    ec: int = 0  # QR error correction 0..3 (L M Q H)
    height: int = 162  # barcode height in dots

    @property
    def text(self) -> str:
        return self.data.decode("latin-1")


@dataclass
class Raster:
    image: Image.Image
    align: int


@dataclass
class Feed:
    dots: int


@dataclass
class Cut:
    partial: bool


Item = TextLine | Code | Raster | Feed | Cut


@dataclass
class Receipt:
    """What the interpreter recovered from the bytes, in paper order."""

    items: list[Item] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)  # commands it skipped, with offsets
    queries: list[bytes] = field(default_factory=list)  # real-time status requests seen
    printable_dots: int = DEFAULT_PRINTABLE_DOTS

    @property
    def lines(self) -> list[str]:
        return [i.text for i in self.items if isinstance(i, TextLine)]

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    @property
    def codes(self) -> list[Code]:
        return [i for i in self.items if isinstance(i, Code)]

    @property
    def cut(self) -> bool:
        return any(isinstance(i, Cut) for i in self.items)

    def styled_runs(self) -> list[Run]:
        return [r for i in self.items if isinstance(i, TextLine) for r in i.runs]


# --------------------------------------------------------------------------------------
# code pages


@functools.lru_cache(maxsize=8)
def _codepage_numbers(profile: str) -> dict[int, str]:
    p = escpos_dummy(profile)
    return {int(num): name for name, num in p.profile.get_code_pages().items()}


@functools.lru_cache(maxsize=64)
def _decoder(name: str) -> Callable[[int], str]:
    from escpos.codepages import CodePages

    try:
        enc: dict[str, Any] = CodePages.get_encoding(name)
    except Exception:
        enc = {}
    if "python_encode" in enc:
        codec = str(enc["python_encode"])

        def dec(b: int) -> str:
            try:
                return bytes([b]).decode(codec)
            except (UnicodeDecodeError, LookupError):
                return "?"
        return dec
    if "data" in enc:
        table = list("".join(enc["data"]))

        def dec_table(b: int) -> str:
            return chr(b) if b < 128 else table[b - 128]
        return dec_table
    return lambda b: chr(b) if b < 128 else "?"


# --------------------------------------------------------------------------------------
# the interpreter


def interpret(data: bytes, *, profile: str = DEFAULT_PROFILE,
              printable_dots: int | None = None) -> Receipt:
    """Decode ESC/POS ``data`` into a :class:`Receipt` (text lines, codes, feeds, cut)."""
    if not isinstance(data, bytes | bytearray):
        raise PreviewError(f"slip data: expected bytes, got {type(data).__name__}")
    pages = _codepage_numbers(profile)
    if printable_dots is None:
        p = escpos_dummy(profile)
        media = p.profile.profile_data.get("media") or {}
        printable_dots = int((media.get("width") or {}).get("pixels") or DEFAULT_PRINTABLE_DOTS)
    rec = Receipt(printable_dots=printable_dots)

    style = Style()
    align = 0
    spacing = DEFAULT_LINE_SPACING
    codepage = pages.get(0, "CP437")
    runs: list[Run] = []
    line_width = 0
    qr_module, qr_ec, qr_data = 3, 0, b""
    barcode_height = 162
    n = len(data)
    i = 0

    def need(count: int, what: str) -> bytes:
        if i + count > n:
            raise PreviewError(f"byte {i}: {what} is cut short ({n - i} of {count} bytes)")
        return bytes(data[i:i + count])

    def flush(force: bool = True) -> None:
        nonlocal runs, line_width
        if runs or force:
            rec.items.append(TextLine(runs, align, spacing))
        runs = []
        line_width = 0

    def put_char(ch: str) -> None:
        nonlocal line_width
        cw = FONTS.get(style.font, FONTS[0])[0] * style.width
        if line_width + cw > printable_dots:
            flush()
        if runs and runs[-1].style == style:
            runs[-1].text += ch
        else:
            runs.append(Run(ch, style.copy()))
        line_width += cw

    while i < n:
        b = data[i]
        if b == 0x0A:
            flush()
            i += 1
        elif b == 0x0D or b == 0x00:
            i += 1
        elif b == 0x09:
            for _ in range(8 - (len("".join(r.text for r in runs)) % 8)):
                put_char(" ")
            i += 1
        elif b == ESC:
            cmd = chr(need(2, "ESC command")[1])
            if cmd not in _ESC_ARGS:
                rec.unknown.append(f"byte {i}: ESC {cmd!r}")
                i += 1
                continue
            args = need(2 + _ESC_ARGS[cmd], f"ESC {cmd}")[2:]
            i += 2 + len(args)
            a = args[0] if args else 0
            if cmd == "@":
                style, align, spacing = Style(), 0, DEFAULT_LINE_SPACING
                codepage = pages.get(0, "CP437")
            elif cmd == "t":
                codepage = pages.get(a, "Unknown")
            elif cmd == "!":
                style.font = a & 1
                style.bold = bool(a & 0x08)
                style.height = 2 if a & 0x10 else 1
                style.width = 2 if a & 0x20 else 1
                style.underline = 1 if a & 0x80 else 0
            elif cmd in ("E", "G"):
                style.bold = bool(a & 1)
            elif cmd == "-":
                style.underline = a % 48 if a >= 48 else a
            elif cmd == "a":
                align = a % 48 if a >= 48 else a
            elif cmd == "M":
                style.font = 1 if a in (1, 49) else 0
            elif cmd == "2":
                spacing = DEFAULT_LINE_SPACING
            elif cmd == "3":
                spacing = a
            elif cmd == "d":
                if runs:
                    flush()
                rec.items.append(Feed(a * spacing))
            elif cmd == "J":
                if runs:
                    flush(force=False)
                rec.items.append(Feed(a))
        elif b == GS:
            cmd = chr(need(2, "GS command")[1])
            if cmd in _GS_ONE_ARG:
                a = need(3, f"GS {cmd}")[2]
                i += 3
                if cmd == "!":
                    style.width = (a >> 4) + 1
                    style.height = (a & 0x0F) + 1
                elif cmd == "B":
                    style.invert = bool(a & 1)
                elif cmd == "h":
                    barcode_height = a
            elif cmd == "V":
                m = need(3, "GS V")[2]
                i += 3
                if m in (65, 66):
                    need(1, "GS V feed")
                    i += 1
                if runs:
                    flush()
                rec.items.append(Cut(partial=m in (1, 49, 66)))
            elif cmd in ("L", "W", "P", "\\"):
                need(4, f"GS {cmd}")
                i += 4
            elif cmd == "(":
                head = need(5, "GS ( command")
                fn_kind, length = chr(head[2]), head[3] | (head[4] << 8)
                body = need(5 + length, f"GS ( {fn_kind}")[5:]
                i += 5 + length
                if fn_kind == "k" and len(body) >= 2 and body[0] == 49:
                    fn = body[1]
                    if fn == 67 and len(body) >= 3:
                        qr_module = body[2]
                    elif fn == 69 and len(body) >= 3:
                        qr_ec = body[2] - 48
                    elif fn == 80:
                        qr_data = bytes(body[3:])
                    elif fn == 81:
                        if runs:
                            flush()
                        rec.items.append(Code("qr", qr_data, align, module=qr_module, ec=qr_ec))
                elif not (fn_kind == "k" and body[:1] == b"1"):
                    rec.unknown.append(f"byte {i - 5 - length}: GS ( {fn_kind}")
            elif cmd == "v":
                head = need(8, "GS v 0 raster image")
                mode, xb, yd = head[3], head[4] | (head[5] << 8), head[6] | (head[7] << 8)
                raw = need(8 + xb * yd, "GS v 0 raster image")[8:]
                i += 8 + xb * yd
                img = Image.frombytes("1", (xb * 8, yd), raw, "raw", "1;I")
                if mode & 1:
                    img = img.resize((img.width * 2, img.height))
                if mode & 2:
                    img = img.resize((img.width, img.height * 2))
                if runs:
                    flush()
                rec.items.append(Raster(img, align))
            elif cmd == "k":
                m = need(3, "GS k")[2]
                if m <= 6:
                    end = data.find(b"\x00", i + 3)
                    if end < 0:
                        raise PreviewError(f"byte {i}: GS k barcode data has no end (NUL)")
                    payload, i = bytes(data[i + 3:end]), end + 1
                else:
                    ln = need(4, "GS k")[3]
                    payload = need(4 + ln, "GS k barcode")[4:]
                    i += 4 + ln
                if runs:
                    flush()
                rec.items.append(Code("barcode", payload, align, height=barcode_height))
            else:
                rec.unknown.append(f"byte {i}: GS {cmd!r}")
                i += 1
        elif b == DLE:
            head = need(2, "DLE command")
            if head[1] == 0x04:
                rec.queries.append(need(3, "DLE EOT")[:3])
                i += 3
            elif head[1] == 0x14:
                i += min(5, n - i)
            else:
                rec.unknown.append(f"byte {i}: DLE {head[1]:#04x}")
                i += 1
        elif b == FS:
            cmd = chr(need(2, "FS command")[1])
            if cmd in (".", "&"):
                i += 2
            elif cmd == "p":
                i += 4
            else:
                rec.unknown.append(f"byte {i}: FS {cmd!r}")
                i += 1
        elif b < 0x20:
            rec.unknown.append(f"byte {i}: control {b:#04x}")
            i += 1
        else:
            put_char(_decoder(codepage)(b))
            i += 1
    if runs:
        flush()
    return rec


def recovered_text(data: bytes, *, profile: str = DEFAULT_PROFILE) -> str:
    """The text lines the paper would show (without styling), one per line."""
    return interpret(data, profile=profile).text


# --------------------------------------------------------------------------------------
# drawing

_MONO = ("DejaVuSansMono.ttf", "LiberationMono-Regular.ttf", "consola.ttf", "cour.ttf",
         "Menlo.ttc", "Courier New.ttf")
_MONO_BOLD = ("DejaVuSansMono-Bold.ttf", "LiberationMono-Bold.ttf", "consolab.ttf",
              "courbd.ttf", "Menlo.ttc", "Courier New Bold.ttf")
_PROBE = "\u00c9\u00c5Hgj|"  # accented capitals and descenders must fit the cell
_FONT_DIR = Path(__file__).resolve().parents[2] / "resources" / "fonts"


def _load_font(names: tuple[str, ...], size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    for name in names:
        for candidate in (_FONT_DIR / name, Path(name)):
            try:
                return ImageFont.truetype(str(candidate), size)
            except OSError:
                continue
    return ImageFont.load_default(size=size)


@functools.lru_cache(maxsize=32)
def _font(bold: bool, cell_w: int, cell_h: int) -> Any:
    """A monospaced font whose advance fits ``cell_w`` and whose height fits ``cell_h``."""
    names = _MONO_BOLD if bold else _MONO
    probe = _load_font(names, 100)
    advance = probe.getlength("M") or 60.0
    _, t, _, btm = probe.getbbox(_PROBE)
    size = max(6, int(min(cell_w * 100 / advance, cell_h * 100 / max(1, btm - t) * 0.95)))
    return _load_font(names, size)


def _draw_run(run: Run, scale: int) -> Image.Image:
    base_w, base_h = FONTS.get(run.style.font, FONTS[0])
    cw, ch = base_w * scale, base_h * scale
    n = len(run.text)
    fg, bg = (PAPER, INK) if run.style.invert else (INK, PAPER)
    img = Image.new("RGB", (max(1, cw * n), ch), bg)
    draw = ImageDraw.Draw(img)
    font = _font(run.style.bold, cw, ch)
    top = font.getbbox(_PROBE)[1]
    for k, c in enumerate(run.text):
        if c == " ":
            continue
        glyph_w = font.getlength(c)
        draw.text((k * cw + (cw - glyph_w) / 2, -top + scale), c, font=font, fill=fg)
    if run.style.underline:
        thick = run.style.underline * scale
        draw.rectangle((0, ch - thick, img.width, ch - 1), fill=fg)
    if run.style.width != 1 or run.style.height != 1:
        img = img.resize((img.width * run.style.width, img.height * run.style.height),
                         Image.Resampling.BICUBIC)
    return img


def _qr_image(code: Code, scale: int) -> Image.Image:
    import qrcode
    import qrcode.constants as qc

    levels = [qc.ERROR_CORRECT_L, qc.ERROR_CORRECT_M, qc.ERROR_CORRECT_Q, qc.ERROR_CORRECT_H]
    q = qrcode.QRCode(version=None, box_size=max(1, code.module) * scale, border=0,
                      error_correction=levels[max(0, min(3, code.ec))])
    q.add_data(code.data)
    q.make(fit=True)
    matrix = q.get_matrix()
    size = len(matrix) * max(1, code.module) * scale
    img = Image.new("RGB", (size, size), PAPER)
    draw = ImageDraw.Draw(img)
    box = max(1, code.module) * scale
    for y, row in enumerate(matrix):
        for x, dark in enumerate(row):
            if dark:
                draw.rectangle((x * box, y * box, (x + 1) * box - 1, (y + 1) * box - 1), fill=INK)
    return img


def _barcode_image(code: Code, printable: int, scale: int) -> Image.Image:
    w, h = min(printable, 360) * scale, max(40, code.height) * scale
    img = Image.new("RGB", (w, h + 28 * scale), PAPER)
    draw = ImageDraw.Draw(img)
    draw.rectangle((0, 0, w - 1, h - 1), outline=INK, width=2 * scale)
    font = _font(False, 12 * scale, 24 * scale)
    label = f"BARCODE {code.text}"
    draw.text(((w - font.getlength(label)) / 2, h / 2 - 12 * scale), label, font=font, fill=INK)
    return img


def _cut_image(width: int, partial: bool, scale: int) -> Image.Image:
    img = Image.new("RGB", (width, 28 * scale), PAPER)
    draw = ImageDraw.Draw(img)
    y = 14 * scale
    for x in range(0, width, 12 * scale):
        draw.line((x, y, x + 6 * scale, y), fill=(120, 120, 120), width=max(1, scale))
    font = _font(False, 9 * scale, 17 * scale)
    label = " partial cut " if partial else " cut "
    lw = font.getlength(label)
    draw.rectangle(((width - lw) / 2, 0, (width + lw) / 2, 27 * scale), fill=PAPER)
    draw.text(((width - lw) / 2, 4 * scale), label, font=font, fill=(120, 120, 120))
    return img


def render_receipt(rec: Receipt, *, scale: int = 1, paper_dots: int = PAPER_DOTS) -> Image.Image:
    """Draw a :class:`Receipt` as paper: ``paper_dots * scale`` pixels wide."""
    if scale < 1:
        raise PreviewError(f"preview scale: must be 1 or more, got {scale}")
    paper_w = paper_dots * scale
    printable = min(rec.printable_dots, paper_dots)
    left = (paper_dots - printable) // 2 * scale
    margin = 24 * scale
    blocks: list[tuple[int, Image.Image, int]] = []  # (x, image, height advance)

    def x_for(width: int, align: int) -> int:
        area = printable * scale
        if align == 1:
            return left + max(0, (area - width) // 2)
        if align == 2:
            return left + max(0, area - width)
        return left

    for item in rec.items:
        if isinstance(item, TextLine):
            height = item.height * scale
            line = Image.new("RGB", (max(1, item.width * scale), height), PAPER)
            x = 0
            for run in item.runs:
                if not run.text:
                    continue
                img = _draw_run(run, scale)
                line.paste(img, (x, height - img.height))
                x += img.width
            advance = max(item.spacing * scale, height + (item.spacing - FONTS[0][1]) * scale)
            blocks.append((x_for(line.width, item.align), line, advance))
        elif isinstance(item, Code):
            img = (_qr_image(item, scale) if item.kind == "qr"
                   else _barcode_image(item, printable, scale))
            blocks.append((x_for(img.width, item.align), img, img.height))
        elif isinstance(item, Raster):
            img = item.image.convert("RGB")
            if scale > 1:
                img = img.resize((img.width * scale, img.height * scale), Image.Resampling.NEAREST)
            blocks.append((x_for(img.width, item.align), img, img.height))
        elif isinstance(item, Feed):
            blocks.append((0, Image.new("RGB", (1, 1), PAPER), item.dots * scale))
        elif isinstance(item, Cut):
            blocks.append((0, _cut_image(paper_w, item.partial, scale), 28 * scale))

    total = margin + sum(adv for _, _, adv in blocks) + margin
    page = Image.new("RGB", (paper_w, max(total, 2 * margin)), PAPER)
    y = margin
    for x, img, adv in blocks:
        page.paste(img, (x, y))
        y += adv
    return page


def render(data: bytes, *, profile: str = DEFAULT_PROFILE, scale: int = 1) -> Image.Image:
    """ESC/POS bytes -> PIL image of the receipt (576 dots wide at ``scale=1``)."""
    return render_receipt(interpret(data, profile=profile), scale=scale)


def preview_png(data: bytes, path: str | Path, *, profile: str = DEFAULT_PROFILE,
                scale: int = 1) -> Path:
    """Render ``data`` and save it as a PNG at ``path``; returns the path."""
    out = Path(path)
    try:
        render(data, profile=profile, scale=scale).save(out, format="PNG")
    except OSError as e:
        raise PreviewError(f"preview file {out}: can not be written ({e.strerror or e})") from None
    return out
