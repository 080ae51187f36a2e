"""Certificates for the controller link: a casino CA, one certificate per table controller bound
to its table id, one per console (docs/protocol.md, "Transport security").

``podium certs`` (core/cli/certs_command.py), the demo and the tests make theirs here.  A casino
with a PKI of its own issues the same shape there (what :mod:`core.controllers.tls` checks):

- table controller: subject ``CN=<table id>, OU=table-controller``, extended key usage
  serverAuth;
- console: subject ``CN=<console name>, OU=console``, extended key usage clientAuth;
- both signed by the CA whose certificate is ``ca.pem``.

A folder of certificates is laid out as ``podium simulate --certs`` and the floor file expect::

    ca.pem  ca.key                       the CA (keep ca.key offline in a real installation)
    consoles/<name>.pem  <name>.key      one per console ("console" from ``init``)
    tables/<table id>.pem  <id>.key      one per table controller
    crl.pem                              revoked certificates (``podium certs revoke``)

Keys are EC P-256, written with mode 0600; nothing is ever overwritten unless asked.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from core.controllers.tls import CONSOLE_OU, CONTROLLER_OU, Role, TlsFiles

CA_CERT, CA_KEY, CRL = "ca.pem", "ca.key", "crl.pem"
DEFAULT_CONSOLE = "console"
DEFAULT_DAYS = 397  # a controller's or console's certificate; renew before it runs out
DEFAULT_CA_DAYS = 3650
MAX_CN = 64  # characters in a subject CN (X.509 upper bound)


class CertsError(ValueError):
    """A certificate that can not be made; the message names the name or file."""


@dataclass(frozen=True)
class Authority:
    """The CA: its certificate and key."""

    cert: x509.Certificate
    key: ec.EllipticCurvePrivateKey

    @classmethod
    def create(cls, organization: str, days: int = DEFAULT_CA_DAYS) -> Authority:
        key = ec.generate_private_key(ec.SECP256R1())
        name = x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, organization),
                          x509.NameAttribute(NameOID.COMMON_NAME,
                                             f"{organization} controller link CA"[:MAX_CN])])
        ski = x509.SubjectKeyIdentifier.from_public_key(key.public_key())
        cert = (_builder(name, name, key.public_key(), days)
                .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
                .add_extension(x509.KeyUsage(digital_signature=False, content_commitment=False,
                                             key_encipherment=False, data_encipherment=False,
                                             key_agreement=False, key_cert_sign=True,
                                             crl_sign=True, encipher_only=False,
                                             decipher_only=False), critical=True)
                .add_extension(ski, critical=False)
                .sign(key, hashes.SHA256()))
        return cls(cert, key)

    @classmethod
    def load(cls, directory: Path) -> Authority:
        cert_path, key_path = directory / CA_CERT, directory / CA_KEY
        try:
            cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
            key = serialization.load_pem_private_key(key_path.read_bytes(), password=None)
        except FileNotFoundError as exc:
            raise CertsError(f"{exc.filename}: no such file (podium certs init {directory} "
                             "makes a CA)") from None
        except (OSError, ValueError, TypeError) as exc:
            raise CertsError(f"{directory}: the CA can not be read: {exc}") from None
        if not isinstance(key, ec.EllipticCurvePrivateKey):
            raise CertsError(f"{key_path}: not an EC key (podium certs makes EC P-256 keys)")
        return cls(cert, key)

    def issue(self, role: Role, name: str, days: int = DEFAULT_DAYS
              ) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
        """A certificate for table controller ``name`` (its table id) or console ``name``."""
        check_name(name)
        key = ec.generate_private_key(ec.SECP256R1())
        ou, usage = ((CONTROLLER_OU, ExtendedKeyUsageOID.SERVER_AUTH) if role == "controller"
                     else (CONSOLE_OU, ExtendedKeyUsageOID.CLIENT_AUTH))
        org = self.cert.subject.get_attributes_for_oid(NameOID.ORGANIZATION_NAME)
        subject = x509.Name(list(org) + [
            x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, ou),
            x509.NameAttribute(NameOID.COMMON_NAME, name)])
        ca_ski = self.cert.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value
        cert = (_builder(subject, self.cert.subject, key.public_key(), days)
                .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
                .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False,
                                             key_encipherment=False, data_encipherment=False,
                                             key_agreement=False, key_cert_sign=False,
                                             crl_sign=False, encipher_only=False,
                                             decipher_only=False), critical=True)
                .add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
                .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()),
                               critical=False)
                .add_extension(x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(
                    ca_ski), critical=False)
                .sign(self.key, hashes.SHA256()))
        return cert, key

    def crl(self, revoked: Iterable[x509.Certificate], days: int = 30,
            previous: x509.CertificateRevocationList | None = None
            ) -> x509.CertificateRevocationList:
        """A revocation list of ``revoked`` (and what ``previous`` listed), valid ``days``."""
        now = datetime.now(UTC)
        builder = (x509.CertificateRevocationListBuilder().issuer_name(self.cert.subject)
                   .last_update(now - timedelta(minutes=5))
                   .next_update(now + timedelta(days=days)))
        serials: dict[int, datetime] = {}
        for entry in previous or ():
            serials[entry.serial_number] = entry.revocation_date_utc
        for cert in revoked:
            serials.setdefault(cert.serial_number, now)
        for serial, when in sorted(serials.items()):
            builder = builder.add_revoked_certificate(
                x509.RevokedCertificateBuilder().serial_number(serial).revocation_date(when)
                .build())
        return builder.sign(self.key, hashes.SHA256())


def _builder(subject: x509.Name, issuer: x509.Name, public_key: ec.EllipticCurvePublicKey,
             days: int) -> x509.CertificateBuilder:
    if days < 1:
        raise CertsError(f"--days: {days} must be at least 1")
    now = datetime.now(UTC)
    return (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer)
            .public_key(public_key).serial_number(x509.random_serial_number())
            .not_valid_before(now - timedelta(minutes=5))  # a controller's clock a little behind
            .not_valid_after(now + timedelta(days=days)))


def check_name(name: str) -> None:
    """A table id or console name must fit a subject CN and a file name."""
    if not name or len(name) > MAX_CN:
        raise CertsError(f"name {name!r}: must be 1 to {MAX_CN} characters (a certificate's CN)")
    if name.startswith(".") or any(c in name for c in "/\\\0"):
        raise CertsError(f"name {name!r}: can not be a file name (no '/', '\\', leading '.')")


# --------------------------------------------------------------------------- files


def table_files(directory: str | Path, table_id: str) -> TlsFiles:
    """A table controller's files in a certificate folder (named ``--certs`` in messages)."""
    d = Path(directory)
    return TlsFiles(str(d / CA_CERT), str(d / "tables" / f"{table_id}.pem"),
                    str(d / "tables" / f"{table_id}.key"),
                    names=("--certs", "--certs", "--certs", "--certs"))


