"""Gaming machines: machine wins checked at the console and recorded (``checks``); the win rules
are in ``core.machines.rules.slots``."""
