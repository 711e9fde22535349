#!/usr/bin/env python3
"""Checks the report of scripts/audit-gems in a real headless Chromium.

usage: audit_check.py OUTDIR

At a 1280 px wide window, index.html: loads without console errors,
exceptions or CSP violations and requests nothing but itself; its six charts
are inline SVG whose bars carry the numbers of audit.json and the gems' JSON,
and a screenshot of the charts shows the bars' colours; the table sorts by a
column when its heading is clicked; every gem's page is linked; nothing
scrolls sideways. Each gem's page: loads cleanly, shows its findings errors
first, one panel per release site with the verdict and the gate checklist of
the JSON (and the missing fact of every "cannot verify"), does not scroll
sideways. On every page nothing from the gems became markup or script.

Exit status: 0 all checks passed, 1 a check failed, 77 no Chromium.
"""
import base64
import json
import os
import struct
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402

checks = 0
failures = 0
SEV_RANK = {"error": 0, "warning": 1, "note": 2}
VERDICT_CLASS = {"candidate": "safe", "already flagged": "safe", "not offload-safe": "unsafe", "unsafe": "unsafe",
                 "cannot verify": "cannot", "already flagged, cannot verify": "cannot"}


def check(desc, cond, detail=""):
    global checks, failures
    checks += 1
    if cond:
        print("ok - " + desc)
    else:
        failures += 1
        print("FAIL - " + desc + (": " + detail if detail else ""))


