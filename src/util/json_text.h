/* json_text.h: a C string as a JSON string, whatever its bytes: names and
 * messages come from the analysed tree, which need not be valid UTF-8. */
#ifndef NOGVL_JSON_TEXT_H
#define NOGVL_JSON_TEXT_H

#include <jansson.h>

/* s as a JSON string (null for NULL); invalid UTF-8 sequences are replaced
 * with U+FFFD, valid ones kept. */
json_t *json_text(const char *s);

#endif
