# A function pointer is analysed as every function assigned to it (issue 15
# item 3), up to a bound: a pointer assigned in 10,000 places (generated) ends
# "cannot verify" naming the pointer, both as the callback itself and when a
# trampoline calls through it, and the run finishes with every other result
# (bad input: bounded). A pointer with two known targets is judged on both.
. "$(dirname "$0")/lib/common.sh"
checklist
mkdir ext
awk 'BEGIN {
	n = 10000
	print "#include <ruby.h>"
	print "#include <ruby/thread.h>"
	print "static void *(*g_fn)(void *);"
	print "static void *(*g_two)(void *);"
	for (i = 0; i < n; i++)
		printf "static void *h_%d(void *p) { return p; }\n", i
	# 10,000 assignments, 100 per function
	for (f = 0; f < n / 100; f++) {
		printf "void set_%d(int k) {\n", f
		for (i = f * 100; i < f * 100 + 100; i++)
			printf "\tif (k == %d) g_fn = h_%d;\n", i, i
		print "}"
	}
	print "static void *tramp(void *p) { return g_fn(p); }"
	print "static void *bad(void *p) { (void)rb_str_new_cstr(\"x\"); return p; }"
	print "void pick(int k) { if (k) g_two = h_1; else g_two = bad; }"
	print "static VALUE run(VALUE self) {"
	print "\tint d = 0;"
	print "\t(void)self;"
	print "\trb_thread_call_without_gvl(g_fn, &d, NULL, NULL);"
	print "\trb_thread_call_without_gvl(tramp, &d, NULL, NULL);"
	print "\trb_thread_call_without_gvl(g_two, &d, NULL, NULL);"
	print "\treturn Qnil;"
	print "}"
	print "void Init_many(void) { rb_define_method(rb_cObject, \"run\", run, 0); }"
}' >ext/many.c
rc=0
timeout "$(scale_time 300)" "$BIN" --format json -o out.json ext/many.c 2>err.txt || rc=$?
check "the run finishes with a result (exit $rc)" test "$rc" -le 1
check "the JSON is written" isjson out.json
site() { # site N FIELD: a field of the offload verdict of the N-th site
	jq -r ".sites[$1].offload.$2" out.json
}
check "three sites" is "$(jq '.sites | length' out.json)" 3
check "the pointer as the callback: cannot verify" is "$(site 0 verdict)" "cannot verify"
check "... missing fact: the function pointer" is "$(site 0 missing_fact.kind)" "function pointer"
check "... naming g_fn" is "$(site 0 missing_fact.name)" "g_fn"
check "the trampoline calling through it: cannot verify" is "$(site 1 verdict)" "cannot verify"
check "... missing fact: the function pointer" is "$(site 1 missing_fact.kind)" "function pointer"
check "... naming g_fn" is "$(site 1 missing_fact.name)" "g_fn"
check "the callback's targets are bounded (64 listed)" is "$(jq '.sites[0].callback.targets | length' out.json)" 64
check "two known targets: judged on both (rb_str_new_cstr in one fails the Ruby API gate)" \
	is "$(site 2 verdict)" "not offload-safe"
check "... both listed" is "$(jq -r '[.sites[2].callback.targets[].name] | sort | join(",")' out.json)" "bad,h_1"
finish
