"""A small gene-id client for Python 3, standard library only.

Written from docs/spec.md (the gene of a key, the layout, routing, string ids) and docs/server.md (the HTTP API of
gene-id-server). It does not call any gene-id code: that is the point, the server's answers are checked against it.

    from geneid import Client, gene_of_string, route
    ids = Client(["http://127.0.0.1:8080"])
    order_id = ids.ids()[0]                              # a root row: the server spreads the genes
    item_ids = ids.ids(count=3, parent=order_id)         # the order's gene: the same shard
    g = ids.layout.gene_bits
    assert route(gene_of_number(item_ids[0], g), 4) == route(gene_of_number(order_id, g), 4)
"""

import datetime
import json
import urllib.error
import urllib.parse
import urllib.request
import uuid as _uuid

# ---------------------------------------------------------------------------------------------- spec section 2


def crc32c(data: bytes) -> int:
    """CRC-32C (Castagnoli): reflected polynomial 0x82F63B78, initial and final XOR 0xFFFFFFFF."""
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def gene_of_number(key: int, g: int) -> int:
    """The low g bits of a whole number in two's complement (Python's & on negative ints is two's complement)."""
    return key & ((1 << g) - 1)


def gene_of_string(key: str, g: int) -> int:
    """CRC32C of the UTF-8 bytes, low g bits. A string is always hashed, even "42"."""
    return crc32c(key.encode("utf-8")) & ((1 << g) - 1)


def gene_of_uuid(key, g: int) -> int:
    """The string rule over the canonical form: 36 characters, lower-case hex, hyphens at 8-4-4-4-12."""
    return gene_of_string(str(_uuid.UUID(str(key))), g)


# ---------------------------------------------------------------------------------------------- spec section 1


class Layout:
    """T + W + S + G = 63 bits under the sign bit; the epoch in Unix milliseconds."""

    def __init__(self, epoch_millis=1735689600000, timestamp_bits=41, worker_bits=8, sequence_bits=8, gene_bits=6):
        if timestamp_bits + worker_bits + sequence_bits + gene_bits != 63:
            raise ValueError("timestampBits + workerBits + sequenceBits + geneBits must be 63")
        self.epoch_millis = epoch_millis
        self.timestamp_bits = timestamp_bits
        self.worker_bits = worker_bits
        self.sequence_bits = sequence_bits
        self.gene_bits = gene_bits

    @classmethod
    def from_info(cls, info: dict) -> "Layout":
        return cls(int(info["epochMillis"]), info["timestampBits"], info["workerBits"], info["sequenceBits"],
                   info["geneBits"])

    def compose(self, t: int, w: int, s: int, g: int) -> int:
        G, S, W = self.gene_bits, self.sequence_bits, self.worker_bits
        return t << (W + S + G) | w << (S + G) | s << G | g

    def decode(self, id_: int) -> dict:
        """timestampMillis (Unix), workerId, sequence, gene of an id."""
        if id_ < 0 or id_ >= 1 << 63:
            raise ValueError("an id is a non-negative signed 64-bit integer, not %d" % id_)
        G, S, W = self.gene_bits, self.sequence_bits, self.worker_bits
        return {
            "timestampMillis": self.epoch_millis + (id_ >> (G + S + W)),
            "workerId": (id_ >> (G + S)) & ((1 << W) - 1),
            "sequence": (id_ >> G) & ((1 << S) - 1),
            "gene": id_ & ((1 << G) - 1),
        }


# ---------------------------------------------------------------------------------------------- spec section 3


