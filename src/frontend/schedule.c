/* schedule.c: see schedule.h. */
#include "schedule.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

struct group {
	VEC(size_t) jobs;
	size_t lo, hi; /* jobs.v[lo..hi) are left */
	bool started;
};

struct job_sched {
	pthread_mutex_t lock;
	VEC(struct group) groups;
	int32_t *cur; /* per worker: its group, or -1 */
	bool *stolen; /* per worker: it takes from the end of its group */
	unsigned nworkers;
};

/* What the preamble of a file depends on: its arguments but the defines and
 * its own directory, and its language. */
static char *group_key(const struct tu_job *j)
{
	struct strbuf sb = {0};
	sb_putc(&sb, j->cxx ? '+' : 'c');
	char *own = j->directory ? xasprintf("-I%s", j->directory) : NULL;
	for (size_t i = 0; i < j->args.n; i++) {
		const char *a = j->args.v[i];
		if (a[0] == '-' && (a[1] == 'D' || a[1] == 'U')) {
			if (!a[2])
				i++; /* its value */
			continue;
		}
		if (own && strcmp(a, own) == 0)
			continue;
		sb_putc(&sb, '\n');
		sb_add(&sb, a, strlen(a));
	}
	free(own);
	return sb_detach(&sb);
}

struct job_sched *sched_new(const struct tu_job *jobs, size_t n, unsigned nworkers)
{
	struct job_sched *s = xcalloc(1, sizeof(*s));
	pthread_mutex_init(&s->lock, NULL);
	s->nworkers = nworkers ? nworkers : 1;
	s->cur = xcalloc(s->nworkers, sizeof(*s->cur));
	s->stolen = xcalloc(s->nworkers, sizeof(*s->stolen));
	for (unsigned w = 0; w < s->nworkers; w++)
		s->cur[w] = -1;
	struct hmap by_key = {0}; /* key -> group index + 1 */
	strlist keys = {0};
	for (size_t i = 0; i < n; i++) {
		char *k = group_key(&jobs[i]);
		uintptr_t g = (uintptr_t)hmap_get(&by_key, k);
		if (!g) {
			struct group ng = {0};
			vec_push(&s->groups, ng);
			g = s->groups.n;
			vec_push(&keys, k);
			hmap_put(&by_key, k, (void *)g);
		} else {
			free(k);
		}
		struct group *gr = &s->groups.v[g - 1];
		vec_push(&gr->jobs, i);
		gr->hi = gr->jobs.n;
	}
	hmap_free(&by_key);
	strlist_free(&keys);
	return s;
}

/* A group nobody has started, in the jobs' order; else the one with the
 * most left (taken from its end); -1 when every group is done. */
static int32_t pick_group(struct job_sched *s, bool *steal)
{
	int32_t best = -1;
	size_t most = 0;
	for (size_t g = 0; g < s->groups.n; g++) {
		struct group *gr = &s->groups.v[g];
		size_t left = gr->hi - gr->lo;
		if (!left)
			continue;
		if (!gr->started) {
			*steal = false;
			return (int32_t)g;
		}
		if (left > most) {
			most = left;
			best = (int32_t)g;
		}
	}
	*steal = true;
	return best;
}

size_t sched_next(struct job_sched *s, unsigned w)
{
	size_t r = (size_t)-1;
	pthread_mutex_lock(&s->lock);
	int32_t g = s->cur[w];
	if (g < 0 || s->groups.v[g].lo >= s->groups.v[g].hi) {
		g = pick_group(s, &s->stolen[w]);
		s->cur[w] = g;
	}
	if (g >= 0) {
		struct group *gr = &s->groups.v[g];
		gr->started = true;
		r = s->stolen[w] ? gr->jobs.v[--gr->hi] : gr->jobs.v[gr->lo++];
	}
	pthread_mutex_unlock(&s->lock);
	return r;
}

void sched_free(struct job_sched *s)
{
	if (!s)
		return;
	for (size_t g = 0; g < s->groups.n; g++)
		vec_free(&s->groups.v[g].jobs);
	vec_free(&s->groups);
	free(s->cur);
	free(s->stolen);
	pthread_mutex_destroy(&s->lock);
	free(s);
}
