# Podium: two commands do all the set-up.  `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

# One floor, many podiums on the local PostgreSQL: a floor service and two consoles (pits A, B)
.PHONY: run demo-floor test lint typecheck bench clean screenshots system-libs-run system-libs-test

# The system libraries Qt needs, as "library file:Debian package".  The desktop console (xcb
# platform plugin) needs them all; the offscreen tests only the first line's.
QT_TEST_LIBS := libEGL.so.1:libegl1 libGL.so.1:libgl1 libfontconfig.so.1:libfontconfig1 \
	libxkbcommon.so.0:libxkbcommon0 libdbus-1.so.3:libdbus-1-3
QT_RUN_LIBS := $(QT_TEST_LIBS) libxcb-cursor.so.0:libxcb-cursor0 libxcb-icccm.so.4:libxcb-icccm4 \
	libxcb-keysyms.so.1:libxcb-keysyms1 libxcb-image.so.0:libxcb-image0 \
	libxcb-render-util.so.0:libxcb-render-util0 libxkbcommon-x11.so.0:libxkbcommon-x11-0 \
	libxcb-randr.so.0:libxcb-randr0 libxcb-shape.so.0:libxcb-shape0 \
	libxcb-xinerama.so.0:libxcb-xinerama0 libxcb-xkb.so.1:libxcb-xkb1

# Install what is missing (as root, with apt-get); otherwise stop with the one command that does.
define need_libs
	@missing=""; \
	if command -v ldconfig >/dev/null 2>&1 || [ -x /sbin/ldconfig ]; then \
	  found="$$( (command -v ldconfig >/dev/null 2>&1 && ldconfig -p) || /sbin/ldconfig -p)"; \
	  for pair in $(1); do \
	    lib=$${pair%%:*}; pkg=$${pair##*:}; \
	    echo "$$found" | grep -q "$$lib" || missing="$$missing $$pkg"; \
	  done; \
	fi; \
	if [ -n "$$missing" ]; then \
	  echo "Qt needs these system libraries:$$missing"; \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing them: apt-get install -y$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq$$missing \
	      || { echo "could not install them; run: apt-get install -y$$missing"; exit 1; }; \
	  else \
	    echo "install them with:  sudo apt-get install -y$$missing"; exit 1; \
	  fi; \
	fi
endef

system-libs-run:
	$(call need_libs,$(QT_RUN_LIBS))

system-libs-test:
	$(call need_libs,$(QT_TEST_LIBS))

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: system-libs-run $(STAMP)
	$(BIN)/podium demo

demo-floor: system-libs-run $(STAMP)
	$(BIN)/podium demo-floor

# In parallel (pytest-xdist): one worker per CPU; tests that can not share the machine (their
# own PostgreSQL clusters on fixed ports) run one at a time (xdist_group: a lock in tests/conftest.py).
# TEST_WORKERS=0 runs the suite in one process.
# Bytecode is written (under .venv/pycache, not beside the sources) even where the environment
# sets PYTHONDONTWRITEBYTECODE: the suite starts hundreds of Python processes (the commands,
# services and consoles it tests), and without it each compiles Podium from source again, and
# each xdist worker rewrites every test module's asserts again (docs/testing.md).
TEST_WORKERS ?= auto
test: system-libs-test $(STAMP)
	PYTHONDONTWRITEBYTECODE= PYTHONPYCACHEPREFIX=$(CURDIR)/$(VENV)/pycache QT_QPA_PLATFORM=offscreen \
	  $(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadgroup

# ruff; mypy strict on core, printing and gui (pyproject.toml [tool.mypy]); the import contracts
# (pyproject.toml [tool.importlinter], docs/architecture.md "Layers")
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy core printing gui
	$(BIN)/lint-imports

bench: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/python benchmarks/startup.py
	$(BIN)/python benchmarks/cli_start.py
	$(BIN)/python benchmarks/hit_latency.py
	$(BIN)/python benchmarks/enumerate.py
	$(BIN)/python benchmarks/meter_risk.py

# Offscreen screenshots of every screen, the slip and the win page into docs/screenshots/;
# tests/screens.py: every tab, desk and the room display at 1366x768 and 1920x1080 (screen-*.png)
screenshots: $(STAMP)
	mkdir -p docs/screenshots
	QT_QPA_PLATFORM=offscreen PODIUM_SCREENSHOT_DIR=docs/screenshots $(BIN)/python -m pytest -q tests/gui
	$(BIN)/python -c "from printing.escpos.slip import render_slip, demo_slip; from printing.escpos.preview import preview_png; preview_png(render_slip(demo_slip()), 'docs/screenshots/win-slip.png')"
	$(BIN)/python -c "from printing.escpos.slip import render_slip, demo_slip, mark_copy; from printing.escpos.preview import preview_png; preview_png(mark_copy(render_slip(demo_slip()), 'duplicate'), 'docs/screenshots/win-slip-duplicate.png')"
	$(BIN)/python -c "from printing.escpos.bbj_slip import render_share_slip, demo_share_slip; from printing.escpos.preview import preview_png; preview_png(render_share_slip(demo_share_slip()), 'docs/screenshots/bbj-share-slip.png')"
	QT_QPA_PLATFORM=offscreen $(BIN)/python -c "from printing.pages.forms import write_demo_forms; write_demo_forms('docs/screenshots', pdf=False)"
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m tests.ledger_form_shots docs/screenshots
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m tests.screens docs/screenshots

clean:
	rm -rf $(VENV) build *.egg-info
