"""Mutual TLS on the controller link (docs/protocol.md, "Transport security").

Anyone on the floor network could otherwise pose as a table controller (a HELLO carries nothing
secret) or, posing as a console, make a real controller apply a PAY.  So every table controller
and every console holds a certificate from the casino's own CA, and both sides check the other's:

- the console (TLS client) accepts a controller only with a certificate from the CA of
  ``[controller_link] ca`` whose subject OU is ``table-controller``, whose extended key usage
  has serverAuth, and whose subject CN is the table id the floor file configures at that
  address.  The address's host name is not checked: controllers sit on IP addresses from the
  floor file, and what must be proven is which TABLE answers, not which host;
- the controller (TLS server, the simulator here) asks for the console's certificate and
  accepts only one from the CA with OU ``console`` and extended key usage clientAuth, so a
  controller's certificate, copied off a table, can not drive another table.

TLS 1.2 is the oldest version either side speaks.  Plain TCP exists for a lab only, and only
where the floor file says ``transport = "plain-lab-only"``; a console set up for TLS never falls
back to plain.  The certificate files are read and checked here with ``cryptography`` before
OpenSSL gets them, so a wrong file is named in plain words (which key or option, which file,
what is wrong with it) instead of an OpenSSL error code.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import ssl
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from cryptography import x509
from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.types import PrivateKeyTypes
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

log = logging.getLogger("podium.tls")

MIN_VERSION = ssl.TLSVersion.TLSv1_2
CONTROLLER_OU = "table-controller"  # subject OU of a table controller's certificate
CONSOLE_OU = "console"  # subject OU of a console's certificate
PLAIN_LAB_ONLY = "plain-lab-only"

Role = Literal["controller", "console"]
# what each role's certificate must carry: (subject OU, extended key usage, its name in messages)
_ROLES: dict[str, tuple[str, x509.ObjectIdentifier, str]] = {
    "controller": (CONTROLLER_OU, ExtendedKeyUsageOID.SERVER_AUTH, "serverAuth"),
    "console": (CONSOLE_OU, ExtendedKeyUsageOID.CLIENT_AUTH, "clientAuth"),
}
_ROLE_NAMES = {"controller": "a table controller's", "console": "a console's"}


class TlsError(ValueError):
    """A certificate set-up that can not work; the message names the key or option, the file
    and the problem."""


@dataclass(frozen=True)
class TlsFiles:
    """The files one end of the link needs, and how a message names each of them (a floor file
    key such as ``floor.toml: controller_link.cert``, or a command-line option)."""

    ca: str
    cert: str
    key: str
    crl: str = ""
    names: tuple[str, str, str, str] = ("ca", "cert", "key", "crl")


# --------------------------------------------------------------------------- identities


@dataclass(frozen=True)
class Identity:
    """What the link checks of a certificate."""

    cn: str
    ous: tuple[str, ...]
    usages: tuple[str, ...]  # extended key usages by name (serverAuth, clientAuth)

    def describe(self) -> str:
        ou = ", ".join(self.ous) or "none"
        return (f"CN {self.cn!r}, OU {ou}, extended key usage "
                f"{', '.join(self.usages) or 'none'}")


def identity(cert: x509.Certificate) -> Identity:
    def values(oid: x509.ObjectIdentifier) -> tuple[str, ...]:
        return tuple(str(a.value) for a in cert.subject.get_attributes_for_oid(oid))

    usages: tuple[x509.ObjectIdentifier, ...] = ()  # none at all: cryptography 51 refuses an
    with contextlib.suppress(x509.ExtensionNotFound):  # empty ExtendedKeyUsage([])
        usages = tuple(cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value)
    names = {ExtendedKeyUsageOID.SERVER_AUTH: "serverAuth",
             ExtendedKeyUsageOID.CLIENT_AUTH: "clientAuth"}
    cns = values(NameOID.COMMON_NAME)
    return Identity(cns[0] if cns else "", values(NameOID.ORGANIZATIONAL_UNIT_NAME),
                    tuple(names.get(u, u.dotted_string) for u in usages))


def role_problem(cert: x509.Certificate, role: Role) -> str:
    """Why ``cert`` is not a certificate of ``role`` ("" when it is)."""
    ou, usage, usage_name = _ROLES[role]
    ident = identity(cert)
    if ou in ident.ous and usage_name in ident.usages:
        return ""
    return (f"not {_ROLE_NAMES[role]} certificate ({ident.describe()}); {_ROLE_NAMES[role]} has "
            f"OU {ou!r} and extended key usage {usage_name}")


def _peer(ssl_object: Any) -> x509.Certificate | None:
    der = ssl_object.getpeercert(binary_form=True) if ssl_object is not None else None
    return x509.load_der_x509_certificate(der) if der else None


def controller_problem(ssl_object: Any, table_id: str, where: str) -> str:
    """Why the controller behind ``ssl_object`` (its certificate already verified against the
    CA) is not table ``table_id`` ("" when it is).  ``where`` is "controller at host:port"."""
    cert = _peer(ssl_object)
    if cert is None:
        return f"{where} presented no certificate"
    problem = role_problem(cert, "controller")
    if problem:
        return f"{where} presents a certificate that is {problem}"
    cn = identity(cert).cn
    if cn != table_id:
        return (f"{where} presents the certificate of table {cn!r}; the floor configures table "
                f"{table_id!r} there")
    return ""


def console_problem(ssl_object: Any) -> str:
    """Why the peer behind ``ssl_object`` (a client of a controller, its certificate already
    verified against the CA) is not a console ("" when it is)."""
    cert = _peer(ssl_object)
    if cert is None:
        return "no client certificate"
    return role_problem(cert, "console")


# Reasons OpenSSL gives when the other end does not speak TLS at all.
_NOT_TLS = ("WRONG_VERSION_NUMBER", "RECORD_LAYER_FAILURE", "PACKET_LENGTH_TOO_LONG",
            "HTTP_REQUEST", "UNKNOWN_PROTOCOL")
# Alerts (OpenSSL's reason ends in ALERT_<name>) by which a controller refuses this console's
# certificate: a bad one, none (TLS 1.3 certificate_required; TLS 1.2 says handshake_failure),
# or one it does not trust.
_CERTIFICATE_ALERTS = ("BAD_CERTIFICATE", "UNSUPPORTED_CERTIFICATE", "CERTIFICATE_REVOKED",
                       "CERTIFICATE_EXPIRED", "CERTIFICATE_UNKNOWN", "UNKNOWN_CA",
                       "ACCESS_DENIED", "CERTIFICATE_REQUIRED", "HANDSHAKE_FAILURE")
# verify codes of X509_verify_cert, with what they mean on this link
_VERIFY_HINTS = {
    2: "not issued by the casino CA of this console",
    9: "not valid yet (check the clocks)",
    10: "expired: the controller needs a renewed certificate",
    18: "a self-signed certificate, not one from the casino CA",
    19: "not issued by the casino CA of this console",
    20: "not issued by the casino CA of this console",
    21: "not issued by the casino CA of this console",
    23: "listed in controller_link.crl",
    26: "not a table controller's certificate (its extended key usage lacks serverAuth)",
}


@dataclass(frozen=True)
class HandshakeFault:
    """Why a TLS handshake with a controller (or the first read after it) failed.

    ``words`` name the cause for the status detail.  ``certificate`` says whether it is what a
    refusal looks like: the controller's certificate failed verification, the controller sent an
    alert about this console's certificate, or it does not answer in TLS at all.  Each of these
    can also be one damaged byte of the handshake (under TLS 1.2 the certificates cross in the
    clear: a flipped byte is a failed signature, an unknown issuer, an expiry; a flipped record
    header reads as plain TCP; a damaged alert, or a damaged request answered with one, can be
    any alert), so the link counts it as a refusal only when it repeats
    (``core.controllers.link_ends.REFUSAL_REPEATS``).  Anything else (bad record mac, a cut or reset
    connection, a malformed record) is a connection fault."""

    words: str
    certificate: bool


def _words(reason: str) -> str:
    return reason.lower().replace("_", " ")


def _ssl_words(exc: ssl.SSLError) -> str:
    # without a reason code: OpenSSL's text without the place in CPython's source ("[SSL] ASN1
    # lib")
    return _words(exc.reason or "") or re.sub(r"\s*\(_ssl\.c:\d+\)$", "", str(exc))


def handshake_fault(exc: OSError) -> HandshakeFault:
    """The failure of a TLS handshake with a controller, in words (``exc``: what the handshake,
    or the first read after it, raised)."""
    if isinstance(exc, ssl.SSLCertVerificationError):
        hint = _VERIFY_HINTS.get(exc.verify_code, "")
        return HandshakeFault(f"its certificate was refused: {exc.verify_message}"
                              + (f" ({hint})" if hint else ""), True)
    reason = getattr(exc, "reason", None) or ""
    if isinstance(exc, ssl.SSLEOFError | ConnectionError) or \
            reason == "UNEXPECTED_EOF_WHILE_READING":
        return HandshakeFault("the connection was cut (reset or closed)", False)
    if not isinstance(exc, ssl.SSLError):
        return HandshakeFault(exc.strerror or str(exc) or type(exc).__name__, False)
    if reason in _NOT_TLS:
        return HandshakeFault(f"it does not answer in TLS ({_words(reason)}): a controller "
                              "serving plain TCP? This console never falls back to plain", True)
    alert = reason.partition("ALERT_")[2]
    if alert in _CERTIFICATE_ALERTS:
        return HandshakeFault(f"it refused the TLS handshake ({_words(reason)}): it does not "
                              "accept this console's certificate, or not from this CA", True)
    if reason == "DECRYPTION_FAILED_OR_BAD_RECORD_MAC" or alert == "BAD_RECORD_MAC":
        return HandshakeFault(f"{_words(reason)} (data damaged on the way)", False)
    if alert:
        return HandshakeFault(f"it sent the TLS alert {_words(alert)}", False)
    return HandshakeFault(_ssl_words(exc), False)


def record_fault(exc: ssl.SSLError) -> str:
    """A TLS error on a connection that was up, in words: a record that failed its checks
    (whatever OpenSSL calls it, damaged on the way), an alert, or the connection cut."""
    reason = exc.reason or ""
    if isinstance(exc, ssl.SSLEOFError) or reason == "UNEXPECTED_EOF_WHILE_READING":
        return "the connection was cut (reset or closed)"
    alert = reason.partition("ALERT_")[2]
    if alert:
        return f"it sent the TLS alert {_words(alert)}"
    return f"{_ssl_words(exc)} (data damaged on the way)"


# --------------------------------------------------------------------------- contexts


def console_context(files: TlsFiles) -> ssl.SSLContext:
    """The console's (client's) context: it presents the console certificate and accepts a
    controller only with a certificate from the CA (the table id is checked per connection,
    :func:`controller_problem`)."""
    _check(files, "console")
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False  # the identity is the table id in the certificate, not the host
    return _finish(ctx, files)


def controller_context(files: TlsFiles) -> ssl.SSLContext:
    """A controller's (server's) context: it presents the table's certificate and requires a
    client certificate from the CA (that it is a console's: :func:`console_problem`)."""
    _check(files, "controller")
    return _finish(ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER), files)


