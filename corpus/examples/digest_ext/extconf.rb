# Example extension for nogvl-lint (written for the project; not a real gem).
require "mkmf"

have_header("ruby/thread.h")
have_func("rb_nogvl", "ruby/thread.h")
have_func("rb_thread_call_without_gvl", "ruby/thread.h")
$defs << "-DDIGEST_EXT_CHUNK=65536"

create_makefile("digest_ext")
