#!/usr/bin/env python3
"""An independent verifier of Signet outputs, written from docs/vectors/README.md alone, with
only the standard library and `cryptography` (Debian's python3-cryptography). It shares no code
with Signet: test/integration/vectors.test.ts runs it over the published vectors to show that
the format spec is enough to verify outputs in another language.

    verify.py VECTORS_DIR        checks every vector of VECTORS_DIR/vectors.json; exit 0 if all pass
"""
import base64
import hashlib
import json
import re
import sys
from decimal import Decimal
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

SIGNATURE_FORMATS = ("signet-output/1", "signet-output/2")
SHA256_TAG = re.compile(r"sha256:[0-9a-f]{64}")
BASE64 = re.compile(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")
SPKI_PREFIX = bytes.fromhex("302a300506032b6570032100")
FOOTER = ["signature_format", "doctrine_name", "doctrine_version", "doctrine_hash",
          "doctrine_signature", "doctrine_public_key", "output_hash", "output_signature"]
BODY = {"tool", "input_hash", "ok", "result", "error", "footer"}
RESULT = {"content", "structuredContent", "isError", "_meta", "resultType"}
RESPONSE = {"jsonrpc", "id", "result", "error"}
ABSENT = object()


class Refused(Exception):
    def __init__(self, code):
        super().__init__(code)
        self.code = code


# --- One reading: strict UTF-8, strict JSON, I-JSON (RFC 7493) ------------------------------

def _exact(literal):
    value = float(literal)
    if value != value or value in (float("inf"), float("-inf")):
        raise Refused("number_inexact")
    if value == 0 and literal.startswith("-"):
        raise Refused("number_inexact")  # -0: RFC 8785 writes it as 0
    if Decimal(literal) != Decimal(repr(value)):
        raise Refused("number_inexact")  # not the shortest spelling of the double it reads as
    return value


def _pairs(pairs):
    names = [k for k, _ in pairs]
    if len(set(names)) != len(names):
        raise Refused("duplicate_member")
    return dict(pairs)


def _no_constant(name):
    raise ValueError(name)


def _check_strings(value):
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for k, v in items:
        if isinstance(k, str) and re.search("[\ud800-\udfff]", k):
            raise Refused("string_lone_surrogate")
        _check_strings(v)
    if isinstance(value, str) and re.search("[\ud800-\udfff]", value):
        raise Refused("string_lone_surrogate")


def parse_strict(text):
    try:
        value = json.loads(text, object_pairs_hook=_pairs, parse_float=_exact, parse_int=_exact,
                           parse_constant=_no_constant)
    except Refused:
        raise
    except (ValueError, RecursionError):
        raise Refused("not_json")
    _check_strings(value)
    return value


# --- RFC 8785 (JCS) -----------------------------------------------------------------------

def _number(value):
    if value == 0:
        return "0"
    sign, digits, exponent = Decimal(repr(abs(value))).normalize().as_tuple()
    d = "".join(map(str, digits))
    k, n = len(d), exponent + len(d)  # value = 0.d × 10^n
    s = "-" if value < 0 else ""
    if k <= n <= 21:
        return s + d + "0" * (n - k)
    if 0 < n <= 21:
        return s + d[:n] + "." + d[n:]
    if -6 < n <= 0:
        return s + "0." + "0" * -n + d
    e = n - 1
    return s + d[0] + ("." + d[1:] if k > 1 else "") + "e" + ("+" if e > 0 else "-") + str(abs(e))


def jcs(value):
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, (int, float)):
        return _number(float(value))
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ",".join(jcs(v) for v in value) + "]"
    keys = sorted(value, key=lambda k: k.encode("utf-16-be"))
    return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + jcs(value[k]) for k in keys) + "}"


# --- Ed25519 keys: canonical, on the curve, not of small order ----------------------------

P = 2**255 - 19
D = -121665 * pow(121666, P - 2, P) % P


