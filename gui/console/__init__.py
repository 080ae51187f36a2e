"""The podium's main window by job: the header (clock, links, hits waiting), the Floor tab (pit
bar, tables, hit queue), the Win slips and Activity tabs, the actions of its menus and buttons,
and the window's geometry memory; gui/main_window.py assembles them and paints the floor."""
