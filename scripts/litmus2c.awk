# litmus2c.awk: C-litmus tests (the Linux kernel memory model's format) to
# C for mmtorture's litmus scenario.  POSIX awk, run at build time:
#
#   awk -f litmus2c.awk FILE.litmus... > litmus-tests.h
#
# Each thread body becomes a macro LK_T<n>_P<k>(P) over the primitive set P,
# instantiated by LK_THREAD() in scenarios/litmus-engine.h for every set
# (hand-rolled kernel, kernel with mfence, liburcu, C11).  Supported: the
# subset the classic shapes use, listed in lk_stmt() below.  A test that
# uses anything else is emitted as unsupported, with the construct and the
# line, so that --test can say why it cannot run.

function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
function fail(msg) { if (!bad) bad = "line " FNR ": " msg }
function cname(s) { gsub(/[^A-Za-z0-9]/, "_", s); return s }
function cstr(s) { gsub(/\\/, "\\\\", s); gsub(/"/, "\\\"", s); return s }

function var_index(v,   i) {
	for (i = 0; i < nvars; i++) if (vars[i] == v) return i
	vars[nvars] = v; init[nvars] = 0
	return nvars++
}
function is_var(v,   i) { for (i = 0; i < nvars; i++) if (vars[i] == v) return 1; return 0 }
function is_reg(r) { return (cur SUBSEP r) in regidx }

# pointer operand: a location parameter or a register holding an address
function ptr(v) {
	v = trim(v); sub(/^\*/, "", v); v = trim(v)
	if (is_var(v)) return "LKV(" var_index(v) ")"
	if (is_reg(v)) return "((uint64_t *)(uintptr_t)" v ")"
	fail("'" v "' is not a location or a register"); return "0"
}
# value operand: a number, a register, or a location's address
function val(e) {
	e = trim(e)
	if (e ~ /^-?[0-9]+$/) return "(uint64_t)" e
	if (is_reg(e)) return "(uint64_t)" e
	if (is_var(e)) return "(uint64_t)(uintptr_t)LKV(" var_index(e) ")"
	fail("value '" e "' is not supported"); return "0"
}
# split "A, B" at the top-level comma into a1, a2
function args2(s,   depth, i, c) {
	depth = 0
	for (i = 1; i <= length(s); i++) {
		c = substr(s, i, 1)
		if (c == "(") depth++
		else if (c == ")") depth--
		else if (c == "," && depth == 0) { a1 = substr(s, 1, i - 1); a2 = substr(s, i + 1); return 1 }
	}
	fail("expected two arguments in '" s "'"); return 0
}
function inner(s, fn) { s = substr(s, length(fn) + 2); sub(/\)[ \t]*;[ \t]*$/, "", s); return s }

