"""Accounting for the table progressives (issue 13): gaming days and shifts, the
reconciliation of every level, the liability, the slip register, hits by level, drop against
contributions, and their exports.  Reads only, through a :class:`core.desks.desk.Desk`."""
