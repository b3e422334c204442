#!/usr/bin/env bash
# cmake compares the configured Slurm headers' Debian revision
# (.slurm-source.debian) with the installed slurmctld package's
# (SN_SLURMCTLD_DEB_VERSION stands in for dpkg-query): another revision
# means another job record, so job_modify must not read it with those
# headers (issue 17, item 5).  Three configures of about 12 s each.
#
# Usage: slurm_revision.sh SOURCE_DIR HEADERS_DIR
set -euo pipefail
src=$1 headers=$2
debian=$(cat "$headers/.slurm-source.debian")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0

configure() { # DEB_VERSION -> cmake's output
	rm -rf "$work/b"
	cmake -S "$src" -B "$work/b" -DBUILD_TESTING=OFF \
		-DSN_SLURMCTLD_DEB_VERSION="$1" 2>&1
}
expect() { # NAME OUTPUT TEXT
	if grep -qF -- "$3" <<<"$2"; then
		echo "ok: $1"
	else
		echo "FAIL: $1: no '$3' in:"
		grep -E 'job_modify|Warning|slurmctld' <<<"$2" || true
		fail=1
	fi
}

out=$(configure "$debian")
expect "same revision: headers used" "$out" \
	"job_modify: refuses reshaping a --supernode job"
out=$(configure "${debian%+*}+deb12u99")
expect "another revision: headers not used" "$out" \
	"job_modify: accepts every update ($headers holds the headers of Debian's Slurm $debian, but the installed slurmctld is ${debian%+*}+deb12u99: its job record may differ"
out=$(configure "99.11.1-1")
expect "another release: warned" "$out" \
	"the installed slurmctld package is 99.11.1-1, but the plugins are built"
exit $fail
