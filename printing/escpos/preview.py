"""Preview: ESC/POS bytes drawn as the paper shows them.

:mod:`printing.escpos.interpreter` reads the bytes back into a :class:`Receipt` (text lines in
their styles, codes, raster images, feeds, the cut); :func:`render_receipt` draws it as a PIL
image of an 80 mm receipt (576 dots wide at scale 1): text in a monospaced font fitted to the
printer's cells, native QR codes drawn with the ``qrcode`` package, 1-D barcodes as a box with
the data, the cut as a dashed line.  :func:`render` does both, :func:`preview_png` saves the
image: the on-screen preview and docs/screenshots' slips.

Because the preview is drawn from the very bytes the printer receives, a supervisor sees the
slip before it is printed.  The interpreter's names (:func:`interpret`, :func:`recovered_text`,
:class:`Receipt`, :class:`PreviewError`, ...) are importable from here too.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from printing.escpos.interpreter import (
    DEFAULT_LINE_SPACING,
    DEFAULT_PRINTABLE_DOTS,
    FONTS,
    Code,
    Cut,
    Feed,
    Item,
    PreviewError,
    Raster,
    Receipt,
    Run,
    Style,
    TextLine,
    interpret,
    recovered_text,
)
from printing.escpos.slip import DEFAULT_PROFILE

PAPER_DOTS = 576  # 80 mm paper as the preview draws it
PAPER = (252, 252, 248)
INK = (20, 20, 20)



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


# the interpreter's names, for the callers that import them from here
__all__ = ["DEFAULT_LINE_SPACING", "DEFAULT_PRINTABLE_DOTS", "FONTS", "INK", "PAPER", "PAPER_DOTS",
           "Code", "Cut", "Feed", "Item", "PreviewError", "Raster", "Receipt", "Run", "Style",
           "TextLine", "interpret", "preview_png", "recovered_text", "render", "render_receipt"]
