require "mkmf"
require "rb_sys/mkmf"
create_rust_makefile("dk/dk")
