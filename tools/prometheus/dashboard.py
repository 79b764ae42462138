#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check the Grafana dashboard qpi-dashboard.json.

dashboard.py lint
    The JSON parses; it has a schemaVersion, a Prometheus datasource
    variable and the instance, socket and port variables; every panel but
    a row has that datasource, targets, and each target an expr and a
    refId; every metric name a query uses is one qpistat exports
    (tools/qpistat/exposition.c, plan.c) or a rule records (qpi.rules.yml).

dashboard.py query API PLATFORM=INSTANCE...
    Evaluate every panel target's expr, and every variable's query, on the
    Prometheus at API (http://host:port/api/v1), the template variables
    substituted by a regex matching all, and $__rate_interval by 1m:
    Prometheus must answer status success and at least one series.  Then
    for each PLATFORM=INSTANCE (a platform scraped as that instance, e.g.
    SNB-EP=127.0.0.1:9100), with $instance matching that instance only:
    every panel for that platform must return series from each of its
    targets.  A panel is for the platforms its description's last line
    names ("Platforms: HSX, BDX."), for every platform without one.  A
    panel whose platforms were none of those scraped fails: every panel
    must be seen returning series somewhere.

Prints one "# " line per problem or panel; exit status 0 when no problem.
"""
import json
import os
import re
import sys
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DASH = os.path.join(HERE, "qpi-dashboard.json")
DS_UID = "${datasource}"
VARS = ("instance", "socket", "port")
PLATFORMS = ("SNB-EP", "IVB-EP", "HSX", "BDX")
problems = []


def say(msg):
    problems.append(msg)
    print("# " + msg, flush=True)


def panels(d):
    """Every panel, those inside collapsed rows too."""
    for p in d.get("panels", []):
        yield p
        yield from p.get("panels", [])


def platforms(p):
    """The platforms the panel's series exist on."""
    last = p.get("description", "").rstrip().split("\n")[-1]
    m = re.fullmatch(r"Platforms: (.*)\.", last)
    if not m:
        return set(PLATFORMS)
    names = set(x.strip() for x in m.group(1).split(","))
    for n in names - set(PLATFORMS):
        say(f"panel '{p.get('title')}': unknown platform '{n}'")
    return names & set(PLATFORMS)


def known_names():
    """Metric names qpistat exports and the rules record."""
    names = set()
    for f in ("tools/qpistat/exposition.c", "tools/qpistat/plan.c"):
        with open(os.path.join(REPO, f)) as fh:
            names |= set(re.findall(r'\{ "((?:qpi|r3qpi)_[a-z0-9_]+)", "(?:counter|gauge)"',
                                    fh.read()))
    with open(os.path.join(HERE, "qpi.rules.yml")) as fh:
        names |= set(re.findall(r"^\s*- record: (\S+)$", fh.read(), re.M))
    return names


def var_expr(q):
    """The PromQL inside a label_values(EXPR, label) variable query."""
    m = re.fullmatch(r"label_values\((.*), *[a-z_]+\)", q)
    return m.group(1) if m else q


KEYWORDS = {"and", "or", "unless", "bool", "offset", "by", "without", "on",
            "ignoring", "group_left", "group_right"}


def metric_names(expr):
    """The metric names EXPR selects."""
    e = re.sub(r'"[^"]*"', '""', expr)
    e = re.sub(r"\{[^}]*\}|\[[^\]]*\]", " ", e)
    # label lists: by (a, b), on (a), ignoring (a), group_left (a)
    e = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", e)
    return [t for t in re.findall(r"(?<![\w:.])([a-zA-Z_:][a-zA-Z0-9_:]*)(?![\w:]|\s*\()", e)
            if t not in KEYWORDS]


def queries(d):
    """(where, expr, platforms) of every target and variable query."""
    for v in d["templating"]["list"]:
        if v.get("type") == "query":
            q = v["query"]["query"] if isinstance(v["query"], dict) else v["query"]
            yield f"variable {v['name']}", var_expr(q), set(PLATFORMS)
    for p in panels(d):
        if p.get("type") == "row":
            continue
        for t in p.get("targets", []):
            yield f"panel '{p.get('title')}' {t.get('refId')}", t.get("expr", ""), platforms(p)


def lint():
    try:
        with open(DASH) as fh:
            d = json.load(fh)
    except (OSError, ValueError) as e:
        say(f"{DASH}: {e}")
        return
    if not isinstance(d.get("schemaVersion"), int):
        say("no schemaVersion")
    vs = {v.get("name"): v for v in d.get("templating", {}).get("list", [])}
    ds = vs.get("datasource", {})
    if ds.get("type") != "datasource" or ds.get("query") != "prometheus":
        say("no Prometheus datasource variable 'datasource'")
    for name in VARS:
        v = vs.get(name, {})
        if v.get("type") != "query" or not v.get("includeAll") or v.get("allValue") != ".*":
            say(f"no query variable '{name}' with All as .*")
        elif v.get("datasource", {}).get("uid") != DS_UID:
            say(f"variable '{name}': datasource not {DS_UID}")
    known = known_names()
    n = 0
    for p in panels(d):
        if p.get("type") == "row":
            continue
        n += 1
        title = p.get("title")
        if p.get("datasource", {}).get("uid") != DS_UID:
            say(f"panel '{title}': datasource not {DS_UID}")
        if not p.get("targets"):
            say(f"panel '{title}': no targets")
        for t in p.get("targets", []):
            if t.get("datasource", {}).get("uid") != DS_UID:
                say(f"panel '{title}' {t.get('refId')}: datasource not {DS_UID}")
            if not t.get("expr") or not t.get("refId"):
                say(f"panel '{title}': a target without expr or refId")
        platforms(p)
    used = set()
    for where, expr, _ in queries(d):
        for name in metric_names(expr):
            used.add(name)
            if name not in known:
                say(f"{where}: metric '{name}' is neither in qpistat's output nor a rule")
    print(f"# {n} panels, {len(used)} metric names: {' '.join(sorted(used))}")


def substitute(expr, instance):
    expr = expr.replace("$__rate_interval", "1m")
    for v in VARS:
        expr = expr.replace("$" + v, instance if v == "instance" else ".*")
    return expr


def evaluate(api, expr):
    """(status, number of series) of an instant query."""
    url = api + "/query?" + urllib.parse.urlencode({"query": expr})
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            a = json.load(r)
    except OSError as e:
        try:
            a = json.load(e)    # Prometheus answers 400 with a JSON error
        except (AttributeError, ValueError, OSError):
            return str(e), 0
    if a.get("status") != "success":
        return f"{a.get('status')}: {a.get('error')}", 0
    return "success", len(a["data"]["result"])


def query(api, scraped):
    with open(DASH) as fh:
        d = json.load(fh)
    got = {}    # where: platforms it returned series on
    for where, expr, plats in queries(d):
        status, n = evaluate(api, substitute(expr, ".*"))
        if status != "success" or n == 0:
            say(f"{where}: all instances: {status}, {n} series")
        got[where] = set()
        for plat, inst in scraped.items():
            if plat not in plats:
                continue
            status, n = evaluate(api, substitute(expr, inst))
            if status == "success" and n > 0:
                got[where].add(plat)
            else:
                say(f"{where}: {plat} ({inst}): {status}, {n} series")
        if not plats & set(scraped):
            say(f"{where}: for {', '.join(sorted(plats))}, none of them scraped")
        print(f"# {where}: series on {', '.join(sorted(got[where])) or 'none'}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["lint"]:
        lint()
    elif sys.argv[1:2] == ["query"] and len(sys.argv) > 3:
        query(sys.argv[2], dict(a.split("=", 1) for a in sys.argv[3:]))
    else:
        sys.exit(__doc__)
    sys.exit(1 if problems else 0)
