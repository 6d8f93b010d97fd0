#!/usr/bin/env python3
"""Hostile model headers with valid checksums, for hardening_test.sh.

usage: model_mutations.py MLT MODEL DATA VERB...

For every field of MODEL's JSON header (objects, arrays and leaves alike) it writes
a copy of the model with that field replaced by values of other types, by sizes the
file cannot hold, by fractions, negatives and by nothing (the field deleted),
recomputes the checksum so the file gets past it, and runs `mlt info` and `mlt KIND VERB MODEL DATA` on it. What must hold for every one: the
run ends by itself (no signal, no timeout), never with status 70 (an internal
error: input must never reach one), and a run that succeeds writes no NaN or inf.
Prints one line per violation and exits 1 if there was any.

Its time is the runs' start-up (a few thousand runs of a few milliseconds' work each),
so they run side by side, one at a time per processor this process may use, each
mutation on files of its own.
"""
import hashlib
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor


def paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for k, v in node.items():
            yield from paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node[:3]):
            yield from paths(v, prefix + (i,))


def replaced(header, path, value):
    h = json.loads(json.dumps(header))
    node = h
    for k in path[:-1]:
        node = node[k]
    if value is DELETE:
        if isinstance(node, dict):
            del node[path[-1]]
        else:
            node.pop(path[-1])
    else:
        node[path[-1]] = value
    return h


DELETE = object()
VALUES = [DELETE, None, True, "x", -1, 0.5, 1e12, [], {}]


def craft(lines, header):
    body = lines[0] + json.dumps(header, separators=(",", ":")).encode() + b"\n" + b"".join(lines[2:-1])
    return body + b"sha256 " + hashlib.sha256(body).hexdigest().encode() + b"\n"


def attempt(mlt, kind, data, verb, index, what, content):
    """Writes one crafted model and runs mlt on it: (runs, violation lines)."""
    crafted = os.path.abspath(f"crafted-{index}.{kind}")
    out_path = os.path.abspath(f"crafted-{index}.out")
    open(crafted, "wb").write(content)
    commands = [[mlt, "info", crafted]]
    if verb:
        commands.append([mlt, kind, *verb, crafted, data, "-o", out_path])
    violations = []
    for cmd in commands:
        if os.path.exists(out_path):
            os.unlink(out_path)
        try:
            p = subprocess.run(cmd, capture_output=True, timeout=30)
        except subprocess.TimeoutExpired:
            violations.append(f"TIMEOUT: {what} {' '.join(cmd[1:3])}")
            continue
        err = p.stderr.decode(errors="replace").strip()
        text = p.stdout.decode(errors="replace").lower()
        if os.path.exists(out_path):
            text += open(out_path, errors="replace").read().lower()
        if p.returncode == 70 or p.returncode < 0 or p.returncode >= 128:
            violations.append(f"status {p.returncode}: {what}: {' '.join(cmd[1:3])}: {err}")
        elif p.returncode == 0 and cmd[1] != "info" and ("nan" in text or "inf" in text):
            violations.append(f"non-finite output with status 0: {what}: {' '.join(cmd[1:3])}")
        elif p.returncode not in (0, 65):
            violations.append(f"status {p.returncode} (expected 0 or 65): {what}: {' '.join(cmd[1:3])}: {err}")
    for path in (crafted, out_path):
        if os.path.exists(path):
            os.unlink(path)
    return len(commands), violations


def main():
    mlt, model, data, *verb = sys.argv[1:]
    raw = open(model, "rb").read()
    lines = raw.splitlines(keepends=True)
    # Keep binary sections whole: split only the first two lines and the checksum.
    first_nl = raw.index(b"\n")
    second_nl = raw.index(b"\n", first_nl + 1)
    last_nl = raw.rindex(b"\n", 0, len(raw) - 1)
    lines = [raw[: first_nl + 1], raw[first_nl + 1 : second_nl + 1], raw[second_nl + 1 : last_nl + 1], raw[last_nl + 1 :]]
    header = json.loads(lines[1])
    kind = header["kind"]
    mutations = []
    for path in paths(header):
        if not path or path == ("kind",) or path[0] == "provenance":
            continue
        for value in VALUES:
            try:
                h = replaced(header, path, value)
            except (KeyError, IndexError, TypeError):
                continue
            what = "/" + "/".join(str(p) for p in path) + " = " + ("<deleted>" if value is DELETE else json.dumps(value))
            mutations.append((what, craft(lines, h)))
    with ThreadPoolExecutor(max_workers=len(os.sched_getaffinity(0))) as pool:
        results = list(pool.map(lambda m: attempt(mlt, kind, data, verb, m[0], *m[1]), enumerate(mutations)))
    runs = sum(r for r, _ in results)
    bad = 0
    for _, violations in results:
        for line in violations:
            print(line)
            bad += 1
    print(f"{kind}: {runs} runs, {bad} violations", file=sys.stderr)
    sys.exit(1 if bad else 0)


main()
