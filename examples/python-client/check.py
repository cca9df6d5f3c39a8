#!/usr/bin/env python3
"""Checks a live gene-id-server against this folder's own implementation of docs/spec.md, and that implementation
against the spec's vectors (docs/spec-vectors.json). Standard library only.

    python3 examples/python-client/check.py --url http://127.0.0.1:8080
    python3 examples/python-client/check.py --vectors-only

Exit status 0 when every check passed, 1 otherwise; each failure is printed with what was expected.
"""

import argparse
import json
import os
import sys
import uuid

import geneid
from geneid import Client, Layout, ServerError, gene_of_number, gene_of_string, gene_of_uuid, route

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_VECTORS = os.path.join(HERE, "..", "..", "docs", "spec-vectors.json")


class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = []

    def equal(self, what, actual, expected):
        if actual == expected:
            self.passed += 1
        else:
            self.failed.append("%s: expected %r but was %r" % (what, expected, actual))

    def true(self, what, condition):
        self.equal(what, bool(condition), True)

    def raises(self, what, error, call):
        try:
            call()
        except error:
            self.passed += 1
            return
        except Exception as e:  # noqa: BLE001 - report anything else as the failure it is
            self.failed.append("%s: expected %s but got %r" % (what, error.__name__, e))
            return
        self.failed.append("%s: expected %s but nothing was raised" % (what, error.__name__))


def check_vectors(c: Checks, path: str):
    with open(path, encoding="utf-8") as f:
        v = json.load(f)
    for x in v["geneOfNumber"]:
        c.equal("geneOfNumber %s G=%d" % (x["key"], x["geneBits"]), gene_of_number(int(x["key"]), x["geneBits"]),
                x["gene"])
    for x in v["geneOfString"]:
        what = "geneOfString %r G=%d" % (x["key"], x["geneBits"])
        c.equal(what + " utf8", x["key"].encode("utf-8").hex(), x["utf8"])
        c.equal(what + " crc32c", "%08x" % geneid.crc32c(x["key"].encode("utf-8")), x["crc32c"])
        c.equal(what, gene_of_string(x["key"], x["geneBits"]), x["gene"])
    for x in v["geneOfUuid"]:
        c.equal("canonical " + x["key"], str(uuid.UUID(x["key"])), x["canonical"])
        c.equal("geneOfUuid %s G=%d" % (x["key"], x["geneBits"]), gene_of_uuid(x["key"], x["geneBits"]), x["gene"])
    for x in v["layouts"]:
        layout = Layout(x["epochMillis"], x["timestampBits"], x["workerBits"], x["sequenceBits"], x["geneBits"])
        id_ = int(x["id"])
        parts = layout.decode(id_)
        what = "layout %d/%d/%d/%d id %s" % (x["timestampBits"], x["workerBits"], x["sequenceBits"], x["geneBits"],
                                             x["id"])
        c.equal(what + " decode", parts, {"timestampMillis": int(x["timestampMillis"]), "workerId": x["workerId"],
                                          "sequence": x["sequence"], "gene": x["gene"]})
        t = int(x["timestampMillis"]) - x["epochMillis"]
        c.equal(what + " compose", layout.compose(t, x["workerId"], x["sequence"], x["gene"]), id_)
    for x in v["routing"]:
        c.equal("route G=%d count=%d divisor=%d gene=%d" % (x["geneBits"], x["shardingCount"], x["geneDivisor"],
                                                             x["gene"]),
                route(x["gene"], x["shardingCount"], x["geneDivisor"]), x["index"])
    default = Layout()
    for x in v["stringIds"]:
        layout = default if x["date"] else None
        what = "string id %s prefix=%r date=%s" % (x["id"], x["prefix"], x["date"])
        c.equal(what + " format", geneid.format_id(int(x["id"]), x["prefix"], layout), x["string"])
        c.equal(what + " parse", geneid.parse_id(x["string"], x["prefix"], layout), int(x["id"]))
        c.equal(what + " gene", gene_of_number(geneid.parse_id(x["string"], x["prefix"], layout), 6), x["gene"])
    for x in v["badStringIds"]:
        layout = default if x["date"] else None
        c.raises("bad string id %r (%s)" % (x["string"], x["problem"]), ValueError,
                 lambda x=x, layout=layout: geneid.parse_id(x["string"], x["prefix"], layout))


