"""Table controllers: the protocol on the wire, the console's link to each controller, the
events they report, and the simulator that stands in for controllers we do not have."""
