require "mkmf"
create_makefile("g4")
