"""The app: the console core (``console.ConsoleCore``) and its parts, one module per job.

``console`` wires the parts together and is the one object the GUI, the ``podium`` commands, the
tests and the benchmarks drive; ``links`` runs the controller links' loop, ``claims`` the tables
this process serves on a shared ledger, ``answers`` the events in and the PAY / REJECT out,
``jackpot_lock`` the Jackpot Lock state every linked table is told, ``print_spool`` the printer
thread, and ``listeners`` who is told what.
"""
