# The Debian package (label: deb): scripts/build-deb makes
# nogvl-lint_<version>_<arch>.deb with the Depends the tool needs; installed
# with apt-get into the running system, it runs on the bundled example from a
# directory outside the source tree, and is removed again. Needs root, apt-get
# and dpkg (skipped otherwise) and leaves nothing installed. Without libclang
# the package does not configure (dpkg's dependency error, checked against an
# empty package database) and the tool says what to install.
. "$(dirname "$0")/lib/common.sh"
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1 || ! command -v dpkg >/dev/null 2>&1; then
	echo "SKIP: needs root, apt-get and dpkg"
	exit 77
fi
if dpkg-query -W -f='${Status}' nogvl-lint 2>/dev/null | grep -q "install ok installed"; then
	echo "SKIP: a nogvl-lint package is installed already; not touching it"
	exit 77
fi
deb=$(sh "$SRC/scripts/build-deb" "$SRC" "$T/out" "$T/build" 2>"$T/build.log") || { tail -n 30 "$T/build.log"; fail "build-deb"; }
case $(basename "$deb") in
nogvl-lint_*_"$(dpkg --print-architecture)".deb) ;;
*) fail "package file name: $deb" ;;
esac
deps=$(dpkg-deb -f "$deb" Depends)
for d in libclang1-14 libjansson4 libyaml-0-2 libxxhash0 ruby ruby-dev; do
	echo "$deps" | grep -q "\\(^\\|[ ,|]\\)$d\\($\\|[ ,]\\)" || fail "Depends lacks $d: $deps"
done
echo "$deps" | grep -q 'libclang1-19 |.*| libclang1-14' || fail "Depends: not any libclang1 from 14 up: $deps"
dpkg-deb -c "$deb" >"$T/contents"
grep -q ' ./usr/bin/nogvl-lint$' "$T/contents" || fail "no /usr/bin/nogvl-lint in the package"
grep -q ' ./usr/share/man/man1/nogvl-lint.1' "$T/contents" || fail "no man page in the package"

# a system with everything but libclang: an empty root whose package
# database lists the other dependencies; dpkg unpacks the package there but
# refuses to configure it, naming libclang
mkdir -p "$T/root/var/lib/dpkg/updates" "$T/root/var/lib/dpkg/info"
for p in libc6 libjansson4 libyaml-0-2 libxxhash0 ruby ruby-dev; do
	printf 'Package: %s\nStatus: install ok installed\nVersion: 99\nArchitecture: %s\nMaintainer: test\nDescription: test\n\n' \
		"$p" "$(dpkg --print-architecture)"
done >"$T/root/var/lib/dpkg/status"
rc=0
dpkg --root="$T/root" --force-script-chrootless -i "$deb" >"$OUT" 2>"$ERR" || rc=$?
[ "$rc" != 0 ] || fail "dpkg accepted the package without its dependencies"
expect_err "nogvl-lint depends on libclang1-19 | .* | libclang1-14; however:" "dependency error names libclang"
expect_no_err "depends on libc6\|depends on ruby\|depends on libjansson4" "only libclang is missing there"

# install, run from elsewhere, remove
cleanup() { DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq nogvl-lint >/dev/null 2>&1 || true; }
trap 'cleanup; chmod -R u+rwx "$T" 2>/dev/null; rm -rf "$T"' EXIT
cd "$T/out" || exit 1
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "./$(basename "$deb")" \
	>"$T/apt.log" 2>&1 || { cat "$T/apt.log"; fail "apt-get install"; }
mkdir "$T/elsewhere"
cd "$T/elsewhere" || exit 1
/usr/bin/nogvl-lint --version >"$OUT" 2>"$ERR" || fail "installed --version"
expect_out "^nogvl-lint [0-9.]* (libclang: " "installed --version"
rc=0
/usr/bin/nogvl-lint "$SRC/corpus/examples/digest_ext" >"$OUT" 2>"$ERR" || rc=$?
expect_rc 1 "installed package on the example"
expect_out "6 findings (2 errors, 3 warnings, 1 note)" "installed package: findings"
# no libclang to be found at run time: one line naming the package to install
rc=0
NOGVL_LINT_LIBCLANG_SEARCH=$T/elsewhere /usr/bin/nogvl-lint "$SRC/corpus/examples/digest_ext" >"$OUT" 2>"$ERR" || rc=$?
expect_rc 2 "installed, no libclang"
expect_err "install libclang1-14 or newer" "installed, no libclang: what to install"
[ -f /usr/share/man/man1/nogvl-lint.1 ] || [ -f /usr/share/man/man1/nogvl-lint.1.gz ] || fail "man page not installed"
cd "$T" || exit 1
DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq nogvl-lint >"$T/apt.log" 2>&1 || { cat "$T/apt.log"; fail "apt-get remove"; }
[ ! -e /usr/bin/nogvl-lint ] || fail "still installed after apt-get remove"
echo ok
