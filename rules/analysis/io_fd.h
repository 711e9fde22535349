/* io_fd.h: descriptors taken from Ruby IO objects, shared by the rule
 * io-fd-without-io-region and the offload gate "file descriptors". */
#ifndef NOGVL_IO_FD_H
#define NOGVL_IO_FD_H

#include "model.h"

/* Whether event ev of mf takes a descriptor (or FILE *) from a Ruby IO:
 * rb_io_descriptor(io), FPTR_TO_FD(fptr) / GetOpenFile(io, fptr)->fd,
 * NUM2INT(rb_funcall(io, rb_intern("fileno"), 0)), or a call of the gem's
 * own helper that returns one of those. *what: how, for messages. */
bool io_fd_event(const struct model *m, const struct mfunc *mf, uint32_t ev, const char **what);

/* The first event before `limit` in the release site's data function that
 * takes a Ruby IO's descriptor and stores it where the callback's data
 * (data1) gets it; -1 when there is none. When the data function is a body
 * run on its parameter (io_body_runs), the event may be in the function that
 * runs it: *fn is the function holding the event. */
int32_t io_fd_into_data(const struct model *m, const struct msite *s, const char **what, uint32_t *fn);

/* A blocking descriptor call (read, recv, poll, accept ...) by name. */
bool io_fd_blocking_call(const char *name);

#endif
