#include <ruby.h>
/* nogvl-lint: ignore[ruby-api-without-gvl] on the next code line */

static void *cb(void *p)
{
	rb_raise(rb_eArgError, "x"); // nogvl-lint: ignore[ruby-api-without-gvl, value-access-without-gvl] same line
	// nogvl-lint: ignore-begin[mt-unsafe-call] block
	strtok(0, ",");
	// nogvl-lint: ignore-end[mt-unsafe-call]
	//! nogvl-lint: ignore-end
	/* nogvl-lint: ignore[] nothing */
	/* nogvl-lint: ignore[no-such-rule] */
	/* nogvl-lint: frobnicate */
	const char *s = "// nogvl-lint: ignore[ruby-api-without-gvl] in a string";
	char c = '\'';
#define M(x) \
	rb_raise(x, "y") /* nogvl-lint: ignore[ruby-api-without-gvl] in a macro */
	return (void *)s;
}
// nogvl-lint: ignore-begin[unset-result] never closed
/* nogvl-lint: ignore[ruby-api-without-gvl
