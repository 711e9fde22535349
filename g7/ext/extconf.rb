require "mkmf"
create_makefile("g7")
