"""Table controllers: the protocol on the wire, the console's link to each controller, the
events they report, the simulator that stands in for controllers we do not have, and which
process serves which table.

| module | job |
|---|---|
| ``events`` | what a controller reports (START GAME, HIT JACKPOT, ...), what a link hands on |
| ``frames`` | the protocol's frames and commands, the bounds of every number, ``ProtocolError`` |
| ``checksum`` | a frame's checksum: ``seal``, ``unseal`` |
| ``screening`` | what of an event the ledger can keep (storable text, a refusal's words) |
| ``protocol`` | frames to bytes and back (``encode_frame``, ``decode_frame``, ``FrameBuffer``) |
| ``tls`` | mutual TLS contexts and the words of a refusal |
| ``link_ends`` | how a link's connection ends; refusals, logged once |
| ``link_events`` | a table's events in sequence per (table, boot), acknowledged after the floor |
| ``link_commands`` | PAY / REJECT queued until the controller acknowledges them |
| ``link`` | ``ControllerLink``: the connection, the handshake, heartbeats, the reconnect |
| ``link_manager`` | ``LinkManager``: the links of the tables served, run together |
| ``sim_game`` | a simulated table's game: the rounds, the dealer's buttons (no network) |
| ``simulator`` | ``SimulatedTable``: that game as a controller on the network |
| ``sim_floor`` | several simulated tables; ``build_simulator`` (``podium simulate``) |
| ``certs`` | the casino CA and the certificates (``podium certs``) |
| ``lock_rows`` | a table's claim row in ``ledger_locks``: the statements, the lock connection |
| ``services`` | who serves which table, as the screens read it |
| ``ownership`` | ``TableClaims``: this process's claims, leases and fencing |
| ``chaos`` | a fault-injecting proxy for tests and benchmarks |

The modules are in layers (pyproject.toml ``[tool.importlinter]``, docs/architecture.md
"Layers"): each imports only from those below it.
"""
