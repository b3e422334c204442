#!/usr/bin/env bash
# One man page against what it describes (issue 19 item 4):
#
#   test_man.sh PAGE [--help-of PROGRAM] [--config-tables DIR]
#               [--spank-options FILE] [--also WORD]...
#
# - PAGE renders with man -l and groff -ww with nothing on stderr (every
#   groff warning and man's own), its .TH names the file (NAME in any
#   case, section)
#   and lexgrog reads its NAME line (what whatis and mandb index);
# - --help-of: every long option (--x), short option (-x) and, for a
#   program with commands, every command word ("config validate",
#   "health") that PROGRAM --help prints appears in the page; --help
#   exits 0;
# - --config-tables: every key of every yaml_key_rule table in DIR/*.c
#   (the config loader's schema) appears in the page as its dotted path
#   (placement.method, node.ports[].min_mtu); a table this script does not
#   place yet is checked by the bare key, and named;
# - --spank-options: every .name of a struct spank_option in FILE
#   appears as --NAME;
# - --also WORD: WORD appears (interfaces fixed before their code lands:
#   supernodectl's "config migrate", "doctor").
#
# A word "appears" when the page's text, with roff's font escapes removed
# and \- read as -, holds it between non-word characters.
set -uo pipefail
export LC_ALL=C.UTF-8

page=${1:?usage: test_man.sh PAGE [--help-of PROGRAM] [--config-tables DIR] [--spank-options FILE] [--also WORD]...}
shift
prog='' tables='' spank=''
also=()
while (($#)); do
	case $1 in
	--help-of) prog=$2; shift 2 ;;
	--config-tables) tables=$2; shift 2 ;;
	--spank-options) spank=$2; shift 2 ;;
	--also) also+=("$2"); shift 2 ;;
	*) echo "test_man.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done

fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
name=$(basename "$page")

# ---- rendering -----------------------------------------------------------
if [[ ! -f $page ]]; then
	echo "FAIL: no page $page"
	exit 1
