require 'mkmf'
# a comment with "quotes' and #{interpolation}
have_header('ruby/thread.h') && have_func('rb_thread_call_without_gvl', 'ruby/thread.h')
have_func("rb_nogvl")
have_library("z", "deflate") or abort "need zlib"
have_struct_member("struct stat", "st_mtim", "sys/stat.h")
have_type('rb_blocking_function_t', 'ruby/thread.h')
have_const('RB_NOGVL_OFFLOAD_SAFE', 'ruby/thread.h')
find_header('zlib.h', '/opt/zlib/include', "#{dir}/include")
%w[clock_gettime posix_memalign
   pipe2].each { |f| have_func(f) }
$defs << "-DFOO=1" << '-DBAR'
$CFLAGS << " -I../vendor/include -DQUX=\"a b\""
$CPPFLAGS += ' -Iinc'
append_cflags(['-DCF', '-fno-strict-aliasing'])
append_cppflags('-DCPP=2')
create_makefile('x/x')
