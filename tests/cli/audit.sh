#!/bin/sh
# scripts/audit-gems: local directories (corpus examples), gem fetch + unpack
# and apt-get source through stub programs on PATH (no registry is reachable
# on the build machines), failures listed with their reason while the other
# gems still report, the cache reused, the Markdown and HTML summaries.
. "$(dirname "$0")/lib/common.sh"
checklist
if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP: python3 is not installed"
	exit 77
fi
AUDIT="$SRC/scripts/audit-gems"

# stubs: gem, apt-get, dpkg-source; each logs its arguments to calls.log
mkdir stubs
cat >stubs/gem <<EOF
#!/bin/sh
echo "gem \$*" >>"$T/calls.log"
case \$1 in
fetch)
	name=\$2
	case \$name in missing) echo "ERROR:  Could not find a valid gem 'missing' (>= 0) in any repository" >&2; exit 2 ;; esac
	version=1.2.3
	[ "\$5" = --version ] && version=\$6
	echo "fake gem" >"\$name-\$version.gem"
	echo "Downloaded \$name-\$version"
	;;
unpack)
	full=\$(basename "\$2" .gem)
	name=\${full%-*}
	mkdir -p "\$4/\$full/ext/\$name" "\$4/\$full/lib"
	echo "# lib" >"\$4/\$full/lib/\$name.rb"
	case \$name in
	nosrc) ;;
	*) cp "$SRC/corpus/examples/digest_ext/"* "\$4/\$full/ext/\$name/" ;;
	esac
	echo "Unpacked gem: '\$4/\$full'"
	;;
esac
EOF
cat >stubs/apt-get <<EOF
#!/bin/sh
echo "apt-get \$*" >>"$T/calls.log"
if [ "\$2" = --print-uris ]; then
	pkg=\$4
	case \$pkg in nosuch) echo "E: Unable to find a source package for nosuch" >&2; exit 100 ;; esac
	# like apt, leave out what is already in the directory
	[ -f "\${pkg}_2.0-1.dsc" ] || echo "'http://deb.example/\${pkg}_2.0-1.dsc' \${pkg}_2.0-1.dsc 1000 SHA256:00"
	[ -f "\${pkg}_2.0.orig.tar.gz" ] || echo "'http://deb.example/\${pkg}_2.0.orig.tar.gz' \${pkg}_2.0.orig.tar.gz 5000 SHA256:00"
	exit 0
