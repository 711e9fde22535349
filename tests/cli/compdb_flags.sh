# A compile database whose entries carry flags clang rejects (GCC-only flags
# as mkmf passes them on): the files are still analysed, with the same
# findings as buildless mode, and -v names each dropped flag.
. "$(dirname "$0")/lib/common.sh"

mkdir -p "$T/gem/ext/digest_ext" "$T/gem/build"
cp "$SRC"/corpus/examples/digest_ext/* "$T/gem/ext/digest_ext/"
cd "$T/gem" || exit 1
rhdr=$(ruby -e 'print RbConfig::CONFIG["rubyhdrdir"]')
rarch=$(ruby -e 'print RbConfig::CONFIG["rubyarchhdrdir"]')
# relative "directory" (against the database's own directory) and "file"
cat >build/compile_commands.json <<EOJ
[
 {"directory": "../ext/digest_ext", "file": "digest_ext.c",
  "arguments": ["gcc", "-I$rarch", "-I$rhdr", "-I.", "-DHAVE_RUBY_THREAD_H", "-DHAVE_RB_NOGVL",
   "-fno-allow-store-data-races", "-O2", "-fanalyzer", "-march=nogvl-no-such-cpu", "-o", "digest_ext.o",
   "-c", "digest_ext.c"]},
 {"directory": "../ext/digest_ext", "file": "hash_core.c",
  "command": "gcc -I$rarch -I$rhdr -I. -fno-allow-store-data-races -Wl,-z,relro -O2 -o hash_core.o -c hash_core.c"}
]
EOJ
run -p build
expect_rc 1 "compile db with rejected flags"
"$BIN" ext/digest_ext >"$T/buildless.out" 2>&1
grep -e ': error: \|: warning: ' "$OUT" >"$T/db.findings"
grep -e ': error: \|: warning: ' "$T/buildless.out" >"$T/bl.findings"
[ -s "$T/db.findings" ] || fail "no findings with the compile database"
cmp -s "$T/db.findings" "$T/bl.findings" || { diff "$T/bl.findings" "$T/db.findings"; fail "findings differ from buildless mode"; }
expect_out '^2 files analysed (0 with parse errors), ' "both files analysed without errors"

run -v -p build
# -f options outside the allow-list go before clang sees them; a target
# option clang rejects is found by the probe parse
for flag in -fno-allow-store-data-races -fanalyzer; do
	expect_err "^nogvl-lint: ext/digest_ext/digest_ext.c: dropped flag $flag (not on the list of options analysis uses)" "-v names $flag"
done
expect_err "^nogvl-lint: ext/digest_ext/digest_ext.c: dropped flag -march=nogvl-no-such-cpu (clang" "-v names -march=nogvl-no-such-cpu"
expect_err "^nogvl-lint: ext/digest_ext/hash_core.c: dropped flag -fno-allow-store-data-races (not on the list" \
	"-v names the flag for the command form"
expect_no_err "dropped flag -o digest_ext.o" "routine drops only with -vv"
run -vv -p build
expect_err "dropped flag -o digest_ext.o (not used for analysis)" "-vv lists routine drops"

# without -v, nothing about flags
run -p build
expect_no_err "dropped" "no flag noise without -v"

# a positional path narrows the report to that file, not the analysis:
# every entry is analysed (callbacks cross files, issue 14)
run -p build ext/digest_ext/hash_core.c
expect_rc 0 "only hash_core.c"
expect_out '^2 files analysed' "every entry analysed"
exit 0