def route(gene: int, sharding_count: int, gene_divisor: int = 1) -> int:
    """GENE_MOD: index = (gene / gene-divisor) % sharding-count (integer division)."""
    return (gene // gene_divisor) % sharding_count


# ---------------------------------------------------------------------------------------------- spec section 4

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def format_id(id_: int, prefix: str = "", layout: Layout = None) -> str:
    """prefix + (with a layout: the UTC day yyyyMMdd of the id's timestamp) + 13 Crockford base-32 digits."""
    digits = "".join(ALPHABET[(id_ >> (5 * i)) & 31] for i in reversed(range(13)))
    if layout is None:
        return prefix + digits
    day = _day_of(layout.decode(id_)["timestampMillis"])
    return prefix + day + digits


def _day_of(unix_millis: int) -> str:
    epoch = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
    return (epoch + datetime.timedelta(milliseconds=unix_millis)).strftime("%Y%m%d")


def parse_id(text: str, prefix: str = "", layout: Layout = None) -> int:
    """The id of a string id in the one canonical form, else ValueError saying what is wrong."""
    length = len(prefix) + (8 if layout is not None else 0) + 13
    if len(text) != length:
        raise ValueError("string id %r must have %d characters but has %d" % (text, length, len(text)))
    if not text.startswith(prefix):
        raise ValueError("string id %r does not start with the prefix %r" % (text, prefix))
    digits = text[-13:]
    value = 0
    for c in digits:
        i = ALPHABET.find(c)
        if i < 0:
            raise ValueError("string id %r has %r, not one of the upper-case digits %s" % (text, c, ALPHABET))
        value = value << 5 | i
    if value >= 1 << 63:
        raise ValueError("string id %r: the first digit must be 0 to 7" % text)
    if layout is not None:
        day = text[len(prefix):len(prefix) + 8]
        if day != _day_of(layout.decode(value)["timestampMillis"]):
            raise ValueError("string id %r: the date part %s is not the UTC day of the id's timestamp" % (text, day))
    return value


# ---------------------------------------------------------------------------------------------- docs/server.md


class ServerError(Exception):
    """A server's error answer: HTTP status, the stable code and the reason."""

    def __init__(self, url, status, code, reason):
        super().__init__("%s answered HTTP %d %s: %s" % (url, status, code, reason))
        self.status, self.code, self.reason = status, code, reason


class Unavailable(Exception):
    """No server answered; the message names every address tried and what happened there."""


class Client:
    """The HTTP API over one or more servers: each call goes to the next address when one does not answer."""

    def __init__(self, urls, token=None, timeout=2.0):
        self.urls = [u.rstrip("/") for u in ([urls] if isinstance(urls, str) else urls)]
        self.token = token
        self.timeout = timeout
        self._layout = None

    @property
    def layout(self) -> Layout:
        if self._layout is None:
            self._layout = Layout.from_info(self.info())
        return self._layout

    def get(self, path, **params):
        """GET path?params on the first address that answers: the JSON object, or ServerError for a 4xx."""
        query = urllib.parse.urlencode({k: v for k, v in params.items() if v is not None})
        tried = []
        for base in self.urls:
            url = base + path + ("?" + query if query else "")
            request = urllib.request.Request(url, headers={"Accept": "application/json"})
            if self.token:
                request.add_header("Authorization", "Bearer " + self.token)
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    return json.loads(response.read().decode("utf-8"))
            except urllib.error.HTTPError as e:
                body = e.read().decode("utf-8", "replace")
                try:
                    error = json.loads(body)
                except ValueError:
                    error = {}
                if 400 <= e.code < 500 and e.code != 429 and error.get("code") not in (None, "not_found"):
                    raise ServerError(base, e.code, error.get("code"), error.get("reason")) from None
                tried.append("%s (HTTP %d %s)" % (base, e.code, error.get("code", "")))
            except (OSError, ValueError) as e:
                tried.append("%s (%s)" % (base, e))
        raise Unavailable("no gene-id server answered GET %s: %s" % (path, ", ".join(tried)))

    def info(self) -> dict:
        return self.get("/v1/info")

    @staticmethod
    def _parent(gene=None, parent=None, parent_string=None, parent_uuid=None):
        return {"gene": gene, "parent": parent, "parentString": parent_string,
                "parentUuid": None if parent_uuid is None else str(parent_uuid)}

    def ids(self, count=1, **parent) -> list:
        """Snowflake ids: with gene=, parent= (a number), parent_string= or parent_uuid=, or spread without."""
        return [int(i) for i in self.get("/v1/ids", count=count, **self._parent(**parent))["ids"]]

    def segment_ids(self, key, count=1, **parent) -> list:
        path = "/v1/segments/%s/ids" % urllib.parse.quote(key, safe="")
        return [int(i) for i in self.get(path, count=count, **self._parent(**parent))["ids"]]

    def strings(self, count=1, prefix=None, date=False, **parent) -> list:
        return self.get("/v1/strings", count=count, prefix=prefix, date="true" if date else None,
                        **self._parent(**parent))["ids"]

    def decode(self, id_: int) -> dict:
        return self.get("/v1/ids/%d" % id_)

    def route(self, sharding_count, gene_divisor=1, id_=None, **parent) -> dict:
        if id_ is not None:
            return self.get("/v1/ids/%d/route" % id_, shardingCount=sharding_count, geneDivisor=gene_divisor)
        return self.get("/v1/route", shardingCount=sharding_count, geneDivisor=gene_divisor, **self._parent(**parent))
