/* pch_idset.h: the identifiers a preamble's headers spell (pch.c), as a set
 * of their 64-bit hashes in one sorted array.
 *
 * A parse worker keeps the sets of every preamble it built for the rest of
 * the run (16-18 on Ruby's ext/): as interned strings in a hash map they
 * held about 1.6 MB each, a sixth of the worker's peak when its largest file
 * came last. As hashes they take 8 bytes a name. Two names with the same
 * hash make a name the headers do not spell look spelled: the only answer
 * that can be wrong is "spelled", and every use of it then takes the
 * cautious way (a define kept in the preamble's key, a file parsed without
 * the preamble), so a collision costs time, never different facts.
 */
#ifndef NOGVL_PCH_IDSET_H
#define NOGVL_PCH_IDSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct idset {
	uint64_t *v;
	size_t n, cap;
	size_t sorted; /* v[0..sorted) is sorted and without repeats */
};

void idset_add(struct idset *s, const char *name, size_t len);
/* Sorts, drops repeats and gives back the spare room; idset_has reads only
 * the sealed part. */
void idset_seal(struct idset *s);
bool idset_has(const struct idset *s, const char *name);
void idset_free(struct idset *s);

#endif