def console_files(directory: str | Path, name: str = DEFAULT_CONSOLE) -> TlsFiles:
    d = Path(directory)
    return TlsFiles(str(d / CA_CERT), str(d / "consoles" / f"{name}.pem"),
                    str(d / "consoles" / f"{name}.key"))


def _pem(cert: x509.Certificate) -> bytes:
    return cert.public_bytes(serialization.Encoding.PEM)


def _key_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def _write(path: Path, data: bytes, *, private: bool, replace: bool) -> None:
    """Write ``path`` (a private key: mode 0600 from the first byte); never over an existing
    file unless ``replace`` (then through a new file, so a reader sees old or new)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = 0o600 if private else 0o644
    target = path.with_name(path.name + ".new") if replace else path
    if replace:
        target.unlink(missing_ok=True)  # left by an interrupted run
    try:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    except FileExistsError:
        raise CertsError(f"{target}: exists; it is not overwritten") from None
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    if replace:
        os.replace(target, path)


def _write_pair(directory: Path, sub: str, name: str, cert: x509.Certificate,
                key: ec.EllipticCurvePrivateKey, replace: bool) -> list[Path]:
    pem, key_path = directory / sub / f"{name}.pem", directory / sub / f"{name}.key"
    _write(key_path, _key_pem(key), private=True, replace=replace)
    _write(pem, _pem(cert), private=False, replace=replace)
    return [pem, key_path]


_Pair = tuple[str, str, x509.Certificate, ec.EllipticCurvePrivateKey]


def _make_pairs(ca: Authority, d: Path, tables: Sequence[str], consoles: Sequence[str],
                days: int, replace: bool) -> list[_Pair]:
    """Every certificate and key to write, made in memory once each name, the validity and
    (unless ``replace``) the absence of each file were checked: a refusal writes nothing."""
    _check_days(days)
    jobs: list[tuple[Role, str, str]] = [("console", "consoles", n) for n in consoles]
    jobs += [("controller", "tables", n) for n in tables]
    seen: set[tuple[str, str]] = set()
    for _role, sub, name in jobs:
        check_name(name)
        if (sub, name) in seen:
            raise CertsError(f"name {name!r}: given twice")
        seen.add((sub, name))
        if not replace:
            for p in (d / sub / f"{name}.pem", d / sub / f"{name}.key"):
                if p.exists():
                    raise CertsError(f"{p}: exists; it is not overwritten (--replace renews it)")
    return [(sub, name, *ca.issue(role, name, days)) for role, sub, name in jobs]


def _check_days(days: int) -> None:
    if days < 1:
        raise CertsError(f"--days: {days} must be at least 1")


def init(directory: str | Path, tables: Sequence[str], *, organization: str,
         consoles: Sequence[str] = (DEFAULT_CONSOLE,), days: int = DEFAULT_DAYS,
         ca_days: int = DEFAULT_CA_DAYS) -> list[Path]:
    """A new CA in ``directory`` (which must hold none yet) and its console and table
    certificates; returns the files written.  Everything is checked and made before the first
    file is written: a refusal (a validity of 0 days, a bad name) leaves no CA behind."""
    d = Path(directory)
    if (d / CA_KEY).exists() or (d / CA_CERT).exists():
        raise CertsError(f"{d}: holds a CA already; it is never overwritten (use another folder, "
                         "or podium certs issue to add certificates from it)")
    if ca_days < 1:
        raise CertsError(f"--ca-days: {ca_days} must be at least 1")
    ca = Authority.create(organization, ca_days)
    pairs = _make_pairs(ca, d, tables, consoles, days, False)
    _write(d / CA_KEY, _key_pem(ca.key), private=True, replace=False)
    _write(d / CA_CERT, _pem(ca.cert), private=False, replace=False)
    out = [d / CA_CERT, d / CA_KEY]
    for sub, name, cert, key in pairs:
        out += _write_pair(d, sub, name, cert, key, False)
    return out


def issue(directory: str | Path, *, tables: Sequence[str] = (), consoles: Sequence[str] = (),
          days: int = DEFAULT_DAYS, replace: bool = False,
          authority: Authority | None = None) -> list[Path]:
    """Certificates from the CA in ``directory`` for more tables or consoles (``replace``:
    renew existing ones); returns the files written (none when any is refused)."""
    d = Path(directory)
    for name in [*consoles, *tables]:
        check_name(name)
    _check_days(days)
    ca = authority or Authority.load(d)
    out: list[Path] = []
    for sub, name, cert, key in _make_pairs(ca, d, tables, consoles, days, replace):
        out += _write_pair(d, sub, name, cert, key, replace)
    return out


def revoke(directory: str | Path, cert_files: Sequence[str | Path], days: int = 30) -> Path:
    """Add the certificates in ``cert_files`` to the folder's ``crl.pem`` (made if missing),
    signed by its CA and valid ``days``; returns the CRL file."""
    d = Path(directory)
    ca = Authority.load(d)
    revoked = []
    for f in cert_files:
        try:
            cert = x509.load_pem_x509_certificate(Path(f).read_bytes())
        except (OSError, ValueError) as exc:
            raise CertsError(f"{f}: not a readable PEM certificate: {exc}") from None
        if cert.issuer != ca.cert.subject:
            raise CertsError(f"{f}: not issued by the CA of {d}")
        revoked.append(cert)
    previous = None
    if (d / CRL).exists():
        previous = x509.load_pem_x509_crl((d / CRL).read_bytes())
    crl = ca.crl(revoked, days, previous)
    _write(d / CRL, crl.public_bytes(serialization.Encoding.PEM), private=False, replace=True)
    return d / CRL
