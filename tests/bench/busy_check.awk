# busy_check.awk: one sample of a busy cluster, from
#   squeue -h -t R -o '%i %j %N'
# (job names sn1, sn2: --supernode=1/2 jobs; any other: plain jobs).  Node
# NAME belongs to the supernode of its letters (snbl4 -> snbl: the local
# cluster's naming).  Prints one line per violation and, last,
#   checked JOBS SNJOBS VIOLATIONS
# A --supernode=N job must hold exactly N whole supernodes of SIZE nodes
# (set with -v size=S), and no other job may hold any node of them.
function expand(list, out,    n, tok, pre, body, parts, i, k, a, b, r) {
	n = 0
	while (list != "") {
		if (!match(list, /^[a-z]+(\[[^]]*\]|[0-9]*)/)) {
			out[++n] = "?" list
			break
		}
		tok = substr(list, 1, RLENGTH)
		list = substr(list, RLENGTH + 1)
		sub(/^,/, "", list)
		if (tok !~ /\[/) {
			out[++n] = tok
			continue
		}
		pre = tok
		sub(/\[.*/, "", pre)
		body = tok
		sub(/^[a-z]+\[/, "", body)
		sub(/\]$/, "", body)
		k = split(body, parts, ",")
		for (i = 1; i <= k; i++) {
			if (split(parts[i], r, "-") == 2) {
				a = r[1] + 0
				b = r[2] + 0
			} else {
				a = b = parts[i] + 0
			}
			for (; a <= b; a++)
				out[++n] = pre a
		}
	}
	return n
}
function sn_of(node,    s) {
	s = node
	sub(/[0-9]+$/, "", s)
	return s
}
{
	jobs++
	id = $1
	name[id] = $2
	n = expand($3, nodes)
	count[id] = n
	for (i = 1; i <= n; i++) {
		node[id, i] = nodes[i]
		holders[nodes[i]] = holders[nodes[i]] " " id
	}
}
END {
	bad = 0
	snjobs = 0
	for (id in name) {
		if (name[id] !~ /^sn[0-9]+$/)
			continue
		snjobs++
		want = substr(name[id], 3) + 0
		delete per
		nsn = 0
		for (i = 1; i <= count[id]; i++) {
			s = sn_of(node[id, i])
			if (!(s in per))
				nsn++
			per[s]++
			h = holders[node[id, i]]
			if (h != " " id) {
				print "VIOLATION job " id " (" name[id] ") shares node " node[id, i] " with jobs" h
				bad++
			}
			taken[s] = id
		}
		if (nsn != want) {
			print "VIOLATION job " id " (" name[id] ") on " nsn " supernodes, wants " want
			bad++
		}
		for (s in per)
			if (per[s] != size) {
				print "VIOLATION job " id " (" name[id] ") holds " per[s] " of " size " nodes of " s " (partial)"
				bad++
			}
	}
	for (id in name) {
		if (name[id] ~ /^sn[0-9]+$/)
			continue
		for (i = 1; i <= count[id]; i++) {
			s = sn_of(node[id, i])
			if (s in taken) {
				print "VIOLATION plain job " id " on " node[id, i] " of " s ", held by job " taken[s]
				bad++
			}
		}
	}
	print "checked " jobs + 0 " " snjobs " " bad
}
