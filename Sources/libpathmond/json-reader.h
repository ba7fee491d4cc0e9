/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A small strict JSON reader for pathmond's replies: the whole message into one array of nodes, strings unescaped
 * and NUL-terminated, depth bounded, nothing recursive beyond that bound. Readers look members up by name and get
 * -EBADMSG when a name they read appears twice (one reader would take the first, another the last). */
#ifndef PATHMOND_JSON_READER_H
#define PATHMOND_JSON_READER_H

#include <stddef.h>
#include <stdint.h>

/* pathmond's replies nest five deep; a server that nests deeper is refused before it can use the stack. */
#define JSON_MAXIMUM_DEPTH 32

typedef enum { JSON_NULL, JSON_FALSE, JSON_TRUE, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT } json_kind;

/* A message may hold at most one value per this many bytes (and 16 more): valid JSON can hold one per two
 * ("[0,0,0]"), which would let a hostile server make a 16 MiB reply cost 160 MiB of nodes. pathmond's replies spend
 * far more per value: every member's name is quoted, and its shortest, `"isTunnel":true,`, takes 16 bytes. */
#define JSON_BYTES_PER_NODE 4

/* 20 bytes. */
typedef struct json_node {
    uint8_t kind; /* json_kind */
    /* The next element of the same array or object (index into the document's nodes), 0 for none. */
    uint32_t next;
    /* An array's or object's first element (0 for none), or a string's or number's text (offset into strings). */
    uint32_t first;
    /* An array's or object's number of elements, or a string's or number's length in bytes. */
    uint32_t count;
    /* An object member's name (offset into strings), or UINT32_MAX. */
    uint32_t name;
} json_node;

typedef struct json_document {
    json_node *nodes; /* nodes[0] is the root */
    uint32_t count;
    /* Unescaped strings and numbers' text, each NUL-terminated; strings are valid UTF-8 without NUL. */
    char *strings;
} json_document;

/* Parses `length` bytes into `document`: 0, -EBADMSG for anything that is not one JSON value (or nests deeper than
 * JSON_MAXIMUM_DEPTH), -ENOMEM. */
int json_parse(const char *message, size_t length, json_document *document);
void json_document_free(json_document *document);

/* The member `name` of the object `object`: 0 with *ret NULL when absent, -EBADMSG when named twice. */
int json_member(const json_document *document, const json_node *object, const char *name, const json_node **ret);

/* A member as an array: NULL when absent, null or empty; any other type -EBADMSG. */
int json_member_array(const json_document *document, const json_node *object, const char *name,
                      const json_node **ret);

/* A member as a boolean: absent or null is `fallback`; any other type -EBADMSG. */
int json_member_bool(const json_document *document, const json_node *object, const char *name, int fallback,
                     int *ret);

/* A member as a string: absent or null is NULL; any other type -EBADMSG. */
int json_member_string(const json_document *document, const json_node *object, const char *name, const char **ret);

/* A member as an integer within [minimum, maximum]: absent or null leaves *ret; another type or a number out of
 * range or not whole -EBADMSG. */
int json_member_int(const json_document *document, const json_node *object, const char *name, int64_t minimum,
                    int64_t maximum, int64_t *ret);

/* The first element of an array or object, and the one after `node`; NULL at the end. */
const json_node *json_first(const json_document *document, const json_node *container);
const json_node *json_next(const json_document *document, const json_node *node);

/* A string node's value (NUL-terminated), or NULL for another kind. */
const char *json_string(const json_document *document, const json_node *node);

#endif
