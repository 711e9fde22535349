require "mkmf"
create_makefile("g1")
