# A gem whose worker-pool file is built only on Rubies with the blocking
# operation API (the shape io-event uses); written for nogvl-lint's corpus.
require "mkmf"

$srcs = ["base.c"]

if have_func("rb_fiber_scheduler_blocking_operation_extract")
	# the pool also needs threads
	if have_header("pthread.h")
		$srcs << "pool.c"
	end
else
	$srcs << "pool_fallback.c"
end

$srcs << "pthread_only.c" if have_header("pthread.h")

create_makefile("built_conditionally")
