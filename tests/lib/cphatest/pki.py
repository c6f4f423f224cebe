"""A throw-away certificate authority made with the openssl command line."""

import base64
import os
import secrets
import subprocess


def _openssl(*args, cwd=None):
    r = subprocess.run(["openssl"] + list(args), capture_output=True, text=True,
                       timeout=30, cwd=cwd, stdin=subprocess.DEVNULL)
    if r.returncode != 0:
        raise RuntimeError("openssl %s failed: %s" % (args[0], r.stderr.strip()))
    return r


def _keyargs(algo):
    if algo == "ec":
        return ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"]
    if algo == "rsa":
        return ["-newkey", "rsa:2048"]
    raise ValueError("algo must be 'ec' or 'rsa'")


class Pki:
    """`ca = Pki(dir)` makes ca.crt/ca.key in dir; `ca.issue(...)` signs leaves.

    Keys are EC P-256 (or RSA 2048 with algo="rsa"), validity one day.
    """

    def __init__(self, directory, cn="cpha-test-ca", algo="ec"):
        self.dir = directory
        self.algo = algo
        os.makedirs(directory, exist_ok=True)
        self.ca_cert = os.path.join(directory, "ca.crt")
        self.ca_key = os.path.join(directory, "ca.key")
        _openssl("req", "-x509", *_keyargs(algo), "-nodes", "-sha256",
                 "-days", "1", "-subj", "/CN=%s" % cn,
                 "-keyout", self.ca_key, "-out", self.ca_cert,
                 "-addext", "basicConstraints=critical,CA:TRUE",
                 "-addext", "keyUsage=critical,keyCertSign,cRLSign,digitalSignature",
                 "-addext", "subjectKeyIdentifier=hash")
        os.chmod(self.ca_key, 0o600)

    def issue(self, name, cn, sans=(), client=False, server=False, org=None,
              algo=None):
        """Sign a leaf certificate; return (cert_path, key_path).

        sans: entries like "IP:198.18.0.11", "DNS:localhost".
        org: subject O= (Kubernetes reads it as the group, e.g. system:masters).
        """
        if not (client or server):
            raise ValueError("a certificate needs client=True and/or server=True")
        cert = os.path.join(self.dir, name + ".crt")
        key = os.path.join(self.dir, name + ".key")
        csr = os.path.join(self.dir, name + ".csr")
        ext = os.path.join(self.dir, name + ".ext")
        subj = "/CN=%s" % cn
        if org:
            subj = "/O=%s%s" % (org, subj)
        _openssl("req", "-new", *_keyargs(algo or self.algo), "-nodes",
                 "-subj", subj, "-keyout", key, "-out", csr)
        os.chmod(key, 0o600)
        eku = ",".join(u for u, on in (("serverAuth", server),
                                        ("clientAuth", client)) if on)
        ku = "digitalSignature,keyEncipherment" if (algo or self.algo) == "rsa" \
            else "digitalSignature"
        lines = ["basicConstraints=critical,CA:FALSE",
                 "keyUsage=critical,%s" % ku,
                 "extendedKeyUsage=%s" % eku,
                 "authorityKeyIdentifier=keyid"]
        if sans:
            lines.append("subjectAltName=" + ",".join(sans))
        with open(ext, "w") as f:
            f.write("\n".join(lines) + "\n")
        _openssl("x509", "-req", "-in", csr, "-CA", self.ca_cert,
                 "-CAkey", self.ca_key, "-set_serial",
                 "0x" + secrets.token_hex(12), "-days", "1", "-sha256",
                 "-extfile", ext, "-out", cert)
        os.unlink(csr)
        os.unlink(ext)
        return cert, key

    def new_key(self, name, algo=None):
        """A bare private key (e.g. the service-account signing key)."""
        key = os.path.join(self.dir, name + ".key")
        if (algo or self.algo) == "rsa":
            _openssl("genpkey", "-algorithm", "RSA", "-pkeyopt",
                     "rsa_keygen_bits:2048", "-out", key)
        else:
            _openssl("genpkey", "-algorithm", "EC", "-pkeyopt",
                     "ec_paramgen_curve:P-256", "-out", key)
        os.chmod(key, 0o600)
        return key

    @staticmethod
    def b64(path):
        """File contents base64-encoded (for kubeconfig *-data fields)."""
        with open(path, "rb") as f:
            return base64.b64encode(f.read()).decode()
