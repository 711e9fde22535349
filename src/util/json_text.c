/* json_text.c: a C string as a JSON string, whatever its bytes (json_text.h). */
#include "json_text.h"

#include <stdbool.h>

#include "util.h"

json_t *json_text(const char *s)
{
	if (!s)
		return json_null();
	json_t *j = json_string(s);
	if (j)
		return j;
	/* not valid UTF-8: keep valid sequences, replace the rest */
	struct strbuf sb = {0};
	sb_puts(&sb, "");
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		size_t n = 0;
		if (*p < 0x80)
			n = 1;
		else if ((*p & 0xe0) == 0xc0 && *p >= 0xc2)
			n = 2;
		else if ((*p & 0xf0) == 0xe0)
			n = 3;
		else if ((*p & 0xf8) == 0xf0 && *p <= 0xf4)
			n = 4;
		bool ok = n > 0;
		for (size_t k = 1; ok && k < n; k++)
			ok = (p[k] & 0xc0) == 0x80;
		if (ok && n > 1) {
			json_t *t = json_stringn((const char *)p, n); /* rejects overlongs and surrogates */
			ok = t != NULL;
			json_decref(t);
		}
		if (ok) {
			sb_add(&sb, (const char *)p, n);
			p += n;
		} else {
			sb_puts(&sb, "\xef\xbf\xbd");
			p++;
		}
	}
	j = json_string(sb_str(&sb));
	sb_free(&sb);
	return j ? j : json_string("");
}