def _decode_point(raw):
    y = int.from_bytes(raw, "little") & (2**255 - 1)
    x_odd = raw[31] >> 7
    if y >= P:
        return None
    x2 = (y * y - 1) * pow(D * y * y + 1, P - 2, P) % P
    x = pow(x2, (P + 3) // 8, P)
    if (x * x - x2) % P:
        x = x * pow(2, (P - 1) // 4, P) % P
    if (x * x - x2) % P or (x == 0 and x_odd):
        return None
    return (P - x if x & 1 != x_odd else x, y)


def _double(pt):
    x, y = pt  # affine doubling on -x^2 + y^2 = 1 + d x^2 y^2
    xx, yy = x * x % P, y * y % P
    return (2 * x * y * pow(yy - xx, P - 2, P) % P, (yy + xx) * pow(2 - yy + xx, P - 2, P) % P)


def key_problem(raw):
    pt = _decode_point(raw)
    if pt is None:
        return "public_key_weak"  # not a point on the curve
    for _ in range(3):
        pt = _double(pt)
    return "public_key_weak" if pt == (0, 1) else None  # [8]P is the identity: small order


def b64(text):
    if not isinstance(text, str) or not BASE64.fullmatch(text):
        return None
    raw = base64.b64decode(text)
    return raw if base64.b64encode(raw).decode() == text else None


def signature(value):
    if not isinstance(value, str) or not value.startswith("ed25519:"):
        return None
    raw = b64(value[len("ed25519:"):])
    return raw if raw is not None and len(raw) == 64 else None


def ed25519_ok(key, sig, message):
    try:
        Ed25519PublicKey.from_public_bytes(key).verify(sig, message.encode("utf-8"))
        return True
    except InvalidSignature:
        return False


# --- The checks, in the order of the spec --------------------------------------------------

def is_tag(value):
    return isinstance(value, str) and SHA256_TAG.fullmatch(value) is not None


def verify(data, trust):
    """(status, [reason codes]) for the bytes of an input and a trust file (a dict) or None."""
    reasons = []
    try:
        value = parse_strict(data.decode("utf-8", errors="strict"))
    except UnicodeDecodeError:
        return "invalid", ["not_json"]
    except Refused as r:
        return "invalid", [r.code]
    if not isinstance(value, dict):
        return "invalid", ["not_an_object"]

    envelope, output, text, is_error, outer = None, None, None, ABSENT, value
    if "jsonrpc" in value:
        envelope = "jsonrpc_response"
        if "error" in value:
            reasons.append("jsonrpc_error")
        reasons += ["jsonrpc_malformed" for k in value if k not in RESPONSE]
        if value["jsonrpc"] != "2.0":
            reasons.append("jsonrpc_malformed")
        rpc_id = value.get("id", ABSENT)
        if rpc_id is ABSENT or not (rpc_id is None or isinstance(rpc_id, (str, float))):
            reasons.append("jsonrpc_malformed")  # numbers are floats here (parse_int above)
        if not isinstance(value.get("result"), dict):
            return "invalid", reasons or ["jsonrpc_malformed"]
        outer = value["result"]
    if "content" in outer or "structuredContent" in outer:
        envelope = envelope or "call_tool_result"
        reasons += ["envelope_unknown_member" for k in outer if k not in RESULT]
        if "resultType" in outer and outer["resultType"] != "complete":
            reasons.append("result_type_unsupported")
        content = outer.get("content")
        item = content[0] if isinstance(content, list) and len(content) == 1 else None
        if (isinstance(item, dict) and item.get("type") == "text" and isinstance(item.get("text"), str)
                and len(item) == 2):
            text = item["text"]
        else:
            reasons.append("content_not_single_text")
        is_error = outer.get("isError", ABSENT)
        if isinstance(outer.get("structuredContent"), dict):
            output = outer["structuredContent"]
        elif "structuredContent" in outer:
            reasons.append("body_malformed")
        elif text is not None:
            try:
                parsed = parse_strict(text)
                if isinstance(parsed, dict):
                    output = parsed
                else:
                    reasons.append("no_signed_output")
            except Refused as r:
                reasons.append(r.code)
    elif envelope == "jsonrpc_response":
        reasons.append("content_not_single_text")
    elif "footer" in outer:
        envelope, output = "structured_content", outer
    if output is None:
        return "invalid", reasons or ["no_signed_output"]

    reasons += ["unknown_member" for k in output if k not in BODY]
    ok = output.get("ok")
    if not isinstance(output.get("tool"), str):
        reasons.append("body_malformed")
    if not isinstance(ok, bool):
        reasons.append("body_malformed")
    if output.get("input_hash", ABSENT) is not None and not is_tag(output.get("input_hash")):
        reasons.append("body_malformed")
    error = output.get("error")
    if ok is True and ("result" not in output or "error" in output):
        reasons.append("body_malformed")
    if ok is False and ("result" in output or not isinstance(error, dict) or not isinstance(error.get("code"), str)
                        or not isinstance(error.get("message"), str)):
        reasons.append("body_malformed")
    if envelope != "structured_content" and isinstance(ok, bool):
        if (not ok) if is_error is ABSENT else (is_error is not (not ok)):
            reasons.append("is_error_mismatch")

    footer = output.get("footer")
    if not isinstance(footer, dict):
        return "invalid", reasons + ["footer_malformed"]
    reasons += ["footer_unknown_member" for k in footer if k not in FOOTER]
    reasons += ["footer_missing_member" for k in FOOTER if not isinstance(footer.get(k), str)]
    if footer.get("signature_format") not in SIGNATURE_FORMATS:
        reasons.append("unsupported_signature_format")
    # /1 signs the bare tag; /2 (and a format refused above) names each signature's kind first.
    kind = (lambda k, tag: tag) if footer.get("signature_format") == "signet-output/1" else (lambda k, tag: f"signet-{k}/2\n{tag}")
    key = None
    der = b64(footer.get("doctrine_public_key"))
    if der is None or len(der) != 44 or der[:12] != SPKI_PREFIX:
        reasons.append("public_key_malformed")
    elif key_problem(der[12:]):
        reasons.append(key_problem(der[12:]))
    else:
        key = der[12:]

    doctrine_hash = footer.get("doctrine_hash")
    if not is_tag(doctrine_hash):
        reasons.append("doctrine_hash_malformed")
    sig = signature(footer.get("doctrine_signature"))
    if sig is None:
        reasons.append("doctrine_signature_malformed")
    if key and is_tag(doctrine_hash) and sig and not ed25519_ok(key, sig, kind("doctrine", doctrine_hash)):
        reasons.append("doctrine_signature_invalid")
    output_hash = footer.get("output_hash")
    if not is_tag(output_hash):
        reasons.append("output_hash_malformed")
    unsigned = dict(output, footer={k: v for k, v in footer.items() if k not in ("output_hash", "output_signature")})
    if is_tag(output_hash) and output_hash != "sha256:" + hashlib.sha256(jcs(unsigned).encode("utf-8")).hexdigest():
        reasons.append("output_hash_mismatch")
    sig = signature(footer.get("output_signature"))
    if sig is None:
        reasons.append("output_signature_malformed")
    if key and is_tag(output_hash) and sig and not ed25519_ok(key, sig, kind("output", output_hash)):
        reasons.append("output_signature_invalid")
    if text is not None and envelope != "structured_content" and jcs(output) != text:
        reasons.append("text_mismatch" if isinstance(outer.get("structuredContent"), dict) else "text_not_canonical")
    if reasons:
        return "invalid", reasons

    keys = {k["public_key"]: k["status"] for k in (trust or {}).get("keys", [])}
    if not keys:
        return "unpinned", ["not_pinned"]
    status = keys.get(footer["doctrine_public_key"])
    if status is None:
        reasons.append("signer_untrusted")
    elif status == "revoked":
        reasons.append("signer_revoked")
    if "doctrine_hashes" in trust and doctrine_hash not in trust["doctrine_hashes"]:
        reasons.append("doctrine_not_pinned")
    return ("invalid", reasons) if reasons else ("trusted", [])


def main(folder):
    folder = Path(folder)
    index = json.loads((folder / "vectors.json").read_text("utf-8"))
    failed = 0
    for v in index["vectors"]:
        trust = json.loads((folder / v["trust"]).read_text("utf-8")) if v["trust"] else None
        status, reasons = verify((folder / v["input"]).read_bytes(), trust)
        got = {"status": status, "reasons": reasons}
        passed = got == v["expected"]
        failed += not passed
        print(json.dumps({"name": v["name"], "pass": passed, "got": got, "expected": v["expected"]}))
    print(f"{len(index['vectors']) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