def _finish(ctx: ssl.SSLContext, files: TlsFiles) -> ssl.SSLContext:
    ctx.minimum_version = MIN_VERSION
    ctx.verify_mode = ssl.CERT_REQUIRED
    try:
        ctx.load_verify_locations(cafile=files.ca)
        ctx.load_cert_chain(files.cert, files.key)
        if files.crl:
            ctx.load_verify_locations(cafile=files.crl)
            ctx.verify_flags |= ssl.VERIFY_CRL_CHECK_LEAF
    except ssl.SSLError as exc:  # the checks above should have named it already
        raise TlsError(f"{files.names[1]}: {files.cert}: OpenSSL refuses the certificate set-up: "
                       f"{exc.reason or exc}") from None
    return ctx


def _read(name: str, path: str) -> bytes:
    if not path:
        raise TlsError(f"{name}: missing")
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise TlsError(f"{name}: {path}: no such file") from None
    except OSError as exc:
        raise TlsError(f"{name}: {path}: can not be read: {exc.strerror or exc}") from None


def _certificates(name: str, path: str) -> list[x509.Certificate]:
    data = _read(name, path)
    try:
        certs = x509.load_pem_x509_certificates(data)
    except ValueError:
        raise TlsError(f"{name}: {path}: not a PEM certificate file (-----BEGIN CERTIFICATE-----)"
                       ) from None
    return certs


