#!/usr/bin/env python3
"""Checks a nogvl-lint HTML report in a real headless Chromium.

usage: html_check.py REPORT.html RUN.json   the report against the JSON of the same run
       html_check.py --load-only PAGE.html  only: no console errors, no requests
       html_check.py --self-test            the checker catches a broken page

For a report it asserts: the page loads without console errors, uncaught
exceptions or browser log errors (CSP violations included); it requests
nothing but itself; its script ran; the summary counts and the findings it
shows equal the JSON's; the severity and rule filters show the right number
of findings; and nothing from the analysed text became markup or script.

Exit status: 0 all checks passed, 1 a check failed, 77 no Chromium.
"""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402

checks = 0
failures = 0


def check(desc, cond, detail=""):
    global checks, failures
    checks += 1
    if cond:
        print("ok - " + desc)
    else:
        failures += 1
        print("FAIL - " + desc + (": " + detail if detail else ""))


def visible(s):
    """What the page shows for analysed text: control pictures for C0 and DEL (tab kept)."""
    out = []
    for ch in s:
        o = ord(ch)
        if ch == "\t":
            out.append(ch)
        elif o < 0x20:
            out.append(chr(0x2400 + o))
        elif o == 0x7F:
            out.append("\u2421")
        else:
            out.append(ch)
    return "".join(out)


def self_test(browser):
    """A page with a console error, an exception and a network request must fail."""
    d = tempfile.mkdtemp(prefix="nogvl-html-selftest-")
    bad = os.path.join(d, "bad.html")
    with open(bad, "w") as f:
        f.write("<!DOCTYPE html><html><head><meta charset='utf-8'><title>bad</title></head><body>"
                "<img src='http://192.0.2.1/x.png' alt=''>"
                "<script>console.error('deliberate error');</script>"
                "<script>throw new Error('deliberate exception');</script></body></html>")
    good = os.path.join(d, "good.html")
    with open(good, "w") as f:
        f.write("<!DOCTYPE html><html><head><meta charset='utf-8'><title>good</title></head>"
                "<body><p id='x'>3</p></body></html>")
    _, problems, requests = cdp.load(browser, bad)
    check("self-test: a console error is caught", any("deliberate error" in p for p in problems), repr(problems))
    check("self-test: an uncaught exception is caught", any("deliberate exception" in p for p in problems),
          repr(problems))
    check("self-test: a network request is caught", any(u.startswith("http://192.0.2.1/") for u in requests),
          repr(requests))
    s, problems, requests = cdp.load(browser, good)
    check("self-test: a clean page has no problems", problems == [], repr(problems))
    check("self-test: a clean page requests only itself", len(requests) == 1, repr(requests))
    check("self-test: page text is read", browser.evaluate(s, "document.getElementById('x').textContent") == "3")
    for name in (bad, good):
        os.unlink(name)
    os.rmdir(d)


def text_of(browser, s, sel):
    return browser.evaluate(s, "(function(){var e=document.querySelector(%s);return e?e.textContent:null})()"
                            % json.dumps(sel))


