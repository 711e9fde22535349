# A two-file gem case for nogvl-lint's corpus (written for the project).
require "mkmf"
have_header("ruby/thread.h")
create_makefile("cross_file")