fi
MANWIDTH=80 man --warnings=w,mac -l "$page" >"$tmp/man.out" 2>"$tmp/man.err"
rc=$?
((rc == 0)) || fail "man -l $name: exit $rc"
[[ -s $tmp/man.err ]] && fail "man -l $name printed on stderr: $(head -c 2000 "$tmp/man.err")"
groff -man -ww -z -Tutf8 "$page" 2>"$tmp/groff.err"
rc=$?
((rc == 0)) || fail "groff -man -ww $name: exit $rc"
[[ -s $tmp/groff.err ]] && fail "groff -man -ww $name printed on stderr: $(head -c 2000 "$tmp/groff.err")"
th=$(sed -n 's/^\.TH  *"\{0,1\}\([^" ]*\)"\{0,1\}  *"\{0,1\}\([0-9]\)"\{0,1\}.*/\1.\2/p' "$page" | head -n1)
th=${th//\\-/-}
[[ ${th,,} == "$name" ]] || fail ".TH of $name says '$th'"
lexgrog "$page" >"$tmp/lexgrog" 2>&1 || fail "lexgrog $name: $(cat "$tmp/lexgrog")"
grep -q -- ' - ' "$tmp/lexgrog" || fail "lexgrog $name finds no NAME line: $(cat "$tmp/lexgrog")"
lines=$(wc -l <"$tmp/man.out")
echo "$name: $(wc -c <"$page") bytes of roff, $lines lines at 80 columns"

# ---- the page's text -------------------------------------------------------
# Font escapes out (\fB \fI \fR \fP \f(CW \f[B]), \- and \(hy to -, \& and
# \: out, \e to \, so "\fB\-\-config\fR" reads --config.
sed -e 's/\\f\[[^]]*\]//g' -e 's/\\f(..//g' -e 's/\\f[A-Z1-4]//g' \
	-e 's/\\-/-/g' -e 's/\\(hy/-/g' -e 's/\\&//g' -e 's/\\://g' \
	-e 's/\\e/\\/g' "$page" >"$tmp/text"
has() { # has WORD: WORD in the text, between non-word characters
	W=$1 perl -e 'my $w = $ENV{W}; local $/; my $t = <STDIN>;
		exit($w ne "" && $t =~ /(?:^|[^A-Za-z0-9_.-])\Q$w\E(?:[^A-Za-z0-9_-]|$)/m ? 0 : 1)' \
		<"$tmp/text"
}
need() { # need WHAT WHY
	has "$1" || fail "$name does not name $1 ($2)"
}

# ---- a program's --help ------------------------------------------------------
if [[ -n $prog ]]; then
	"$prog" --help >"$tmp/help" 2>&1
	rc=$?
	((rc == 0)) || fail "$(basename "$prog") --help: exit $rc"
	grep -q 'usage:' "$tmp/help" ||
		fail "$(basename "$prog") --help prints no usage: $(head -c 300 "$tmp/help")"
	n=0
	for o in $(grep -oE -- '--[a-z][a-z0-9-]*' "$tmp/help" | sort -u); do
		need "$o" "an option of $(basename "$prog") --help"
		n=$((n + 1))
	done
	for o in $(grep -oE -- '(^|[][ |])-[A-Za-z]([] ]|$)' "$tmp/help" |
		tr -d '[]| ' | sort -u); do
		need "$o" "a short option of $(basename "$prog") --help"
		n=$((n + 1))
	done
	# Commands: an indented line of lower-case words before the text,
	# "  config validate     load ...", "  health   run ...".
	while read -r cmd; do
		need "$cmd" "a command of $(basename "$prog") --help"
		n=$((n + 1))
	done < <(sed -nE 's/^  ([a-z][a-z-]*( [a-z][a-z-]*)?)( [A-Z][A-Z]*)?  .*/\1/p' \
		"$tmp/help" | grep -vE '^(no mode)$' | sort -u)
	echo "$name: $n options and commands of $(basename "$prog") --help checked"
fi

# ---- the config loader's schema ----------------------------------------------
# The dotted place of each key table (lib/config/*.c, "static const struct
# yaml_key_rule NAME[]"); the root table's keys are the sections.
prefix_of() {
	case $1 in
	top_rules) echo '' ;;
	supernode_rules) echo 'supernodes[].' ;;
	placement_rules) echo 'placement.' ;;
	env_rules) echo 'env.' ;;
	paths_rules) echo 'paths.' ;;
	node_rules) echo 'node.' ;;
	accel_rules) echo 'node.accelerators.' ;;
	port_rules) echo 'node.ports[].' ;;
	topo_rules) echo 'node.topology.' ;;
	pair_rules) echo 'node.topology.pairs[].' ;;
	prolog_rules) echo 'prolog.' ;;
	drain_rules) echo 'drain.' ;;
	epilog_rules) echo 'epilog.' ;;
	limit_rules) echo 'epilog.thresholds.COUNTER.' ;;
	xid_rules) echo 'epilog.xid.' ;;
	bench_rules) echo 'bench.' ;;
	*) echo '?' ;;
	esac
}
if [[ -n $tables ]]; then
	awk '
		/struct yaml_key_rule [A-Za-z0-9_]+\[\] *= *\{/ {
			t = $0; sub(/.*yaml_key_rule /, "", t); sub(/\[.*/, "", t); next
		}
		t && /^\};/ { t = ""; next }
		t && match($0, /\{ *"[^"]+"/) {
			k = substr($0, RSTART, RLENGTH); sub(/\{ *"/, "", k); sub(/"$/, "", k)
			print t, k
		}' "$tables"/*.c >"$tmp/keys"
	[[ -s $tmp/keys ]] || fail "no key tables found in $tables/*.c"
	n=0
	while read -r table key; do
		p=$(prefix_of "$table")
		if [[ $p == '?' ]]; then
			echo "note: key table $table is not placed in test_man.sh: checking its key '$key' alone"
			p=''
		fi
		need "$p$key" "a key of $table in $tables"
		n=$((n + 1))
	done <"$tmp/keys"
	echo "$name: $n config keys of $tables checked"
fi

# ---- the SPANK plugin's options ----------------------------------------------
if [[ -n $spank ]]; then
	n=0
	for o in $(sed -nE 's/^[[:space:]]*\.name = "([a-z][a-z0-9-]*)",.*/\1/p' "$spank"); do
		need "--$o" "a SPANK option of $spank"
		n=$((n + 1))
	done
	((n > 0)) || fail "no spank_option names found in $spank"
	echo "$name: $n SPANK options checked"
fi

for w in "${also[@]}"; do
	need "$w" "an interface fixed in issue 19"
done

if ((fails)); then
	echo "$name: $fails failure(s)"
	exit 1
fi
echo "$name: ok"