def check_report(browser, html, run):
    s, problems, requests = cdp.load(browser, html)
    url = "file://" + os.path.abspath(html)
    check("loads without console errors, exceptions or CSP violations", problems == [], "; ".join(problems))
    check("requests nothing but itself (no network resources)", requests == [url], repr(requests))
    check("its script ran (under its CSP)",
          browser.evaluate(s, "document.documentElement.getAttribute('data-js')") == "ready")

    findings = run["findings"]
    summ = run["summary"]
    verdicts = [site["offload"]["verdict"] for site in run["sites"]]
    want = {
        "#sum-files": summ["files"],
        "#sum-parse-failures": summ["files_failed"],
        "#sum-parse-errors": summ["files_with_errors"],
        "#sum-sites": summ["sites"],
        "#sum-callbacks": summ["callbacks_resolved"],
        "#sum-findings": len(findings),
        "#sum-errors": summ["errors"],
        "#sum-warnings": summ["warnings"],
        "#sum-notes": summ["notes"],
        "#sum-suppressed": summ["suppressed"],
        "#sum-offload-candidates": verdicts.count("candidate"),
        "#sum-cannot-verify": verdicts.count("cannot verify"),
    }
    for sel, n in want.items():
        got = text_of(browser, s, sel)
        check("summary %s shows %d" % (sel, n), got == str(n), "shows %r" % got)

    arts = browser.evaluate(s, """Array.prototype.map.call(document.querySelectorAll('article.finding'),
        function(a){return {rule:a.getAttribute('data-rule'), severity:a.getAttribute('data-severity'),
          loc:a.querySelector('h3 .loc').textContent, msg:a.querySelector('.msg').textContent,
          notes:Array.prototype.map.call(a.querySelectorAll('ol.chain > li'), function(l){
            return l.querySelector('.loc').textContent;}),
          snippet:a.querySelector('pre.src .hit') ? a.querySelector('pre.src .hit').textContent : null,
          hidden:a.hidden};})""")
    check("one article per finding (%d)" % len(findings), len(arts) == len(findings), "%d shown" % len(arts))
    ok_rule = ok_loc = ok_msg = ok_notes = ok_src = True
    for a, f in zip(arts, findings):
        ok_rule &= a["rule"] == f["rule"] and a["severity"] == f["severity"]
        ok_loc &= a["loc"] == visible("%s:%d:%d" % (f["file"], f["line"], f["column"]))
        ok_msg &= a["msg"].startswith(visible(f["message"]))
        ok_notes &= a["notes"] == [visible("%s:%d:%d" % (n["file"], n["line"], n["column"])) for n in f["notes"]]
        if f["source"] is not None:
            ok_src &= a["snippet"] is not None and a["snippet"].rstrip("\n").endswith(visible(f["source"]))
    check("each finding shows its rule and severity", ok_rule)
    check("each finding shows its location", ok_loc)
    check("each finding shows its message", ok_msg)
    check("each finding shows its note chain", ok_notes)
    check("each finding shows its source line", ok_src)
    check("all findings shown at first", all(not a["hidden"] for a in arts))
    if findings:
        check("the shown count starts at the total", text_of(browser, s, "#shown-count") == str(len(findings)))
    else:
        check("a page without findings says so", "No findings." in (text_of(browser, s, "#findings") or ""))

    # filters, driven as a user would: change the controls, fire 'change'
    def shown_after(js):
        return browser.evaluate(s, "(function(){%s;return [document.getElementById('shown-count').textContent,"
                                   "document.querySelectorAll('article.finding:not([hidden])').length]})()" % js)

    set_sev = ("var b=document.querySelector('input[data-filter=severity][value=%s]');b.checked=%s;"
               "b.dispatchEvent(new Event('change'))")
    set_rule = "var r=document.getElementById('rule-filter');r.value=%s;r.dispatchEvent(new Event('change'))"
    for sev in ("error", "warning", "note"):
        n = sum(1 for f in findings if f["severity"] != sev)
        if not findings:
            break
        got = shown_after(set_sev % (sev, "false"))
        check("unticking %s shows %d" % (sev, n), got == [str(n), n], repr(got))
        shown_after(set_sev % (sev, "true"))
    rules = sorted({f["rule"] for f in findings})
    for rule in rules:
        n = sum(1 for f in findings if f["rule"] == rule)
        got = shown_after(set_rule % json.dumps(rule))
        check("rule filter %s shows %d" % (rule, n), got == [str(n), n], repr(got))
    if rules:
        rule = rules[0]
        n = sum(1 for f in findings if f["rule"] == rule and f["severity"] != "error")
        shown_after(set_rule % json.dumps(rule))
        got = shown_after(set_sev % ("error", "false"))
        check("rule %s without errors shows %d" % (rule, n), got == [str(n), n], repr(got))
        shown_after(set_sev % ("error", "true"))
        got = shown_after(set_rule % json.dumps(""))
        check("all rules again shows %d" % len(findings), got == [str(len(findings)), len(findings)], repr(got))

    # nothing from the analysed text became markup
    check("exactly one script element", browser.evaluate(s, "document.scripts.length") == 1)
    inline_handlers = browser.evaluate(s, """Array.prototype.filter.call(document.querySelectorAll('*'),
        function(e){return Array.prototype.some.call(e.attributes, function(a){return /^on/i.test(a.name);});}).length""")
    check("no element carries an event handler attribute", inline_handlers == 0, repr(inline_handlers))
    check("no injected global", browser.evaluate(s, "typeof window.__nogvl_pwned") == "undefined")
    check("no img, iframe, object or link element",
          browser.evaluate(s, "document.querySelectorAll('img,iframe,object,embed,link,base').length") == 0)


def main(argv):
    binary = cdp.find_chromium()
    if not binary:
        print("SKIP: chromium is not installed (scripts/setup --test-tools installs it)")
        return 77
    browser = cdp.Browser(binary)
    try:
        if argv[1:] == ["--self-test"]:
            self_test(browser)
        elif len(argv) == 3 and argv[1] == "--load-only":
            _, problems, requests = cdp.load(browser, argv[2])
            check("loads without console errors, exceptions or CSP violations", problems == [], "; ".join(problems))
            check("requests nothing but itself", requests == ["file://" + os.path.abspath(argv[2])], repr(requests))
        elif len(argv) == 3:
            with open(argv[2], encoding="utf-8") as f:
                run = json.load(f)
            check_report(browser, argv[1], run)
        else:
            print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
            return 2
    except cdp.CDPError as e:
        check("the browser answered", False, str(e))
    finally:
        browser.close()
    print("%s: %d of %d checks failed" % (argv[0], failures, checks) if failures
          else "%s: all %d checks passed" % (argv[0], checks))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
