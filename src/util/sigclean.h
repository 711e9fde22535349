/* sigclean.h: what SIGTERM, SIGINT or SIGHUP must not leave behind.
 *
 * The run's precompiled-header directory in $TMPDIR (two levels: the parser
 * processes' sets are below it) and --fix's temporary file between its
 * creation and its rename are removed by the signal handler (with
 * async-signal-safe calls only), then the signal is raised again with its
 * default action. A SIGKILL leaves them: --fix removes its stale temporaries
 * at its start, and PCH directories are named nogvl-lint-pch.* in $TMPDIR. */
#ifndef NOGVL_SIGCLEAN_H
#define NOGVL_SIGCLEAN_H

void sigclean_install(void);
/* dir (NULL: none) is removed on a fatal signal. */
void sigclean_dir(const char *dir);
/* file (NULL: none) is removed on a fatal signal. */
void sigclean_file(const char *file);

#endif