def png_pixels(data):
    """(width, height, rows of (r, g, b)) of an 8-bit RGB or RGBA PNG, not interlaced."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and ctype in (2, 6) and interlace == 0, "PNG kind %d/%d/%d" % (depth, ctype, interlace)
            bpp = 4 if ctype == 6 else 3
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(w)])
        prev = line
    return w, h, rows


def hexrgb(s):
    return tuple(int(s[i:i + 2], 16) for i in (1, 3, 5))


def near(p, q, tol=24):
    return all(abs(a - b) <= tol for a, b in zip(p, q))


def setup_page(browser, path, width=1280):
    s, problems, requests = cdp.load(browser, path)
    browser.send("Emulation.setDeviceMetricsOverride",
                 {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": False}, s)
    return s, problems, requests


def no_sideways(browser, s):
    return browser.evaluate(s, "[document.documentElement.scrollWidth, document.documentElement.clientWidth]")


def injection_checks(browser, s, name, scripts):
    check("%s: %d script element%s" % (name, scripts, "" if scripts == 1 else "s"),
          browser.evaluate(s, "document.scripts.length") == scripts)
    handlers = browser.evaluate(s, """Array.prototype.filter.call(document.querySelectorAll('*'),
        function(e){return Array.prototype.some.call(e.attributes, function(a){return /^on/i.test(a.name);});}).length""")
    check("%s: no element carries an event handler attribute" % name, handlers == 0, repr(handlers))
    check("%s: no injected global" % name, browser.evaluate(s, "typeof window.__nogvl_pwned") == "undefined")
    check("%s: no img, iframe, object, link or base element" % name,
          browser.evaluate(s, "document.querySelectorAll('img,iframe,object,embed,link,base').length") == 0)


def bars(browser, s, cid):
    return browser.evaluate(s, """Array.prototype.map.call(document.querySelectorAll('#%s svg g.bar'),
        function(g){return [g.getAttribute('data-label'), Number(g.getAttribute('data-value')),
                            g.querySelector('rect').getAttribute('width') > 0];})""" % cid)


def check_index(browser, out, audit, gem_json):
    path = os.path.join(out, "index.html")
    s, problems, requests = setup_page(browser, path)
    check("index: loads without console errors, exceptions or CSP violations", problems == [], "; ".join(problems))
    check("index: requests nothing but itself", requests == ["file://" + os.path.abspath(path)], repr(requests))
    check("index: its script ran (under its CSP)",
          browser.evaluate(s, "document.documentElement.getAttribute('data-js')") == "ready")
    gems = audit["gems"]
    check("index: six charts", browser.evaluate(s, "document.querySelectorAll('figure.chart').length") == 6)
    check("index: the charts are inline SVG",
          browser.evaluate(s, "document.querySelectorAll('figure.chart svg').length") == 6)

    want = sorted(((g["name"], g["numbers"]["sites"]) for g in gems if g["numbers"]["sites"]),
                  key=lambda t: (-t[1], t[0]))[:25]
    got = bars(browser, s, "chart-sites")
    check("chart: release sites per gem", [(a, b) for a, b, _ in got] == want, "%r != %r" % (got, want))
    check("chart: every bar drawn", all(c for _, _, c in got))
    v = audit["offload"]["verdicts"]
    got = [b for _, b, _ in bars(browser, s, "chart-verdicts")]
    want = [x for x in (v["safe"], v["unsafe"], v["cannot"], v["other"]) if x]
    check("chart: offload verdicts %r" % want, got == want, repr(got))
    sites = [site for d in gem_json.values() for site in d["sites"]]
    check("chart: the verdicts count every site", sum(got) == len(sites), "%d != %d" % (sum(got), len(sites)))
    gates = {}
    for site in sites:
        if VERDICT_CLASS.get(site["offload"]["verdict"]) == "unsafe":
            for gname in site["offload"]["failed_gates"]:
                gates[gname] = gates.get(gname, 0) + 1
    got = dict((a, b) for a, b, _ in bars(browser, s, "chart-gates"))
    check("chart: unsafe sites by failed gate", got == gates, "%r != %r" % (got, gates))
    got = bars(browser, s, "chart-facts")
    check("chart: cannot-verify sites by missing fact", sum(b for _, b, _ in got) >= v["cannot"] and
          dict((a, b) for a, b, _ in got) == audit["offload"]["cannot_verify_by_missing_fact"], repr(got))
    rules = {}
    for d in gem_json.values():
        for f in d["findings"]:
            rules[f["rule"]] = rules.get(f["rule"], 0) + 1
    got = dict((a, b) for a, b, _ in bars(browser, s, "chart-rules"))
    check("chart: findings by rule", got == rules, "%r != %r" % (got, rules))
    want = sorted(((g["name"], g["numbers"]["errors"]) for g in gems if g["numbers"]["errors"]),
                  key=lambda t: (-t[1], t[0]))[:25]
    got = [(a, b) for a, b, _ in bars(browser, s, "chart-errors")]
    check("chart: gems ranked by errors", got == want, "%r != %r" % (got, want))

    # the pixels: a screenshot of the charts shows the bars' colours
    box = browser.evaluate(s, """(function(){var r=document.querySelector('section.charts').getBoundingClientRect();
        return [r.left, r.top + window.scrollY, r.width, r.height];})()""")
    shot = browser.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                                   "clip": {"x": box[0], "y": box[1], "width": box[2],
                                                            "height": box[3], "scale": 1}}, s)
    w, h, rows = png_pixels(base64.b64decode(shot["data"]))
    counts = {}
    for colour in ("#1a7f37", "#cf222e", "#bf8700", "#0969da"):
        c = hexrgb(colour)
        counts[colour] = sum(1 for row in rows for p in row if near(p, c))
    check("screenshot: the charts were painted (%dx%d)" % (w, h), w > 600 and h > 200)
    check("screenshot: bars in every colour used (%r)" % counts,
          counts["#0969da"] > 200 and counts["#cf222e"] > 200 and counts["#1a7f37"] > 50 and
          (counts["#bf8700"] > 50 or not v["cannot"]))

    sw, cw = no_sideways(browser, s)
    check("index: no sideways scrolling at 1280 px (%d <= %d)" % (sw, cw), sw <= cw)

    # the table sorts by a clicked heading
    def order():
        return browser.evaluate(s, "Array.prototype.map.call(document.querySelectorAll('#gems tbody tr'),"
                                   "function(r){return r.cells[0].textContent;})")
    names_in_list = [g["name"] for g in gems] + [f["name"] for f in audit["not_analysed"]]
    check("table: the list order at first", order() == names_in_list, repr(order()))
    col = browser.evaluate(s, "Array.prototype.map.call(document.querySelectorAll('#gems thead th'),"
                              "function(t){return t.textContent;}).indexOf('Errors')")
    click = "document.querySelectorAll('#gems thead th')[%d].click()" % col
    browser.evaluate(s, click)
    errs = {g["name"]: g["numbers"]["errors"] for g in gems}
    want = sorted(names_in_list, key=lambda n: -errs.get(n, -1))
    check("table: Errors clicked: most errors first", order() == want, "%r != %r" % (order(), want))
    browser.evaluate(s, click)
    want = sorted(names_in_list, key=lambda n: errs.get(n, -1))
    check("table: clicked again: fewest first", order() == want, "%r != %r" % (order(), want))
    check("table: the heading says how it sorts",
          browser.evaluate(s, "document.querySelectorAll('#gems thead th')[%d].getAttribute('aria-sort')" % col)
          == "ascending")
    browser.evaluate(s, "document.querySelectorAll('#gems thead th')[0].click()")
    check("table: by name", order() == sorted(names_in_list, key=lambda n: n.lower()) or
          order() == sorted(names_in_list), repr(order()))
    links = browser.evaluate(s, "Array.prototype.map.call(document.querySelectorAll('#gems a'),"
                                "function(a){return a.getAttribute('href');})")
    check("table: a link to each analysed gem's page", len(links) == len(gems) and
          all(os.path.isfile(os.path.join(out, l)) for l in links), repr(links))
    injection_checks(browser, s, "index", 1)
    return links


def check_gem(browser, out, link, data):
    path = os.path.join(out, link)
    name = os.path.basename(link)
    s, problems, requests = setup_page(browser, path)
    check("%s: loads without console errors, exceptions or CSP violations" % name, problems == [],
          "; ".join(problems))
    check("%s: requests nothing but itself" % name, requests == ["file://" + os.path.abspath(path)], repr(requests))
    sev = browser.evaluate(s, "Array.prototype.map.call(document.querySelectorAll('article.finding'),"
                              "function(a){return a.getAttribute('data-severity');})")
    check("%s: one article per finding (%d)" % (name, len(data["findings"])), len(sev) == len(data["findings"]))
    check("%s: errors first, then warnings, then notes" % name,
          [SEV_RANK[x] for x in sev] == sorted(SEV_RANK[x] for x in sev), repr(sev))
    first = browser.evaluate(s, "(function(){var h=document.querySelector('h2');return h?h.id:null})()")
    check("%s: the findings lead the page" % name, first == "findings", repr(first))
    panels = browser.evaluate(s, """Array.prototype.map.call(document.querySelectorAll('section.site'), function(p){
        return {verdict: p.querySelector('.verdict').textContent,
                gates: Array.prototype.map.call(p.querySelectorAll('table.gates tbody tr'), function(r){
                    return [r.cells[0].textContent, r.getAttribute('data-state'),
                            r.cells[2].querySelectorAll('div').length, r.cells[2].textContent];})};})""")
    sites = data["sites"]
    check("%s: one panel per release site (%d)" % (name, len(sites)), len(panels) == len(sites))
    ok_v = ok_g = ok_f = True
    for p, site in zip(panels, sites):
        ok_v &= p["verdict"] == site["offload"]["verdict"]
        gates = site["offload"]["gates"]
        ok_g &= [(g[0], g[1], g[2]) for g in p["gates"]] == [
            (g["gate"], g["state"], max(len(g["evidence"]), 1 if g["state"] == "cannot verify" else 0))
            for g in gates]
        for g, row in zip(gates, p["gates"]):
            if g["state"] == "cannot verify":
                ok_f &= "missing fact" in row[3]
    check("%s: each panel shows the site's verdict" % name, ok_v)
    check("%s: each panel shows the gate checklist with its evidence" % name, ok_g, repr(panels[:2]))
    check("%s: every cannot-verify gate names the missing fact" % name, ok_f)
    sw, cw = no_sideways(browser, s)
    check("%s: no sideways scrolling at 1280 px (%d <= %d)" % (name, sw, cw), sw <= cw)
    injection_checks(browser, s, name, 0)


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    out = argv[1]
    binary = cdp.find_chromium()
    if not binary:
        print("SKIP: chromium is not installed (scripts/setup --test-tools installs it)")
        return 77
    with open(os.path.join(out, "audit.json"), encoding="utf-8") as f:
        audit = json.load(f)
    with open(os.path.join(out, "shard.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    gem_json = {}
    for e in manifest["entries"]:
        if e["kind"] == "gem":
            with open(os.path.join(out, "gems", e["record"]["slug"] + ".json"), encoding="utf-8") as f:
                gem_json[e["record"]["slug"]] = json.load(f)
    browser = cdp.Browser(binary)
    try:
        links = check_index(browser, out, audit, gem_json)
        for link in links:
            slug = os.path.basename(link)[:-len(".html")]
            check_gem(browser, out, link, gem_json[slug])
    except cdp.CDPError as e:
        check("the browser answered", False, str(e))
    finally:
        browser.close()
    print("%s: %d of %d checks failed" % (argv[0], failures, checks) if failures
          else "%s: all %d checks passed" % (argv[0], checks))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
