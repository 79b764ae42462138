# SPDX-License-Identifier: GPL-2.0
#
# KTAP results for the host-side stages of make check (bash): source it,
# call "result RC NAME" per case, exit with "$rc" at the end.
n=0 rc=0

result() # RC NAME: ok when RC is 0
{
	n=$((n + 1))
	if [[ $1 == 0 ]]; then
		echo "ok $n $2"
	else
		echo "not ok $n $2"
		rc=1
	fi
}
