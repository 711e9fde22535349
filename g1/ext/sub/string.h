#error "the gem's own string.h shadowed <string.h>"
