#!/bin/sh
# Action step: builds nogvl-lint_<version>_<arch>.deb from the action's own
# checkout into $NOGVL_DEB_DIR (cached by the action ref).
set -eu
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends build-essential cmake pkg-config libclang-dev \
	libjansson-dev libyaml-dev libxxhash-dev ruby ruby-dev jq >/dev/null
sh "$NOGVL_ACTION_PATH/scripts/build-deb" "$NOGVL_ACTION_PATH" "$NOGVL_DEB_DIR"
