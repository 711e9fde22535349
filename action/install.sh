#!/bin/sh
# Action step: installs the package built (or restored from the cache) in
# $NOGVL_DEB_DIR, with its dependencies (libclang1, libjansson4, ruby-dev, ...).
set -eu
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
deb=$(ls "$NOGVL_DEB_DIR"/nogvl-lint_*.deb | head -n 1)
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "$deb" jq >/dev/null
nogvl-lint --version
