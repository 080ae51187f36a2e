"""Surveillance (issue 13): a hit's timeline and the flags surveillance looks for.  Reads only,
through a :class:`core.desks.desk.Desk`."""
