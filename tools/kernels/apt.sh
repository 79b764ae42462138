#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# apt-get or apt-cache with sources of our own, never the system's: the
# Debian suites the kernel matrix comes from, with their package lists and
# downloads under our cache.  The host's apt configuration is untouched.
#   tools/kernels/apt.sh apt-get download PKG...
#   tools/kernels/apt.sh apt-cache search --names-only REGEX
#   tools/kernels/apt.sh update        refresh the lists (also done when absent)
set -euo pipefail

cache=${XDG_CACHE_HOME:-$HOME/.cache}/qpi_uncore/apt
mirror=${QPI_DEBIAN_MIRROR:-http://deb.debian.org/debian}
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
mkdir -p "$cache/lists/partial" "$cache/archives/partial"

# unstable's Release file is past its Valid-Until: the one suite read with
# the check off, and only for itself
cat > "$cache/sources.list.new" <<EOF
deb [signed-by=$keyring] $mirror bullseye main
deb [signed-by=$keyring] $mirror bookworm main
deb [signed-by=$keyring] $mirror bookworm-backports main
deb [signed-by=$keyring] $mirror trixie main
deb [signed-by=$keyring] $mirror trixie-backports main
deb [signed-by=$keyring check-valid-until=no] $mirror unstable main
EOF
if ! cmp -s "$cache/sources.list.new" "$cache/sources.list" 2> /dev/null; then
	mv "$cache/sources.list.new" "$cache/sources.list"
	rm -f "$cache/updated"
else
	rm -f "$cache/sources.list.new"
fi

opts=(-o "Dir::Etc::SourceList=$cache/sources.list" -o Dir::Etc::SourceParts=/dev/null
      -o "Dir::State::Lists=$cache/lists" -o "Dir::Cache=$cache"
      -o Dir::State::status=/dev/null -o APT::Get::List-Cleanup=0
      -o APT::Sandbox::User=root -o Debug::NoLocking=1 -qq)

update() {
	apt-get "${opts[@]}" update
	: > "$cache/updated"
}

case ${1:-} in
update) update ;;
apt-get|apt-cache)
	# lists older than a day are refreshed: kernels move on in backports
	[[ -n $(find "$cache/updated" -mmin -1440 2> /dev/null) ]] || update
	tool=$1
	shift
	exec "$tool" "${opts[@]}" "$@" ;;
*) echo "usage: $0 update | apt-get ARGS | apt-cache ARGS" >&2; exit 2 ;;
esac