fi
pkg=\$2
case \$pkg in gone) echo "E: Failed to fetch http://deb.example/gone_2.0.orig.tar.gz  404  Not Found" >&2; echo "E: Failed to fetch some archives." >&2; exit 100 ;; esac
if [ -d "\$pkg-2.0" ]; then echo "Skipping unpack of already unpacked source in \$pkg-2.0"; exit 0; fi
printf 'Format: 3.0 (quilt)\nSource: %s\nVersion: 1:2.0-1\n' "\$pkg" >"\${pkg}_2.0-1.dsc"
: >"\${pkg}_2.0.orig.tar.gz"
mkdir -p "\$pkg-2.0/src/ruby/ext/x" "\$pkg-2.0/src/core"
cp "$SRC/corpus/examples/digest_ext/"* "\$pkg-2.0/src/ruby/ext/x/"
echo "int core(void) { return 0; }" >"\$pkg-2.0/src/core/core.c"
echo "dpkg-source: info: extracting \$pkg in \$pkg-2.0"
EOF
printf '#!/bin/sh\nexit 0\n' >stubs/dpkg-source
chmod +x stubs/*
PATH="$T/stubs:$PATH"
export PATH

# audit ARGS...: runs the audit; stdout in out.txt, stderr in err.txt, status in $rc
audit() {
	python3 "$AUDIT" --nogvl-lint "$BIN" --cache "$T/cache" --out "$T/report" "$@" >out.txt 2>err.txt
	rc=$?
}
row() { grep "^| $1 |" report/summary.md; }

audit "digest=$SRC/corpus/examples/digest_ext" "$SRC/corpus/ruby-api-without-gvl/cross_file" \
	gem:fastgem gem:pinned@0.9.1 gem:missing gem:nosrc deb:ruby-thing deb:gone deb:nosuch "$T/no-such-dir"
check "exit 0: the audit ran although some gems failed" is "$rc" 0
check "progress: what is being done" has err.txt '^\[3/10\] fastgem: gem fetch fastgem$'
check "progress: every gem ends with a result" is "$(grep -c '^\[[0-9]*/10\] .*\(files (\|NOT ANALYSED\)' err.txt)" 10
check "progress: a gem line with its counts" has err.txt '^\[1/10\] digest: 2 files (0 not analysed, 0 with parse errors), 3 release sites, 2 errors'
check "the final line" has err.txt '^audit: 5 of 10 gems analysed'
check "summary.md written" test -s report/summary.md
check "index.html written" test -s report/index.html
check "audit.json valid" isjson report/audit.json
check "per-gem JSON and HTML" sh -c 'for g in digest cross_file fastgem pinned ruby-thing; do [ -s report/gems/$g.json ] && [ -s report/gems/$g.html ] && [ -s report/gems/$g.log ] || exit 1; done'

# the table row of a local gem equals its JSON
j=report/gems/digest.json
want="| digest | local | $(jq '.summary.files' $j) | 0 | $(jq '.summary.sites' $j) | $(jq '.summary.callbacks_resolved' $j) | $(jq '.summary.errors' $j) | $(jq '.summary.warnings' $j) | $(jq '.summary.notes' $j) | $(jq '[.sites[] | select(.offload.verdict == "candidate")] | length' $j) | $(jq '[.sites[] | select(.offload.verdict == "cannot verify")] | length' $j) |"
check "local directory: the row equals its JSON" is "$(row digest)" "$want"
check "local directory: a multi-file gem case" has report/summary.md '^| cross_file | local | 2 |'
check "local directory: findings reach the top list" has report/summary.md '^- \*\*digest\*\* `ext/\|^- \*\*digest\*\* `'

# gem fetch + unpack
check "gem: fetched as the source (ruby) platform" has calls.log '^gem fetch fastgem --platform ruby$'
check "gem: a version asked for" has calls.log '^gem fetch pinned --platform ruby --version 0.9.1$'
check "gem: unpacked into the cache" test -d cache/gems/unpacked/fastgem-1.2.3/ext/fastgem
check "gem: the origin names the gem and version" has report/summary.md '^| fastgem | gem fastgem-1.2.3 | 2 |'
check "gem: only ext/ analysed (not lib/)" has report/gems/fastgem.log ' -- ext$'
check "gem: the download failure listed with the reason" has report/summary.md "^| missing | missing | download | gem fetch failed: ERROR:  Could not find a valid gem 'missing'"
check "gem: no sources is a reason too" has report/summary.md '^| nosrc | gem nosrc-1.2.3 | sources | no C or C++ sources found |'

# apt-get source
check "deb: the tree extracted into the cache" test -d cache/debian/ruby-thing-2.0
check "deb: only the Ruby extension analysed (extconf.rb found)" has report/gems/ruby-thing.log ' -- src/ruby/ext/x$'
check "deb: the origin names the source package" has report/summary.md '^| ruby-thing | Debian ruby-thing_2.0-1 | 2 |'
check "deb: a fetch failure listed with apt's reason" has report/summary.md '^| gone | gone | download | apt-get source failed: E: Failed to fetch http://deb.example/gone_2.0.orig.tar.gz  404  Not Found'
check "deb: an unknown package says how to enable deb-src" has report/summary.md '^| nosuch | nosuch | download | apt-get source: E: Unable to find a source package for nosuch (add a deb-src line'
check "a missing directory is listed" has report/summary.md "^| no-such-dir | .* | sources | no such directory"

# totals
check "totals: the sum of the analysed gems" is "$(jq '.totals.errors' report/audit.json)" \
	"$(cat report/gems/*.json | jq -s 'map(.summary.errors) | add')"
check "totals row" has report/summary.md "^| \*\*Total\*\* | | \*\*10\*\* |"
check "not analysed: five" is "$(jq '.not_analysed | length' report/audit.json)" 5

# a second run uses the cache: no download for a pinned gem or a fetched package
: >calls.log
audit gem:pinned@0.9.1 deb:ruby-thing
check "cache: exit 0" is "$rc" 0
check "cache: no gem fetch for a version in the cache" hasnt calls.log '^gem fetch'
check "cache: no apt-get source download for an extracted package" is "$(grep -c '^apt-get source ruby-thing' calls.log)" 0
check "cache: the origin says so" has report/summary.md '^| pinned | gem pinned-0.9.1 (cached) |'

# nothing analysed: exit 1; usage errors: exit 2
audit gem:missing
check "no gem analysed: exit 1" is "$rc" 1
audit
check "no sources: exit 2" is "$rc" 2
audit 'gem:bad name'
check "a bad gem name: exit 2" is "$rc" 2

# the index page is self-contained and loads cleanly in a browser when there is one
check "index: a CSP that allows nothing else" has report/index.html "default-src 'none'"
check "index: no src or href except the gem pages" is "$(grep -o -E '(src|href)="[^"]*"' report/index.html | grep -v -c '^href="gems/[^/"]*\.html"$')" 0
audit "digest=$SRC/corpus/examples/digest_ext" gem:missing
if python3 "$SRC/tests/browser/html_check.py" --load-only report/index.html >load.txt 2>&1; then
	ok "index: loads in the browser without errors or requests"
elif [ $? -eq 77 ]; then
	echo "skip - index in the browser (no chromium)"
else
	cat load.txt
	fail "index: loads in the browser without errors or requests"
fi
finish
