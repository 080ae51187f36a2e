"""``podium certs init|issue|revoke``: a test CA and the controller link's certificates.

The controller link is mutual TLS (docs/protocol.md, "Transport security"): each table
controller and each console holds a certificate from the casino's own CA.  A casino with a PKI
issues them there (the shape is in :mod:`core.controllers.certs`); this command makes the same
with ``cryptography`` for a lab, a test floor or a small casino without one:

    podium certs init DIR --floor floor.toml     # CA, console, one per table of the floor
    podium certs init DIR --tables 6             # tables T1..T6 (podium simulate --tables 6)
    podium certs issue DIR --table PG-7          # one more table from the CA in DIR
    podium certs issue DIR --table PG-1 --replace    # renew
    podium certs revoke DIR DIR/tables/PG-3.pem  # into DIR/crl.pem (controller_link.crl)

Keys are written with mode 0600 and nothing is overwritten unless ``--replace`` says so.  Bad
input raises a ``ValueError`` (``CertsError``) that ``core.cli.dispatch`` prints as one line.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from core.cli.options import whole_number
from core.controllers import certs

SUBCOMMANDS: dict[str, str] = {
    "init": "make a new CA in DIR, a console certificate and one certificate per table",
    "issue": "more (or renewed) table or console certificates from the CA in DIR",
    "revoke": "list certificates as revoked in DIR/crl.pem (the floor file's controller_link.crl)",
}


MAX_TABLES = 1000
MAX_DAYS = 36_500  # a hundred years: any validity longer is a typing mistake


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    sub = parser.add_subparsers(dest="certs_command", required=True,
                                parser_class=type(parser), metavar="COMMAND")
    for cmd, helptext in SUBCOMMANDS.items():
        p = sub.add_parser(cmd, help=helptext, description=helptext)
        p.add_argument("dir", metavar="DIR", help="the certificate folder (ca.pem, ca.key, "
                                                  "consoles/, tables/)")
        if cmd == "init":
            which = p.add_mutually_exclusive_group(required=True)
            which.add_argument("--floor", metavar="FILE|demo",
                               help="one certificate per table of this floor file")
            which.add_argument("--tables", type=whole_number(0, MAX_TABLES), metavar="N",
                               help="tables T1..TN, as podium simulate --tables N names them")
            p.add_argument("--console", action="append", default=None, metavar="NAME",
                           help=f"console certificate(s) to make (default "
                                f"{certs.DEFAULT_CONSOLE!r}); repeat for several consoles")
            p.add_argument("--organization", default=None,
                           help="the subject O of every certificate (default: the floor's "
                                "casino name)")
            p.add_argument("--ca-days", type=whole_number(0, MAX_DAYS),
                           default=certs.DEFAULT_CA_DAYS,
                           help=f"the CA's validity in days (default {certs.DEFAULT_CA_DAYS})")
        if cmd == "issue":
            p.add_argument("--table", action="append", default=[], metavar="ID",
                           help="a table controller's certificate (CN = the table id); repeat")
            p.add_argument("--console", action="append", default=[], metavar="NAME",
                           help="a console's certificate; repeat")
            p.add_argument("--replace", action="store_true",
                           help="renew: replace a certificate and key that exist")
        if cmd in ("init", "issue"):
            p.add_argument("--days", type=whole_number(0, MAX_DAYS), default=certs.DEFAULT_DAYS,
                           help=f"validity of each certificate in days (default "
                                f"{certs.DEFAULT_DAYS}); renew before it runs out")
        if cmd == "revoke":
            p.add_argument("cert", nargs="+", metavar="CERT",
                           help="the certificate file(s) to revoke (PEM, issued by DIR's CA)")
            p.add_argument("--days", type=whole_number(0, MAX_DAYS), default=30,
                           help="the revocation list's validity in days (default 30): publish "
                                "a new one before then, or consoles refuse every controller")


def run(args: argparse.Namespace) -> int:
    command = str(args.certs_command)
    args._command = f"certs {command}"  # error lines say "podium certs init: ..."
    try:
        if command == "init":
            return _init(args)
        if command == "issue":
            return _issue(args)
        crl = certs.revoke(args.dir, args.cert, args.days)
        print(f"{crl}: {len(args.cert)} certificate(s) added; set controller_link.crl to this "
              "file on every console")
        return 0
    except OSError as exc:  # a folder that can not be written, say
        raise certs.CertsError(f"{exc.filename or args.dir}: {exc.strerror or exc}") from None


def _init(args: argparse.Namespace) -> int:
    organization = args.organization
    if args.floor is not None:
        from core import floorconfig

        floor = (floorconfig.load_demo_floor() if args.floor == "demo"
                 else floorconfig.load_floor(args.floor))
        tables = [t.id for t in floor.tables]
        organization = organization or floor.casino.name
    else:
        if not 1 <= args.tables <= MAX_TABLES:
            raise certs.CertsError(f"--tables: {args.tables} must be 1..{MAX_TABLES}")
        tables = [f"T{i}" for i in range(1, args.tables + 1)]
    consoles = args.console or [certs.DEFAULT_CONSOLE]
    written = certs.init(args.dir, tables, organization=organization or "Podium test casino",
                         consoles=consoles, days=args.days, ca_days=args.ca_days)
    _report(written)
    d = Path(args.dir).resolve()
    print(f"\nThe floor file of the console {consoles[0]!r}:\n\n[controller_link]\n"
          f'transport = "tls"\nca = "{d / certs.CA_CERT}"\n'
          f'cert = "{d / "consoles" / consoles[0]}.pem"\n'
          f'key = "{d / "consoles" / consoles[0]}.key"\n\n'
          f"Each table controller gets ca.pem and its tables/<id>.pem and .key; "
          f"podium simulate --certs {args.dir} serves them. Keep {d / certs.CA_KEY} offline.")
    return 0


def _issue(args: argparse.Namespace) -> int:
    if not args.table and not args.console:
        raise certs.CertsError("issue: name at least one --table ID or --console NAME")
    _report(certs.issue(args.dir, tables=args.table, consoles=args.console, days=args.days,
                        replace=args.replace))
    return 0


def _report(written: list[Path]) -> None:
    for path in written:
        print(f"{path}{'  (private key, mode 0600)' if path.suffix == '.key' else ''}")
