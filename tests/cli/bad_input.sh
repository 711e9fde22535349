# Bad input: a binary file named x.c, a file with fatal errors, a missing
# file in a compile database, an unreadable directory. Each gives one clear
# line, and the rest of the run goes on.
. "$(dirname "$0")/lib/common.sh"

mkdir -p "$T/gem/sub"
write_bad_ext "$T/gem/a_good.c"
printf '\177ELF\002\001\001\000\000\000\000\000\000\000\000\000\003\000' >"$T/gem/x.c"
cat >"$T/gem/fatal.c" <<'EOC'
#include <ruby.h>
#include "no_such_header.h"
int broken(void) { return undeclared_thing + ; }
EOC
cd "$T/gem" || exit 1

run --jobs 2 .
expect_rc 1 "the good file's finding decides"
expect_out '^a_good.c:6:2: error: .*\[ruby-api-without-gvl\]$' "the good file's finding"
expect_err '^nogvl-lint: warning: x.c: not analysed: not a C source file (binary content)$' "binary file said"
[ "$(grep -c 'x.c' "$ERR")" -eq 1 ] || fail "the binary file is mentioned more than once"
expect_out '^2 files analysed (1 with parse errors, 1 with missing headers), 1 could not be analysed, 1 finding (1 error, 0 warnings, 0 notes)$' \
	"summary counts the failure and the parse errors"
run -v .
expect_err "fatal.c: [0-9]* parse errors\{0,1\}" "-v says which file has parse errors"

# only files that cannot be analysed: status 2
run x.c
expect_rc 2 "nothing could be analysed"
expect_err "nothing could be analysed" "nothing analysed said"
expect_out '^0 files analysed (0 with parse errors), 1 could not be analysed, 0 findings' "summary even then"

# a compile database naming a file that is gone
cat >compile_commands.json <<EOJ
[{"directory": "$T/gem", "file": "a_good.c", "command": "cc -c a_good.c"},
 {"directory": "$T/gem", "file": "gone.c", "command": "cc -c gone.c"},
 {"directory": "$T/gem/no_such_dir", "file": "$T/gem/fatal.c", "command": "cc -c fatal.c"}]
EOJ
run -p .
expect_rc 1 "compile db with a missing file"
expect_out '^a_good.c:6:2: error: ' "the good entry is analysed"
expect_err '^nogvl-lint: warning: ./compile_commands.json: 1 entry for files that do not exist (such as gone.c) skipped; -v lists them$' "missing file said"
expect_err "fatal.c: not analysed: compile directory $T/gem/no_such_dir does not exist" "missing directory said"
expect_out '^1 file analysed (0 with parse errors), 1 could not be analysed, 1 finding' "summary"
rm compile_commands.json

# an unreadable directory (root reads everything: then this part is skipped)
mkdir locked && cp a_good.c locked/hidden.c && chmod 0 locked
if ! ls locked >/dev/null 2>&1; then
	run .
	expect_rc 1 "unreadable directory"
	expect_err "locked: cannot read directory: Permission denied" "unreadable directory said"
	expect_out '^a_good.c:6:2: error: ' "the rest is analysed"
fi
chmod 755 locked
exit 0
