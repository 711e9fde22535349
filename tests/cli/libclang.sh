# Which libclang is loaded: --libclang, NOGVL_LINT_LIBCLANG, the build's, else
# the newest libclang-N.so* of LLVM 14-19 in the search directories
# (NOGVL_LINT_LIBCLANG_SEARCH stands in for the standard places: a fake
# prefix with links named like other versions). A missing library, a file
# that is no library, a library without libclang's functions: one line on
# stderr, exit status 2, no crash, also for a whole analysis.
. "$(dirname "$0")/lib/common.sh"

real=$("$BIN" --version | sed -n 's/.*(libclang: \([^,]*\),.*/\1/p')
[ -f "$real" ] || fail "--version does not name the libclang it loaded: $(cat "$OUT")"
mkdir -p "$T/ext"
cp "$SRC"/corpus/examples/digest_ext/* "$T/ext/"
unset NOGVL_LINT_LIBCLANG || true

# the search: the newest of 14..19 wins; 13 and 20 are out of range; a
# dangling link and a directory are skipped
mkdir -p "$T/p1" "$T/p2" "$T/p3/libclang-18.so"
ln -s "$real" "$T/p1/libclang-14.so.1"
ln -s "$real" "$T/p2/libclang-17.so.17"
ln -s "$real" "$T/p2/libclang-13.so.1"
ln -s "$real" "$T/p2/libclang-20.so.1"
ln -s "$T/nonexistent" "$T/p1/libclang-19.so.1"
ln -s "$real" "$T/p1/libclang.so.1"
NOGVL_LINT_LIBCLANG_SEARCH="$T/p1:$T/p2:$T/p3" run --version
expect_rc 0 "search"
expect_out "(libclang: $T/p2/libclang-17.so.17, " "search: the newest in range (17)"
# the same version in two directories: the first directory
ln -s "$real" "$T/p1/libclang-17.so.1"
NOGVL_LINT_LIBCLANG_SEARCH="$T/p2:$T/p1" run --version
expect_out "(libclang: $T/p2/libclang-17.so.17, " "search: first directory wins a tie"
NOGVL_LINT_LIBCLANG_SEARCH="$T/p1:$T/p2" run --version
expect_out "(libclang: $T/p1/libclang-17.so.1, " "search: first directory wins a tie (reversed)"
# a whole analysis with the library found by search (the parser processes load it too)
NOGVL_LINT_LIBCLANG_SEARCH="$T/p2" run "$T/ext"
expect_rc 1 "analysis with a searched library"
expect_out "^2 files analysed (0 with parse errors), 6 findings" "analysis with a searched library: results"

# nothing found
mkdir "$T/empty"
NOGVL_LINT_LIBCLANG_SEARCH="$T/empty" run "$T/ext"
expect_rc 2 "no libclang"
expect_one_line_error
expect_err "no libclang found (LLVM 14 to 19): install libclang1-14 or newer" "no libclang: says what to install"
NOGVL_LINT_LIBCLANG_SEARCH="$T/empty" run --version
expect_rc 2 "--version without libclang"

# explicit choices win over the search; --libclang over the environment
NOGVL_LINT_LIBCLANG_SEARCH="$T/empty" NOGVL_LINT_LIBCLANG="$T/p1/libclang-14.so.1" run --version
expect_rc 0 "NOGVL_LINT_LIBCLANG"
expect_out "(libclang: $T/p1/libclang-14.so.1, " "NOGVL_LINT_LIBCLANG named"
NOGVL_LINT_LIBCLANG=/nonexistent/libclang.so run --libclang "$T/p2/libclang-17.so.17" --version
expect_rc 0 "--libclang wins"
expect_out "(libclang: $T/p2/libclang-17.so.17, " "--libclang named"

# bad libraries, for --version, an analysis (parser processes) and --tu-timeout 0 (in process)
printf 'not a library\n' >"$T/fake.so"
libz=$(ls /usr/lib/*/libz.so.1 /lib/*/libz.so.1 2>/dev/null | head -n 1)
for lib in /nonexistent/libclang.so "$T/fake.so" $libz; do
	for args in "--version" "$T/ext" "--tu-timeout 0 $T/ext" "--fix-dry-run $T/ext"; do
		# shellcheck disable=SC2086
		NOGVL_LINT_LIBCLANG=$lib run $args
		expect_rc 2 "NOGVL_LINT_LIBCLANG=$lib $args"
		n=$(wc -l <"$ERR")
		case $args in
		--version) [ "$n" = 1 ] || fail "$lib $args: $n lines on stderr" ;;
		*) [ "$n" = 1 ] && [ ! -s "$OUT" ] || fail "$lib $args: not one line and nothing else" ;;
		esac
		expect_err "^nogvl-lint: error: .*$lib (NOGVL_LINT_LIBCLANG)" "$lib $args: names the library and where it came from"
		grep -q 'Sanitizer\|Aborted\|core dumped' "$ERR" && fail "$lib $args: crashed"
	done
done
NOGVL_LINT_LIBCLANG=$T/fake.so run "$T/ext"
expect_err "cannot load libclang $T/fake.so (NOGVL_LINT_LIBCLANG): " "not a library: the loader's reason"
if [ -n "$libz" ]; then
	NOGVL_LINT_LIBCLANG=$libz run "$T/ext"
	expect_err "$libz (NOGVL_LINT_LIBCLANG) is not libclang 14 or newer: it has no clang_" "wrong ABI: names a missing function"
fi
run --libclang "$T/fake.so" "$T/ext"
expect_rc 2 "--libclang not a library"
expect_err "(--libclang)" "--libclang: named as the origin"
echo "ok"
