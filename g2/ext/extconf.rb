require "mkmf"
$INCFLAGS << " -I$(srcdir)/vendor/x"
$INCFLAGS << " -I/"
$CPPFLAGS << " -I/etc"
create_makefile("g2")
