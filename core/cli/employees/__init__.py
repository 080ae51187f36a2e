"""``podium employees``, by family of subcommands (the command itself, its parser and its
dispatch, is :mod:`core.cli.employees_command`):

- :mod:`.enrollment`: ``add`` (an employee and the card they swipe), ``list``, ``check``;
- :mod:`.cards`: what a card may do: ``deactivate`` / ``reactivate``, ``replace-card`` (a lost or
  broken card), ``unlock`` (an executive lifts a lock);
- :mod:`.pins`: ``set-pin`` (the employee's own card and PIN), ``reset-pin`` (a forgotten one);
- :mod:`.contribution`: ``approve-contribution`` (RULES.md 4);

and what they share: :mod:`.records` (the refusal, the listing's record, who ran the command),
:mod:`.approval` (an executive's swipe and PIN, checked by the card gate in the change's own
transaction), :mod:`.terminal` (the swipe and PIN read without echo, one line out) and
:mod:`.ledger` (the ledger opened from ``--db``, a database failure one line).

Each family module holds its ledger operations (usable from a script or a test: ``enroll``,
``set_active``, ``replace_card``, ``set_pin``, ``reset_pin``, ``approve_contribution``) and the
steps its subcommands run at the terminal (``run_*``)."""
