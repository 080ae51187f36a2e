"""The bridge's one rule (gui/common/bridge.py): an answer reaches its handler only while the
handler's owner exists.  A bound method's owner is its object; a closure or a lambda has none
unless ``owner=`` names it, and then its answer would reach a widget already destroyed (a closed
tab's panel).  So every closure handed to the bridge in gui/ names its owner, or says on the line
before the call why it must run without one (``# no owner: ...``: a frozen amount given back, a
slip sent to the printer)."""

from __future__ import annotations

import ast
from pathlib import Path

GUI = Path(__file__).resolve().parents[3] / "gui"
BRIDGE_CALLS = {"query", "op", "compute", "listen"}


def ownerless_closures(source: str, name: str) -> list[str]:
    """``file:line`` of each bridge call whose handler is a lambda or a function defined in the
    calling function, with no ``owner=`` and no ``# no owner:`` comment on the line before."""
    tree = ast.parse(source)
    lines = source.splitlines()
    found = []
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        local = {n.name for n in ast.walk(fn)
                 if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n is not fn}
        for call in ast.walk(fn):
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                    and call.func.attr in BRIDGE_CALLS and len(call.args) > 1
                    and "bridge" in ast.unparse(call.func.value)):
                continue
            handler = call.args[1]
            closure = isinstance(handler, ast.Lambda) or (
                isinstance(handler, ast.Name) and handler.id in local)
            said = call.lineno >= 2 and "# no owner:" in lines[call.lineno - 2]
            if closure and not said and "owner" not in {k.arg for k in call.keywords}:
                found.append(f"{name}:{call.lineno}")
    return sorted(set(found))


def test_every_closure_given_to_the_bridge_names_its_owner() -> None:
    found = [where for path in sorted(GUI.rglob("*.py"))
             for where in ownerless_closures(path.read_text(), str(path.relative_to(GUI)))]
    assert found == []


def test_the_check_sees_a_closure_without_an_owner() -> None:
    source = '''
def refresh(self):
    def shown(result):
        self.label.setText(result)
    default_bridge().query(read, shown)
    default_bridge().query(read, lambda r: None, owner=self)
    # no owner: runs whatever becomes of the widget
    default_bridge().op(write, lambda r: None)
    default_bridge().query(read, self._show)
'''
    assert ownerless_closures(source, "x.py") == ["x.py:5"]
