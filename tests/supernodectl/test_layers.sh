#!/usr/bin/env bash
# supernodectl's files call one another one way only (no call cycles):
# from nm of the program's object files, file A calls file B when A uses a
# symbol B defines; any cycle in that graph is printed and fails the test.
#   bash tests/supernodectl/test_layers.sh OBJ...
set -uo pipefail
(($#)) || { echo "usage: $0 OBJ..." >&2; exit 2; }
# CMake hands $<TARGET_OBJECTS> over as one ;-separated argument.
IFS=";" read -r -a objs <<<"$(IFS=";"; echo "$*")"
set -- "${objs[@]}"
for o in "$@"; do
	f=$(basename "$o" .o)
	nm "$o" | awk -v f="$f" '$2 ~ /^[TDBR]$/ { print "def", f, $3 } $1 == "U" { print "use", f, $2 }'
done | python3 -c '
import sys
defs, uses = {}, {}
for line in sys.stdin:
    kind, f, sym = line.split()
    if kind == "def":
        defs[sym] = f
    else:
        uses.setdefault(f, set()).add(sym)
graph = {f: sorted({defs[s] for s in syms if s in defs and defs[s] != f})
         for f, syms in uses.items()}
cycles = set()
def walk(path):
    for g in graph.get(path[-1], []):
        if g in path:
            c = path[path.index(g):]
            i = c.index(min(c))
            cycles.add(" -> ".join(c[i:] + c[:i] + [c[i]]))
        else:
            walk(path + [g])
for f in sorted(graph):
    walk([f])
for c in sorted(cycles):
    print("call cycle:", c)
print("%d files, %d call cycles" % (len(uses), len(cycles)))
sys.exit(1 if cycles else 0)
'