# One statement of a thread body -> C (or fail()).
function lk_stmt(s,   lhs, rhs, n, i, parts) {
	if (s == "{" || s == "}" || s == "else" || s == "} else {" || s == "} else" || s == "else {") return s
	if (s ~ /^int[ \t]+\**[ \t]*r[0-9]+[ \t]*;$/ || s ~ /^int[ \t]/) {
		sub(/^int[ \t]+/, "", s); sub(/;$/, "", s)
		n = split(s, parts, ",")
		for (i = 1; i <= n; i++) {
			lhs = trim(parts[i]); sub(/^\*+/, "", lhs); lhs = trim(lhs)
			if (lhs !~ /^r[0-9]+$/) { fail("declaration of '" lhs "': registers are r0, r1, ..."); return "" }
			regidx[cur, lhs] = nregs[cur]; regname[cur, nregs[cur]] = lhs; nregs[cur]++
		}
		return ""
	}
	if (s ~ /^if[ \t]*\(/) return s
	if (s !~ /;$/) { fail("'" s "' is not a statement this engine supports"); return "" }
	if (s == "smp_mb();") return "LK_MB(P);"
	if (s == "smp_rmb();") return "LK_RMB(P);"
	if (s == "smp_wmb();") return "LK_WMB(P);"
	if (s ~ /^WRITE_ONCE\(/) { if (args2(inner(s, "WRITE_ONCE"))) return "LK_WRITE_ONCE(P, " ptr(a1) ", " val(a2) ");"; return "" }
	if (s ~ /^smp_store_release\(/) { if (args2(inner(s, "smp_store_release"))) return "LK_STORE_RELEASE(P, " ptr(a1) ", " val(a2) ");"; return "" }
	if (s ~ /^rcu_assign_pointer\(/) { if (args2(inner(s, "rcu_assign_pointer"))) return "LK_RCU_ASSIGN(P, " ptr(a1) ", " val(a2) ");"; return "" }
	if (s ~ /^\*[A-Za-z_][A-Za-z0-9_]*[ \t]*=/) {
		lhs = s; sub(/=.*/, "", lhs); rhs = s; sub(/^[^=]*=/, "", rhs); sub(/;$/, "", rhs)
		return "LK_PLAIN_STORE(P, " ptr(lhs) ", " val(rhs) ");"
	}
	if (s ~ /^r[0-9]+[ \t]*=/) {
		lhs = trim(substr(s, 1, index(s, "=") - 1)); rhs = trim(substr(s, index(s, "=") + 1)); sub(/;$/, "", rhs)
		if (!is_reg(lhs)) { fail("register '" lhs "' is not declared"); return "" }
		if (rhs ~ /^READ_ONCE\(/) return lhs " = (int64_t)LK_READ_ONCE(P, " ptr(inner(rhs ";", "READ_ONCE")) ");"
		if (rhs ~ /^smp_load_acquire\(/) return lhs " = (int64_t)LK_LOAD_ACQUIRE(P, " ptr(inner(rhs ";", "smp_load_acquire")) ");"
		if (rhs ~ /^rcu_dereference\(/) return lhs " = (int64_t)LK_RCU_DEREF(P, " ptr(inner(rhs ";", "rcu_dereference")) ");"
		if (rhs ~ /^\*/) return lhs " = (int64_t)LK_PLAIN_LOAD(P, " ptr(rhs) ");"
		if (rhs ~ /^-?[0-9]+$/ || is_reg(rhs)) return lhs " = " rhs ";"
	}
	n = s
	if (n ~ /^r[0-9]+[ \t]*=/) n = substr(n, index(n, "=") + 1)
	n = trim(n); sub(/\(.*/, "", n); sub(/[ \t=].*/, "", n)
	fail(n "() is not supported (supported: READ_ONCE, WRITE_ONCE, smp_load_acquire, smp_store_release, smp_mb, smp_rmb, smp_wmb, rcu_dereference, rcu_assign_pointer, plain accesses, if)")
	return ""
}

# exists clause -> C over k[] (observed values); builds the key list.
function key_index(k,   i) {
	for (i = 0; i < nkeys; i++) if (keys[i] == k) return i
	keys[nkeys] = k
	return nkeys++
}
function cond_value(v) {
	v = trim(v)
	if (v ~ /^-?[0-9]+$/) return v
	if (is_var(v)) return "LK_ADDR_OF(" var_index(v) ")"
	fail("exists: value '" v "' is not supported"); return "0"
}
function translate_exists(e,   out, tok, c, i, j, atom, lhs, rhs) {
	sub(/^[ \t]*exists[ \t]*/, "", e)
	out = ""
	i = 1
	while (i <= length(e)) {
		c = substr(e, i, 1)
		if (c == " " || c == "\t") { i++; continue }
		if (c == "(" || c == ")") { out = out c; i++; continue }
		if (substr(e, i, 2) == "/\\") { out = out " && "; i += 2; continue }
		if (substr(e, i, 2) == "\\/") { out = out " || "; i += 2; continue }
		if (c == "~") { out = out "!"; i++; continue }
		j = i
		while (j <= length(e) && substr(e, j, 1) !~ /[ \t()]/ && substr(e, j, 2) != "/\\" && substr(e, j, 2) != "\\/") j++
		atom = substr(e, i, j - i)
		i = j
		if (atom !~ /=/) { fail("exists: '" atom "' is not a comparison"); return "0" }
		lhs = substr(atom, 1, index(atom, "=") - 1); rhs = substr(atom, index(atom, "=") + 1)
		if (lhs ~ /^[0-9]+:r[0-9]+$/) {
			split(lhs, parts2, ":")
			if (!((parts2[1] SUBSEP parts2[2]) in regidx)) { fail("exists: " lhs " is not a register of P" parts2[1]); return "0" }
		} else if (!is_var(lhs)) { fail("exists: '" lhs "' is not a location"); return "0" }
		out = out "(k[" key_index(lhs) "] == " cond_value(rhs) ")"
	}
	return out
}

function reset_test() {
	bad = ""; name = ""; result = ""; expect = ""; state = "top"; nthreads = 0; nvars = 0; nkeys = 0
	exists_text = ""; depth = 0; split("", vars); split("", init); split("", keys); split("", regidx)
	split("", regname); split("", nregs); split("", body)
}

function finish_test(   t, k, i, line, n, fl, pr, lhs, parts3) {
	if (name == "") return
	if (!bad && nthreads == 0) fail("no threads")
	if (!bad && exists_text == "") fail("no exists clause (forall and filter are not supported)")
	if (!bad && nthreads > 8) fail("more than 8 threads")
	if (!bad && nvars > 8) fail("more than 8 locations")
	if (!bad) cexists = translate_exists(exists_text)
	if (!bad && nkeys > 8) fail("exists names more than 8 registers and locations")
	id = ntests++
	tname[id] = name; tfile[id] = curfile
	if (bad) { tbad[id] = bad; return }
	tbad[id] = ""
	printf "/* ---- %s (%s) ---- */\n", name, curfile
	for (t = 0; t < nthreads; t++) {
		printf "#define LK_T%d_P%d(P) do { \\\n", id, t
		for (k = 0; k < nregs[t]; k++) printf "\tint64_t %s = 0; (void)%s; \\\n", regname[t, k], regname[t, k]
		n = body[t]
		for (i = 1; i <= n; i++) printf "\t%s \\\n", bodyline[t, i]
		for (k = 0; k < nregs[t]; k++) printf "\tLKO(%d) = %s; \\\n", k, regname[t, k]
		printf "} while (0)\n"
		printf "LK_THREAD(lk_t%d_p%d, LK_T%d_P%d)\n", id, t, id, t
	}
	printf "static bool lk_t%d_exists(const int64_t *k) { return %s; }\n", id, cexists
	printf "static void lk_t%d_observe(const struct lk_ctx *c, uint64_t i, int64_t *k)\n{\n", id
	for (k = 0; k < nkeys; k++) {
		if (keys[k] ~ /:/) {
			split(keys[k], parts3, ":")
			printf "\tk[%d] = lk_norm(c, i, LK_REG(c, %d, i, %d));\n", k, parts3[1], regidx[parts3[1], parts3[2]]
		} else {
			printf "\tk[%d] = lk_norm(c, i, LK_FINAL(c, i, %d));\n", k, var_index(keys[k])
		}
	}
	printf "}\n"
	fl = "0"
	if (expect ~ /x86_64=forbidden/) fl = fl " | MMT_ARCH_X86_64"
	if (expect ~ /aarch64=forbidden/) fl = fl " | MMT_ARCH_AARCH64"
	if (expect == "" && result == "Never") fl = "MMT_ARCH_ALL"
	tforbid[id] = fl
	tres[id] = result
	tthreads[id] = nthreads
	printf "#define LK_T%d_DESC { .name = \"%s\", .file = \"%s\", .result = \"%s\", .nthreads = %d, .nvars = %d, .nkeys = %d, \\\n", id, cstr(name), cstr(curfile), result, nthreads, nvars, nkeys
	printf "\t.vars = {"; for (k = 0; k < nvars; k++) printf "\"%s\", ", vars[k]; printf "}, \\\n"
	printf "\t.init = {"; for (k = 0; k < nvars; k++) printf "%s, ", init[k]; printf "}, \\\n"
	printf "\t.keys = {"; for (k = 0; k < nkeys; k++) printf "\"%s\", ", keys[k]; printf "}, \\\n"
	printf "\t.nregs = {"; for (t = 0; t < nthreads; t++) printf "%d, ", nregs[t]; printf "}, \\\n"
	printf "\t.thread = {"; for (t = 0; t < nthreads; t++) printf "LK_FNS(lk_t%d_p%d), ", id, t; printf "}, \\\n"
	printf "\t.exists = lk_t%d_exists, .observe = lk_t%d_observe }\n\n", id, id
}

FNR == 1 { finish_test(); reset_test(); curfile = FILENAME; sub(/.*\//, "", curfile) }
{
	line = $0
	sub(/\/\/.*/, "", line)
	line = trim(line)
}
FNR == 1 {
	if (line !~ /^C[ \t]+/) { name = curfile; fail("first line must be 'C NAME'"); next }
	name = trim(substr(line, 3)); next
}
state == "top" && line ~ /^\(\*/ { state = "comment" }
state == "comment" {
	if (line ~ /Result:/) { result = line; sub(/.*Result:[ \t]*/, "", result); sub(/[ \t].*/, "", result) }
	if (line ~ /Expect:/) { expect = line; sub(/.*Expect:[ \t]*/, "", expect) }
	if (line ~ /\*\)/) state = "top"
	next
}
state == "top" && line ~ /^\{/ {
	txt = line
	while (txt !~ /\}/ && (getline more) > 0) txt = txt " " more
	gsub(/[{}]/, "", txt)
	n = split(txt, assigns, ";")
	for (i = 1; i <= n; i++) {
		a = trim(assigns[i]); if (a == "") continue
		if (a ~ /^[0-9]+:/) { fail("register initialisation '" a "' is not supported"); continue }
		if (a ~ /^int[ \t]/) sub(/^int[ \t]+/, "", a)
		if (a !~ /=/) { var_index(trim(a)); continue }
		v = trim(substr(a, 1, index(a, "=") - 1)); x = trim(substr(a, index(a, "=") + 1))
		if (x ~ /^-?[0-9]+$/) init[var_index(v)] = x
		else { var_index(x); init[var_index(v)] = "LK_INIT_ADDR(" var_index(x) ")" }
	}
	state = "threads"; next
}
(state == "threads" || state == "top") && line ~ /^P[0-9]+[ \t]*\(/ {
	cur = nthreads++
	body[cur] = 0
	nregs[cur] = 0
	params = line; sub(/^[^(]*\(/, "", params); sub(/\).*/, "", params)
	n = split(params, ps, ",")
	for (i = 1; i <= n; i++) {
		p = trim(ps[i])
		if (p !~ /^int[ \t]*\*/) { fail("parameter '" p "': only int * locations are supported"); continue }
		sub(/^int[ \t]*\*[ \t]*/, "", p)
		var_index(trim(p))
	}
	state = "thread"; depth = 0; next
}
state == "thread" {
	if (line == "") next
	if (line == "{" && depth == 0) { depth = 1; next }
	if (line == "}" && depth == 1) { depth = 0; state = "threads"; next }
	o = gsub(/\{/, "{", line); c2 = gsub(/\}/, "}", line)
	depth += o - c2
	stmt = lk_stmt(line)
	if (stmt != "") bodyline[cur, ++body[cur]] = stmt
	next
}
line ~ /^exists/ {
	exists_text = line
	while ((gsub(/\(/, "(", exists_text) > gsub(/\)/, ")", exists_text)) && (getline more) > 0) exists_text = exists_text " " trim(more)
	next
}
line ~ /^(forall|filter|locations)/ { if (line !~ /^locations/) fail(substr(line, 1, index(line " ", " ") - 1) " clauses are not supported") }
END {
	finish_test()
	print "static const struct lk_test lk_tests[] = {"
	for (i = 0; i < ntests; i++) {
		if (tbad[i] != "") printf "\t{ .name = \"%s\", .file = \"%s\", .unsupported = \"%s\" },\n", cstr(tname[i]), cstr(tfile[i]), cstr(tbad[i])
		else printf "\tLK_T%d_DESC,\n", i
	}
	print "};"
	print "#define LK_NR_TESTS " ntests
	# variants: every supported test with every primitive set
	print "static const struct mmt_variant lk_variants[] = {"
	nv = 0
	for (i = 0; i < ntests; i++) {
		if (tbad[i] != "") continue
		for (p = 0; p < 4; p++) {
			printf "\t{ \"%s/%s\", \"%s with %s primitives (LKMM: %s)\", %s, false, %d },\n", cstr(tname[i]), prims[p], cstr(tname[i]), primdesc[p], tres[i] == "" ? "no verdict" : tres[i], tforbid[i], tthreads[i]
			vt[nv] = i; vp[nv] = p; nv++
		}
	}
	print "};"
	printf "static const unsigned char lk_variant_test[] = {"; for (i = 0; i < nv; i++) printf "%d, ", vt[i]; print "};"
	printf "static const unsigned char lk_variant_prim[] = {"; for (i = 0; i < nv; i++) printf "%d, ", vp[i]; print "};"
	print "#define LK_NR_VARIANTS " nv
}
BEGIN {
	prims[0] = "kernel"; primdesc[0] = "hand-rolled kernel-style"
	prims[1] = "kernel-mfence"; primdesc[1] = "hand-rolled, smp_mb() as the fence instruction,"
	prims[2] = "urcu"; primdesc[2] = "liburcu"
	prims[3] = "c11"; primdesc[3] = "C11"
	reset_test()
}
