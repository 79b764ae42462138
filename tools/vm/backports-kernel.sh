#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the newest 6.12 kernel image and headers from bookworm-backports
# (the second kernel the module is tested on) and print its release.
# Versioned packages only: the linux-image-amd64 metapackage, and so the
# default test kernel, stay on bookworm's 6.1.
set -euo pipefail

src=/etc/apt/sources.list.d/bookworm-backports.sources
if [[ ! -f $src ]]; then
	cat > "$src" <<EOT
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOT
	apt-get update -qq
fi
have() { [[ -f /boot/vmlinuz-$1 && -d /usr/src/linux-headers-$1 ]]; }

# newest release with both packages in the archive
rel=$(apt-cache search --names-only '^linux-(image|headers)-6\.12\.[0-9]+\+deb12-amd64$' |
	sed -E 's/^linux-(image|headers)-([^ ]+) .*/\2/' | sort -V | uniq -d | tail -n 1)
if [[ -z $rel ]]; then
	# no archive access: use what is installed, if anything
	rel=$(ls -d /usr/src/linux-headers-6.12*-amd64 2>/dev/null | sed 's|.*/linux-headers-||' |
		sort -V | tail -n 1)
fi
[[ -n $rel ]] || { echo "backports-kernel.sh: no 6.12 kernel in bookworm-backports" >&2; exit 1; }
if ! have "$rel"; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
		-t bookworm-backports "linux-image-$rel" "linux-headers-$rel" >&2
fi
have "$rel" || { echo "backports-kernel.sh: $rel did not install" >&2; exit 1; }
echo "$rel"