def check_server(c: Checks, client: Client, segment_key=None):
    info = client.info()
    layout = client.layout
    g = layout.gene_bits
    c.true("/v1/info maxCount is a number", isinstance(info["maxCount"], int) and info["maxCount"] >= 1)

    # a parent row (root: spread genes), then children of it by every kind of parent key
    roots = client.ids(count=64)
    c.equal("64 root ids are distinct", len(set(roots)), 64)
    if g > 0:
        c.true("root ids spread over genes", len({gene_of_number(i, g) for i in roots}) > 1)
    order_id = roots[0]
    keys = [("parent", order_id, gene_of_number(order_id, g)),
            ("parent", -1, gene_of_number(-1, g)),
            ("parent_string", "customer-42", gene_of_string("customer-42", g)),
            ("parent_string", "\u5ba2\u6237-\u00e9\U0001F600", gene_of_string("\u5ba2\u6237-\u00e9\U0001F600", g)),
            ("parent_uuid", uuid.UUID("3F2504E0-4F89-11D3-9A0C-0305E82C3301"),
             gene_of_uuid("3f2504e0-4f89-11d3-9a0c-0305e82c3301", g))]
    for name, key, gene in keys:
        answer = client.get("/v1/ids", count=5, **Client._parent(**{name: key}))
        children = [int(i) for i in answer["ids"]]
        c.equal("gene field for %s=%r" % (name, key), answer.get("gene"), gene)
        for child in children:
            c.equal("child %d of %s=%r carries its gene" % (child, name, key), gene_of_number(child, g), gene)
        c.true("children of %s=%r ascend" % (name, key), children == sorted(set(children)))
        for count, divisor in [(1, 1), (2, 1), (4, 1), (4, 16), (3, 1), (8, 8)]:
            if count * divisor > 1 << g:
                continue
            mine = route(gene, count, divisor)
            theirs = client.route(count, divisor, **{name: key})
            c.equal("route of %s=%r over %d/%d" % (name, key, count, divisor), theirs, {"gene": gene, "index": mine})
            child_route = client.route(count, divisor, id_=children[0])
            c.equal("route of child %d over %d/%d" % (children[0], count, divisor), child_route["index"], mine)

    # decode: the server's parts of an id are ours
    for id_ in roots[:5]:
        mine = layout.decode(id_)
        theirs = client.decode(id_)
        c.equal("decode %d" % id_, {k: theirs[k] for k in ("workerId", "sequence", "gene")},
                {k: mine[k] for k in ("workerId", "sequence", "gene")})
        c.equal("decode %d timestampMillis" % id_, int(theirs["timestampMillis"]), mine["timestampMillis"])
        c.equal("decode %d id" % id_, theirs["id"], str(id_))

    # string ids: our parser reads them, and their number carries the parent's gene
    gene = gene_of_string("customer-42", g)
    for text in client.strings(count=3, prefix="ORD", date=True, parent_string="customer-42"):
        id_ = geneid.parse_id(text, "ORD", layout)
        c.equal("string id %s carries the parent's gene" % text, gene_of_number(id_, g), gene)
        c.equal("string id %s is in our form" % text, geneid.format_id(id_, "ORD", layout), text)

    # segment ids of a business key, if the server serves one
    if segment_key:
        for name, key, gene in keys:
            ids = client.segment_ids(segment_key, count=4, **{name: key})
            for id_ in ids:
                c.equal("segment id %d of %s=%r carries its gene" % (id_, name, key), gene_of_number(id_, g), gene)
        c.raises("a segment key that is not served is a 404 unknown_key", ServerError,
                 lambda: client.segment_ids("not-a-configured-key-" + uuid.uuid4().hex[:8]))

    # errors are JSON with a code and a reason
    try:
        client.ids(gene=1 << g)
        c.failed.append("gene 2^G: expected a 400")
    except ServerError as e:
        c.equal("gene 2^G is refused", (e.status, e.code), (400, "invalid_argument"))
        c.true("the reason names the range", ("[0, %d]" % ((1 << g) - 1)) in (e.reason or ""))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--url", action="append", default=[], help="a server's base URL; repeat for failover")
    p.add_argument("--token", default=os.environ.get("GENE_ID_TOKEN"), help="bearer token (or GENE_ID_TOKEN)")
    p.add_argument("--segment-key", help="a business key the server serves, to check segment ids too")
    p.add_argument("--timeout", type=float, default=10.0, help="seconds per request (default 10)")
    p.add_argument("--vectors", default=DEFAULT_VECTORS, help="docs/spec-vectors.json")
    p.add_argument("--vectors-only", action="store_true", help="check the spec vectors only, no server")
    args = p.parse_args(argv)
    if not args.vectors_only and not args.url:
        p.error("--url is required (or --vectors-only)")

    c = Checks()
    check_vectors(c, args.vectors)
    print("spec vectors: %d checks, %d failed" % (c.passed + len(c.failed), len(c.failed)))
    if not args.vectors_only:
        before = c.passed + len(c.failed)
        try:
            check_server(c, Client(args.url, token=args.token, timeout=args.timeout), args.segment_key)
        except Exception as e:  # noqa: BLE001 - a server that cannot be checked is a failed check
            c.failed.append("server check stopped: %r" % e)
        print("server %s: %d checks" % (", ".join(args.url), c.passed + len(c.failed) - before))
    for failure in c.failed:
        print("FAILED " + failure)
    print("%d passed, %d failed" % (c.passed, len(c.failed)))
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
