#!/usr/bin/env bash
# test_man_install.sh BUILD_DIR: cmake --install puts the five man pages
# under MANDIR/man1, man5 and man8 (GNUInstallDirs), and man finds each
# there by name and section.
set -uo pipefail
export LC_ALL=C.UTF-8
build=${1:?usage: test_man_install.sh BUILD_DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! cmake --install "$build" --prefix "$tmp/usr" >"$tmp/log" 2>&1; then
	echo "FAIL: cmake --install: $(tail -n 5 "$tmp/log")"
	exit 1
fi
fails=0
for want in man8/supernodectl.8 man8/supernode-prolog.8 man8/supernode-epilog.8 \
	man1/supernode-bench.1 man5/supernode.yaml.5; do
	f=$tmp/usr/share/man/$want
	if [[ ! -f $f ]]; then
		echo "FAIL: not installed: share/man/$want"
		fails=$((fails + 1))
		continue
	fi
	page=${want#*/}
	got=$(MANPATH=$tmp/usr/share/man man -w "${page##*.}" "${page%.*}" 2>&1)
	if [[ $got != "$f" ]]; then
		echo "FAIL: man -w ${page##*.} ${page%.*}: '$got', expected $f"
		fails=$((fails + 1))
	fi
done
extra=$(cd "$tmp/usr/share/man" && find . -type f | sort | tr '\n' ' ')
echo "installed: $extra"
((fails == 0)) || exit 1
echo "ok"
