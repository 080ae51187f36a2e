"""The podium's main window by job: the header (clock, links, hits waiting), the Floor tab (pit
bar, tables, hit queue), the pit shown and the floor services, the Win slips and Activity tabs,
and the actions of its menus, keys and buttons; gui/main_window.py assembles them and paints the
floor (its geometry per screen: gui/common/window_geometry.py)."""
