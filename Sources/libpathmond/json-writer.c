/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "json-writer.h"

#include "utf8.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void json_writer_init(json_writer *writer, size_t limit) {
    *writer = (json_writer){.limit = limit};
}

void json_writer_free(json_writer *writer) {
    free(writer->data);
    *writer = (json_writer){0};
}

static void append(json_writer *writer, const char *bytes, size_t length) {
    if (writer->error != 0)
        return;
    if (length > writer->limit || writer->length > writer->limit - length) {
        writer->error = -EMSGSIZE;
        return;
    }
    if (writer->length + length > writer->capacity) {
        size_t capacity = writer->capacity == 0 ? 256 : writer->capacity;
        while (capacity < writer->length + length)
            capacity *= 2;
        char *data = realloc(writer->data, capacity);
        if (data == NULL) {
            writer->error = -ENOMEM;
            return;
        }
        writer->data = data;
        writer->capacity = capacity;
    }
    memcpy(writer->data + writer->length, bytes, length);
    writer->length += length;
}

void json_write_raw(json_writer *writer, const char *text) {
    append(writer, text, strlen(text));
}

int json_utf8_valid(const char *text) {
    const unsigned char *s = (const unsigned char *)text;
    size_t left = strlen(text);
    while (left > 0) {
        size_t length = utf8_sequence_length(s, left);
        if (length == 0)
            return 0;
        s += length;
        left -= length;
    }
    return 1;
}

void json_write_string(json_writer *writer, const char *text) {
    if (writer->error == 0 && !json_utf8_valid(text))
        writer->error = -EINVAL;
    append(writer, "\"", 1);
    for (const unsigned char *s = (const unsigned char *)text; *s != 0; s++) {
        char escaped[8];
        if (*s == '"' || *s == '\\') {
            escaped[0] = '\\', escaped[1] = (char)*s;
            append(writer, escaped, 2);
        } else if (*s < 0x20) {
            static const char hex[] = "0123456789abcdef";
            memcpy(escaped, "\\u00", 4);
            escaped[4] = hex[*s >> 4], escaped[5] = hex[*s & 0xF];
            append(writer, escaped, 6);
        } else {
            append(writer, (const char *)s, 1);
        }
    }
    append(writer, "\"", 1);
}

int json_writer_finish(json_writer *writer) {
    append(writer, "", 1);
    return writer->error;
}
