require "mkmf"
pkg_config("nogvltest")
create_makefile("g3")
