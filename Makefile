# Podium: two commands do all the set-up.  `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint typecheck bench clean screenshots

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/podium demo

test: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy core printing

bench: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/python benchmarks/startup.py
	$(BIN)/python benchmarks/hit_latency.py
	$(BIN)/python benchmarks/enumerate.py
	$(BIN)/python benchmarks/meter_risk.py

# Offscreen screenshots of every screen, the slip and the win page into docs/screenshots/
screenshots: $(STAMP)
	mkdir -p docs/screenshots
	QT_QPA_PLATFORM=offscreen PODIUM_SCREENSHOT_DIR=docs/screenshots $(BIN)/python -m pytest -q tests/gui
	$(BIN)/python -c "from printing.slip import render_slip, demo_slip; from printing.preview import preview_png; preview_png(render_slip(demo_slip()), 'docs/screenshots/win-slip.png')"
	$(BIN)/python -c "from printing.bbj_slip import render_share_slip, demo_share_slip; from printing.preview import preview_png; preview_png(render_share_slip(demo_share_slip()), 'docs/screenshots/bbj-share-slip.png')"
	QT_QPA_PLATFORM=offscreen $(BIN)/python -c "from printing.forms import write_demo_forms; write_demo_forms('docs/screenshots', pdf=False)"

clean:
	rm -rf $(VENV) build *.egg-info