def _valid_now(name: str, path: str, cert: x509.Certificate) -> None:
    now = datetime.now(UTC)
    if cert.not_valid_after_utc < now:
        raise TlsError(f"{name}: {path}: expired on {cert.not_valid_after_utc:%Y-%m-%d}")
    if cert.not_valid_before_utc > now:
        raise TlsError(f"{name}: {path}: not valid before {cert.not_valid_before_utc:%Y-%m-%d} "
                       "(check the clock)")


def _issued_by(cert: x509.Certificate, cas: Sequence[x509.Certificate]) -> bool:
    for ca in cas:
        try:
            cert.verify_directly_issued_by(ca)
        except (ValueError, TypeError, InvalidSignature):
            continue
        return True
    return False


def _private_key(name: str, path: str) -> PrivateKeyTypes:
    data = _read(name, path)
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except TypeError:
        raise TlsError(f"{name}: {path}: the key is encrypted; Podium reads an unencrypted key "
                       "(protect it with file permissions: mode 0600)") from None
    except (ValueError, UnsupportedAlgorithm):
        raise TlsError(f"{name}: {path}: not a PEM private key (-----BEGIN PRIVATE KEY-----)"
                       ) from None
    if os.name == "posix" and os.stat(path).st_mode & 0o077:
        log.warning("%s: %s: the private key can be read by other users; chmod 600 it", name,
                    path)
    return key


