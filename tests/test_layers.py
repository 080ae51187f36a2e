"""Core's modules import one another without a loop (the import-linter contracts in
pyproject.toml check each package's modules and the layers; this checks all of core at once,
function-level imports included), and core never imports the GUI, paper or Qt."""

from __future__ import annotations

import grimp
import pytest


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("core", "printing", "gui", cache_dir=None,
                             include_external_packages=True)


def _loops(graph: grimp.ImportGraph, modules: set[str]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan, iterative)."""
    edges = {m: sorted(i for i in graph.find_modules_directly_imported_by(m) if i in modules)
             for m in modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(modules):
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            if i < len(edges[node]):
                work.append((node, i + 1))
                nxt = edges[node][i]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if low[node] == index[node]:
                group = []
                while True:
                    m = stack.pop()
                    on_stack.discard(m)
                    group.append(m)
                    if m == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return found


def test_core_modules_import_one_another_without_a_loop(graph: grimp.ImportGraph) -> None:
    core = {m for m in graph.modules if m == "core" or m.startswith("core.")}
    assert _loops(graph, core) == []


def test_the_loop_finder_finds_a_loop() -> None:
    g = grimp.ImportGraph()
    for m in ("a", "a.x", "a.y", "a.z"):
        g.add_module(m)
    g.add_import(importer="a.x", imported="a.y")
    g.add_import(importer="a.y", imported="a.x")
    g.add_import(importer="a.z", imported="a.x")
    assert _loops(g, {"a.x", "a.y", "a.z"}) == [["a.x", "a.y"]]


def test_core_imports_no_gui_paper_or_qt_but_the_cli_wiring(graph: grimp.ImportGraph) -> None:
    wiring = {("core.cli.dispatch", "printing.escpos.slip"),
              ("core.cli.dispatch", "printing.pages.accounting_page")}
    found = {(m, i) for m in graph.modules if m == "core" or m.startswith("core.")
             for i in graph.find_modules_directly_imported_by(m)
             if i.split(".")[0] in ("gui", "printing", "PySide6", "pyqtgraph", "escpos")}
    assert found <= wiring
