require "mkmf"
create_makefile("cross_file")
