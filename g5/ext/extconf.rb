require "mkmf"
create_makefile("g5")
