#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Old configs keep their meaning (issue 19 item 2), against the real
# supernodectl: every file of old-configs/ (PROVENANCE says which commit
# each comes from) gives exactly its .expect (exit code, the warnings, the
# summary) under `config validate`; `config migrate` prints exactly its
# .migrated, which validates with no warning at all; --write keeps
# FILE.orig and refuses when FILE.orig exists; usage errors exit 2.
#
# Before this change (84885af): the five old configs and the two field
# cases that load now were refused with exit 1 (a bare number "is no
# longer a limit", "not a counter the epilog judges", "unknown key"), and
# `config migrate` was "unknown subcommand" with exit 2.
set -u
snctl=$1
src=${SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
old=$src/tests/supernodectl/old-configs
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

cp "$old"/*.yaml "$work"/
cd "$work" || exit 1

n=0
for f in *.yaml; do
	b=${f%.yaml}
	n=$((n + 1))
	"$snctl" config validate "$f" >out 2>err
	{ echo "rc=$?"; cat err out; } >got
	diff -u "$old/$b.expect" got >/dev/null ||
		fail "$f: validate: $(diff "$old/$b.expect" got | head -5)"
	if [ ! -e "$old/$b.migrated" ]; then
		# refused, never accepted: migrate says the same, exit 1
		"$snctl" config migrate "$f" >out 2>err
		rc=$?
		[ "$rc" = 1 ] && [ ! -s out ] &&
			[ "$(cat err)" = "$(sed -n 2p "$old/$b.expect")" ] ||
			fail "$f: migrate of a refused file: rc $rc, $(cat err)"
		continue
	fi
	"$snctl" config migrate "$f" >out 2>err
	rc=$?
	[ "$rc" = 0 ] && [ ! -s err ] || fail "$f: migrate rc $rc: $(cat err)"
	cmp -s "$old/$b.migrated" out || fail "$f: migrate: $(diff "$old/$b.migrated" out | head -5)"
	# today's form: validates, no warning, same summary line
	cp out "m-$f"
	"$snctl" config validate "m-$f" >vout 2>verr
	rc=$?
	[ "$rc" = 0 ] && [ ! -s verr ] &&
		[ "$(cat vout)" = "$(tail -n 1 "$old/$b.expect")" ] ||
		fail "$f: migrated file: rc $rc, $(cat verr vout)"
	# and migrating today's form changes nothing
	"$snctl" config migrate "m-$f" >out2 2>&1
	cmp -s out out2 || fail "$f: migrate of the migrated file changed it"
done
[ "$n" = 9 ] || fail "$n files in old-configs, want 9"

# --write: FILE rewritten, FILE.orig the old bytes, same mode.
f=a3ddb91-etc-readme-schema.yaml
cp "$f" w.yaml
chmod 640 w.yaml
"$snctl" --config w.yaml config migrate --write >out 2>err
rc=$?
[ "$rc" = 0 ] &&
	[ "$(cat out)" = "w.yaml: 2 deprecated forms rewritten; the old file is w.yaml.orig" ] ||
	fail "--write: rc $rc: $(cat out err)"
cmp -s w.yaml.orig "$f" || fail "--write: w.yaml.orig is not the old file"
cmp -s w.yaml "$old/${f%.yaml}.migrated" || fail "--write: w.yaml is not the migrated text"
[ "$(stat -c %a w.yaml)" = 640 ] || fail "--write: mode $(stat -c %a w.yaml), want 640"
[ ! -e w.yaml.migrate ] || fail "--write: w.yaml.migrate left behind"

# FILE.orig exists: refused, FILE untouched.
cp "$f" w.yaml
"$snctl" config migrate w.yaml --write >out 2>err
rc=$?
[ "$rc" = 1 ] &&
	[ "$(cat err)" = "supernodectl: w.yaml.orig: exists: not overwritten (move it away first)" ] ||
	fail "--write over .orig: rc $rc: $(cat out err)"
cmp -s w.yaml "$f" || fail "--write over .orig: w.yaml changed"
[ ! -e w.yaml.migrate ] || fail "--write over .orig: w.yaml.migrate left behind"

# Nothing to change: --write leaves the file and makes no .orig.
"$snctl" config migrate "$old/a3ddb91-etc-readme-schema.migrated" --write >out 2>err
rc=$?
[ "$rc" = 0 ] &&
	[ "$(cat out)" = "$old/a3ddb91-etc-readme-schema.migrated: already in today's form: not rewritten" ] ||
	fail "--write of a clean file: rc $rc: $(cat out err)"

# Usage: exit 2.
"$snctl" config migrate a.yaml b.yaml >out 2>err
rc=$?
[ "$rc" = 2 ] && grep -q "config migrate: unexpected argument 'b.yaml'" err ||
	fail "two files: rc $rc: $(cat err)"
"$snctl" config migrate --frob a.yaml >out 2>err
rc=$?
[ "$rc" = 2 ] || fail "--frob: rc $rc"
# A file that does not load: exit 1, the loader's message.
printf 'supernodes: 3\n' >bad.yaml
"$snctl" config migrate bad.yaml >out 2>err
rc=$?
[ "$rc" = 1 ] && [ ! -s out ] &&
	[ "$(cat err)" = "supernodectl: bad.yaml:1:13: supernodes: expected a list of {name, nodes}" ] ||
	fail "invalid file: rc $rc: $(cat err)"

if [ "$fails" -gt 0 ]; then
	echo "$fails failure(s)"
	exit 1
fi
echo "ok: $n old configs, migrate, --write, .orig refusal, usage"
