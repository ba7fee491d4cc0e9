/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Writing the calls: a growing buffer, JSON string escaping, and a cap (the method's maximum call size). */
#ifndef PATHMOND_JSON_WRITER_H
#define PATHMOND_JSON_WRITER_H

#include <stddef.h>

typedef struct json_writer {
    char *data;
    size_t length;
    size_t capacity;
    size_t limit; /* the largest message allowed, its NUL included */
    int error;    /* the first failure (-ENOMEM, -EMSGSIZE, -EINVAL); later writes do nothing */
} json_writer;

void json_writer_init(json_writer *writer, size_t limit);
void json_writer_free(json_writer *writer);
/* Raw text, as it is. */
void json_write_raw(json_writer *writer, const char *text);
/* A JSON string: quoted and escaped; text that is not valid UTF-8 sets -EINVAL. */
void json_write_string(json_writer *writer, const char *text);
/* Ends the message with its NUL: 0, or the first failure. */
int json_writer_finish(json_writer *writer);

/* Whether `text` is valid UTF-8 (RFC 3629). */
int json_utf8_valid(const char *text);

#endif