def _public_der(key: Any) -> bytes:
    der: bytes = key.public_bytes(serialization.Encoding.DER,
                                  serialization.PublicFormat.SubjectPublicKeyInfo)
    return der


def _check(files: TlsFiles, role: Role) -> None:
    """Every file there, readable, of the right kind, the certificate ``role``'s, from the CA,
    valid today, and the key its own."""
    ca_name, cert_name, key_name, crl_name = files.names
    cas = _certificates(ca_name, files.ca)
    for ca in cas:
        try:
            is_ca = ca.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
        except x509.ExtensionNotFound:
            is_ca = False
        if not is_ca:
            raise TlsError(f"{ca_name}: {files.ca}: {identity(ca).describe()} is not a CA "
                           "certificate (basic constraints CA:TRUE)")
    cert = _certificates(cert_name, files.cert)[0]
    problem = role_problem(cert, role)
    if problem:
        raise TlsError(f"{cert_name}: {files.cert}: {problem}")
    if not _issued_by(cert, cas):
        raise TlsError(f"{cert_name}: {files.cert}: not issued by the CA of {ca_name} "
                       f"({files.ca})")
    _valid_now(cert_name, files.cert, cert)
    key = _private_key(key_name, files.key)
    if _public_der(key.public_key()) != _public_der(cert.public_key()):
        raise TlsError(f"{key_name}: {files.key}: not the private key of {cert_name} "
                       f"({files.cert})")
    if files.crl:
        data = _read(crl_name, files.crl)
        try:
            crl = x509.load_pem_x509_crl(data)
        except ValueError:
            raise TlsError(f"{crl_name}: {files.crl}: not a PEM certificate revocation list "
                           "(-----BEGIN X509 CRL-----)") from None
        if not any(crl.is_signature_valid(ca.public_key()) for ca in cas  # type: ignore[arg-type]
                   if crl.issuer == ca.subject):
            raise TlsError(f"{crl_name}: {files.crl}: not signed by the CA of {ca_name}")


# --------------------------------------------------------------------------- the floor file


def link_tls(config: Any) -> ssl.SSLContext | None:
    """The console's TLS context for a floor (``core.floorconfig.FloorConfig``): from its
    ``[controller_link]``; None when the file says ``transport = "plain-lab-only"``."""
    link = config.controller_link
    if link.transport == PLAIN_LAB_ONLY:
        return None
    if not (link.ca or link.cert or link.key):
        raise TlsError(f"{config.source}: [controller_link]: missing: the link to the table "
                       "controllers is TLS unless the floor file says otherwise; set ca, cert "
                       "and key (podium certs init makes a test set) or, in a lab only, "
                       'transport = "plain-lab-only"')
    def name(key: str) -> str:
        return f"{config.source}: controller_link.{key}"

    return console_context(TlsFiles(link.ca, link.cert, link.key, link.crl,
                                    names=(name("ca"), name("cert"), name("key"), name("crl"))))
