#!/bin/sh
# --format html: one self-contained page; everything from the analysed
# project (file names, source lines, messages) escaped, control characters
# and bytes that are not UTF-8 made visible; the counts equal the JSON's.
# (tests/cli/html_browser.sh loads the same pages in a real browser.)
. "$(dirname "$0")/lib/common.sh"
checklist

. "$TESTDIR/lib/html_inject.sh"
write_injection_ext

run --format html "$dir"
check "html: exit 1 on errors, as with the other formats" is "$rc" 1
check "html: summary line on stderr" has err.txt "1 file analysed (0 with parse errors), 2 findings (2 errors"
check "html: a whole document on stdout" is "$(head -c 15 out.txt)" "<!DOCTYPE html>"
check "html: ends the document" is "$(tail -n 1 out.txt)" "</html>"
cp out.txt page.html

check "html: exactly one script element" is "$(grep -o '<script' page.html | wc -l | tr -d ' ')" 1
check "html: exactly one style element" is "$(grep -o '<style' page.html | wc -l | tr -d ' ')" 1
check "html: no injected markup" hasnt page.html '<script>window'
check "html: no injected img" hasnt page.html '<img'
check "html: no injected comment or style" hasnt page.html '<!--'
check "html: the source line escaped" has page.html 'rb_raise(rb_eArgError, &quot;&lt;/script&gt;&lt;script&gt;window.__nogvl_pwned=1&lt;/script&gt;'
check "html: quotes and ampersands escaped" has page.html '\\&quot;&#39;&amp;amp; '
check "html: the file name escaped" has page.html 'in&quot;je&lt;b&gt;ct/x&lt;img src=x onerror=window.__nogvl_pwned=1&gt;<span class="ctl">&#x241B;</span>\[31m.c:16:2'
check "html: the escape in the source shown as a control picture" has page.html '<span class="ctl">&#x241B;</span>\[2J'
check "html: no raw control byte" is "$(tr -d '\n\t' <page.html | LC_ALL=C grep -c "$(printf '[\001-\037\177]')")" 0
check "html: the byte that is not UTF-8 replaced" has page.html ' &#xFFFD;&quot;);'
check "html: valid UTF-8 throughout" sh -c 'iconv -f UTF-8 -t UTF-8 page.html >/dev/null'
check "html: the note line escaped" has page.html '/\* &lt;!-- &lt;style&gt;\*{display:none}&lt;/style&gt; \*/'
check "html: the comment in the snippet escaped" has page.html '/\* &lt;/pre&gt;&lt;script&gt;window.__nogvl_pwned=1&lt;/script&gt; \*/'

# self-contained: nothing loaded from anywhere
check "html: a CSP that allows nothing but the page's own style and script" \
	has page.html "content=\"default-src 'none'; style-src 'nonce-[0-9a-f]*'; script-src 'nonce-[0-9a-f]*';"
check "html: no src or href attribute" is "$(grep -c -E '(src|href|action)=\"' page.html)" 0
check "html: no url( or @import" is "$(grep -c -E 'url\(|@import' page.html)" 0

# the counts are the JSON's
run --format json "$dir"
cp out.txt run.json
for k in errors warnings notes sites; do
	id=$k
	check "html: $k count equals the JSON's" has page.html "id=\"sum-$id\">$(jq ".summary.$k" run.json)<"
done
check "html: findings count" has page.html "id=\"sum-findings\">$(jq '.findings | length' run.json)<"
check "html: one article per finding" is "$(grep -c '^<article class="finding' page.html)" "$(jq '.findings | length' run.json)"
check "html: the filter lists each rule once" is "$(grep -o '<option value="[a-z][a-z-]*"' page.html | sort -u | wc -l | tr -d ' ')" 2
check "html: every finding carries its rule and severity" is \
	"$(grep -o '^<article class="finding sev-[a-z]*" id="f[0-9]*" data-rule="[a-z-]*" data-severity="[a-z]*"' page.html | sed 's/.*data-rule="\([a-z-]*\)" data-severity="\([a-z]*\)"/\1 \2/' | sort | uniq -c | tr -s ' ')" \
	"$(jq -r '.findings[] | .rule + " " + .severity' run.json | sort | uniq -c | tr -s ' ')"

# -o FILE, together with json in one run; stdout stays free
run --format html -o report.html --format json -o r.json "$dir"
check "html -o: nothing on stdout" is "$(wc -c <out.txt | tr -d ' ')" 0
check "html -o: the page written" has report.html '</html>'
check "html -o: the same page as on stdout" cmp -s report.html page.html

# a clean project: no findings section entries, still a valid page
mkdir clean
cat >clean/c.c <<'CEOF'
#include <ruby.h>
#include <ruby/thread.h>
#include <unistd.h>
#ifndef RB_NOGVL_OFFLOAD_SAFE
#define RB_NOGVL_OFFLOAD_SAFE 0
#endif
struct rd { int fd; char *buf; size_t len; ssize_t n; };
static void *work(void *p) { struct rd *r = p; r->n = read(r->fd, r->buf, r->len); return NULL; }
static VALUE m(VALUE self)
{
	char buf[4096] = {0};
	struct rd r = {0, buf, sizeof(buf), 0};
	rb_nogvl(work, &r, RUBY_UBF_IO, NULL, RB_NOGVL_OFFLOAD_SAFE); /* already offload-safe */
	return r.n < 0 ? Qnil : rb_str_new(buf, r.n);
}
void Init_c(void) { rb_define_method(rb_cObject, "m", m, 0); }
CEOF
run --format html clean
check "html clean: exit 0" is "$rc" 0
check "html clean: says there are no findings" has out.txt '<p class="empty">No findings.</p>'
check "html clean: the site listed" has out.txt 'id="sum-sites">1<'
finish
