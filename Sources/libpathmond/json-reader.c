/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* RFC 8259 JSON, strictly: no comments, no trailing commas, no leading zeros, no bare control characters in strings,
 * only valid UTF-8 (surrogate pairs joined, lone surrogates refused). Numbers are kept as text: strtod would read
 * them in the host process's locale. */
#include "json-reader.h"

#include "utf8.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const unsigned char *input;
    size_t length;
    size_t position;
    json_document *document;
    uint32_t capacity;
    uint32_t maximum_nodes;
    size_t strings_used;
} parser;

static void skip_space(parser *p) {
    while (p->position < p->length) {
        unsigned char c = p->input[p->position];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            return;
        p->position++;
    }
}

/* Appends a node; its index in *ret. The root is node 0, so 0 can mean "none" in next and first. */
static int new_node(parser *p, json_kind kind, uint32_t *ret) {
    json_document *d = p->document;
    if (d->count >= p->maximum_nodes)
        return -EBADMSG;
    if (d->count == p->capacity) {
        if (p->capacity >= UINT32_MAX / 2)
            return -EBADMSG;
        uint32_t capacity = p->capacity == 0 ? 64 : p->capacity * 2;
        json_node *nodes = realloc(d->nodes, (size_t)capacity * sizeof *nodes);
        if (nodes == NULL)
            return -ENOMEM;
        d->nodes = nodes;
        p->capacity = capacity;
    }
    d->nodes[d->count] = (json_node){.kind = (uint8_t)kind, .name = UINT32_MAX};
    *ret = d->count++;
    return 0;
}

static void put_byte(parser *p, unsigned char c) {
    p->document->strings[p->strings_used++] = (char)c;
}

static void put_code_point(parser *p, uint32_t c) {
    if (c < 0x80) {
        put_byte(p, (unsigned char)c);
    } else if (c < 0x800) {
        put_byte(p, (unsigned char)(0xC0 | (c >> 6)));
        put_byte(p, (unsigned char)(0x80 | (c & 0x3F)));
    } else if (c < 0x10000) {
        put_byte(p, (unsigned char)(0xE0 | (c >> 12)));
        put_byte(p, (unsigned char)(0x80 | ((c >> 6) & 0x3F)));
        put_byte(p, (unsigned char)(0x80 | (c & 0x3F)));
    } else {
        put_byte(p, (unsigned char)(0xF0 | (c >> 18)));
        put_byte(p, (unsigned char)(0x80 | ((c >> 12) & 0x3F)));
        put_byte(p, (unsigned char)(0x80 | ((c >> 6) & 0x3F)));
        put_byte(p, (unsigned char)(0x80 | (c & 0x3F)));
    }
}

static int hex4(parser *p, uint32_t *ret) {
    if (p->length - p->position < 4)
        return -EBADMSG;
    uint32_t value = 0;
    for (int i = 0; i < 4; i++) {
        unsigned char c = p->input[p->position++];
        value <<= 4;
        if (c >= '0' && c <= '9')
            value |= (uint32_t)(c - '0');
        else if (c >= 'a' && c <= 'f')
            value |= (uint32_t)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            value |= (uint32_t)(c - 'A' + 10);
        else
            return -EBADMSG;
    }
    *ret = value;
    return 0;
}

/* A string at the opening quote, unescaped into the document's strings; *offset and *length locate it. */
static int parse_string(parser *p, uint32_t *offset, uint32_t *length) {
    p->position++; /* the quote */
    size_t start = p->strings_used;
    for (;;) {
        if (p->position >= p->length)
            return -EBADMSG;
        unsigned char c = p->input[p->position];
        if (c == '"') {
            p->position++;
            break;
        }
        if (c < 0x20)
            return -EBADMSG;
        if (c != '\\') {
            size_t sequence = utf8_sequence_length(p->input + p->position, p->length - p->position);
            if (sequence == 0)
                return -EBADMSG;
            for (size_t i = 0; i < sequence; i++)
                put_byte(p, p->input[p->position++]);
            continue;
        }
        p->position++;
        if (p->position >= p->length)
            return -EBADMSG;
        unsigned char escape = p->input[p->position++];
        uint32_t code;
        switch (escape) {
        case '"': case '\\': case '/': put_byte(p, escape); break;
        case 'b': put_byte(p, '\b'); break;
        case 'f': put_byte(p, '\f'); break;
        case 'n': put_byte(p, '\n'); break;
        case 'r': put_byte(p, '\r'); break;
        case 't': put_byte(p, '\t'); break;
        case 'u':
            if (hex4(p, &code) < 0)
                return -EBADMSG;
            if (code >= 0xD800 && code <= 0xDBFF) {
                uint32_t low;
                if (p->length - p->position < 2 || p->input[p->position] != '\\' ||
                    p->input[p->position + 1] != 'u')
                    return -EBADMSG;
                p->position += 2;
                if (hex4(p, &low) < 0 || low < 0xDC00 || low > 0xDFFF)
                    return -EBADMSG;
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
            } else if (code >= 0xDC00 && code <= 0xDFFF) {
                return -EBADMSG;
            }
            /* A NUL would cut the C string every caller reads. */
            if (code == 0)
                return -EBADMSG;
            put_code_point(p, code);
            break;
        default: return -EBADMSG;
        }
    }
    *length = (uint32_t)(p->strings_used - start);
    put_byte(p, '\0');
    *offset = (uint32_t)start;
    return 0;
}

static bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

static int parse_number(parser *p, uint32_t node) {
    size_t start = p->position;
    const unsigned char *s = p->input;
    if (p->position < p->length && s[p->position] == '-')
        p->position++;
    if (p->position >= p->length || !is_digit(s[p->position]))
        return -EBADMSG;
    if (s[p->position] == '0')
        p->position++;
    else
        while (p->position < p->length && is_digit(s[p->position]))
            p->position++;
    if (p->position < p->length && s[p->position] == '.') {
        p->position++;
        if (p->position >= p->length || !is_digit(s[p->position]))
            return -EBADMSG;
        while (p->position < p->length && is_digit(s[p->position]))
            p->position++;
    }
    if (p->position < p->length && (s[p->position] == 'e' || s[p->position] == 'E')) {
        p->position++;
        if (p->position < p->length && (s[p->position] == '+' || s[p->position] == '-'))
            p->position++;
        if (p->position >= p->length || !is_digit(s[p->position]))
            return -EBADMSG;
        while (p->position < p->length && is_digit(s[p->position]))
            p->position++;
    }
    json_node *n = &p->document->nodes[node];
    n->first = (uint32_t)p->strings_used;
    n->count = (uint32_t)(p->position - start);
    for (size_t i = start; i < p->position; i++)
        put_byte(p, s[i]);
    put_byte(p, '\0');
    return 0;
}

static int parse_literal(parser *p, const char *word) {
    size_t length = strlen(word);
    if (p->length - p->position < length || memcmp(p->input + p->position, word, length) != 0)
        return -EBADMSG;
    p->position += length;
    return 0;
}

static int parse_value(parser *p, unsigned depth, uint32_t *ret);

/* An array or object after its opening bracket: elements linked through `next`. */
static int parse_container(parser *p, uint32_t node, bool object, unsigned depth) {
    unsigned char close = object ? '}' : ']';
    uint32_t last = 0;
    skip_space(p);
    if (p->position < p->length && p->input[p->position] == close) {
        p->position++;
        return 0;
    }
    for (;;) {
        uint32_t name = UINT32_MAX, name_length, element;
        int r;
        if (object) {
            skip_space(p);
            if (p->position >= p->length || p->input[p->position] != '"')
                return -EBADMSG;
            if ((r = parse_string(p, &name, &name_length)) < 0)
                return r;
            skip_space(p);
            if (p->position >= p->length || p->input[p->position] != ':')
                return -EBADMSG;
            p->position++;
        }
        if ((r = parse_value(p, depth + 1, &element)) < 0)
            return r;
        /* nodes may have moved: index, never hold pointers across parse_value. */
        json_node *nodes = p->document->nodes;
        nodes[element].name = name;
        if (last == 0)
            nodes[node].first = element;
        else
            nodes[last].next = element;
        last = element;
        nodes[node].count++;
        skip_space(p);
        if (p->position >= p->length)
            return -EBADMSG;
        unsigned char c = p->input[p->position++];
        if (c == close)
            return 0;
        if (c != ',')
            return -EBADMSG;
    }
}

static int parse_value(parser *p, unsigned depth, uint32_t *ret) {
    if (depth > JSON_MAXIMUM_DEPTH)
        return -EBADMSG;
    skip_space(p);
    if (p->position >= p->length)
        return -EBADMSG;
    unsigned char c = p->input[p->position];
    uint32_t node;
    int r;
    switch (c) {
    case '{':
    case '[':
        if ((r = new_node(p, c == '{' ? JSON_OBJECT : JSON_ARRAY, &node)) < 0)
            return r;
        p->position++;
        r = parse_container(p, node, c == '{', depth);
        break;
    case '"':
        if ((r = new_node(p, JSON_STRING, &node)) < 0)
            return r;
        uint32_t offset, length;
        r = parse_string(p, &offset, &length);
        p->document->nodes[node].first = offset;
        p->document->nodes[node].count = length;
        break;
    case 't':
        if ((r = new_node(p, JSON_TRUE, &node)) < 0)
            return r;
        r = parse_literal(p, "true");
        break;
    case 'f':
        if ((r = new_node(p, JSON_FALSE, &node)) < 0)
            return r;
        r = parse_literal(p, "false");
        break;
    case 'n':
        if ((r = new_node(p, JSON_NULL, &node)) < 0)
            return r;
        r = parse_literal(p, "null");
        break;
    default:
        if (c != '-' && !is_digit(c))
            return -EBADMSG;
        if ((r = new_node(p, JSON_NUMBER, &node)) < 0)
            return r;
        r = parse_number(p, node);
        break;
    }
    *ret = node;
    return r;
}

int json_parse(const char *message, size_t length, json_document *document) {
    *document = (json_document){0};
    if (message == NULL || length == 0 || length >= UINT32_MAX / 2)
        return -EBADMSG;
    /* Every string or number written takes no more bytes (with its NUL) than it took in the message, but for a
     * number that ends the message. */
    document->strings = malloc(length + 2);
    if (document->strings == NULL)
        return -ENOMEM;
    parser p = {.input = (const unsigned char *)message,
                .length = length,
                .document = document,
                .maximum_nodes = (uint32_t)(length / JSON_BYTES_PER_NODE + 16)};
    uint32_t root;
    int r = parse_value(&p, 0, &root);
    if (r == 0) {
        skip_space(&p);
        if (p.position != length)
            r = -EBADMSG;
    }
    if (r < 0)
        json_document_free(document);
    return r;
}

void json_document_free(json_document *document) {
    free(document->nodes);
    free(document->strings);
    *document = (json_document){0};
}

const json_node *json_first(const json_document *document, const json_node *container) {
    if ((container->kind != JSON_ARRAY && container->kind != JSON_OBJECT) || container->count == 0)
        return NULL;
    return &document->nodes[container->first];
}

const json_node *json_next(const json_document *document, const json_node *node) {
    return node->next == 0 ? NULL : &document->nodes[node->next];
}

const char *json_string(const json_document *document, const json_node *node) {
    return node->kind == JSON_STRING ? document->strings + node->first : NULL;
}

int json_member(const json_document *document, const json_node *object, const char *name, const json_node **ret) {
    *ret = NULL;
    if (object->kind != JSON_OBJECT)
        return -EBADMSG;
    for (const json_node *member = json_first(document, object); member != NULL;
         member = json_next(document, member)) {
        if (strcmp(document->strings + member->name, name) != 0)
            continue;
        if (*ret != NULL)
            return -EBADMSG;
        *ret = member;
    }
    return 0;
}

int json_member_array(const json_document *document, const json_node *object, const char *name,
                      const json_node **ret) {
    int r = json_member(document, object, name, ret);
    if (r < 0)
        return r;
    if (*ret != NULL && (*ret)->kind != JSON_ARRAY && (*ret)->kind != JSON_NULL)
        return -EBADMSG;
    if (*ret != NULL && ((*ret)->kind == JSON_NULL || (*ret)->count == 0))
        *ret = NULL;
    return 0;
}

int json_member_bool(const json_document *document, const json_node *object, const char *name, int fallback,
                     int *ret) {
    const json_node *member;
    int r = json_member(document, object, name, &member);
    if (r < 0)
        return r;
    if (member == NULL || member->kind == JSON_NULL)
        *ret = fallback;
    else if (member->kind == JSON_TRUE || member->kind == JSON_FALSE)
        *ret = member->kind == JSON_TRUE;
    else
        return -EBADMSG;
    return 0;
}

int json_member_string(const json_document *document, const json_node *object, const char *name, const char **ret) {
    const json_node *member;
    int r = json_member(document, object, name, &member);
    if (r < 0)
        return r;
    if (member == NULL || member->kind == JSON_NULL)
        *ret = NULL;
    else if (member->kind == JSON_STRING)
        *ret = json_string(document, member);
    else
        return -EBADMSG;
    return 0;
}

int json_member_int(const json_document *document, const json_node *object, const char *name, int64_t minimum,
                    int64_t maximum, int64_t *ret) {
    const json_node *member;
    int r = json_member(document, object, name, &member);
    if (r < 0)
        return r;
    if (member == NULL || member->kind == JSON_NULL)
        return 0;
    if (member->kind != JSON_NUMBER)
        return -EBADMSG;
    const char *text = document->strings + member->first;
    bool negative = text[0] == '-';
    uint64_t magnitude = 0;
    for (const char *c = text + negative; *c != '\0'; c++) {
        if (!is_digit((unsigned char)*c))
            return -EBADMSG; /* a fraction or an exponent: not whole */
        if (magnitude > (UINT64_MAX - 9) / 10)
            return -EBADMSG;
        magnitude = magnitude * 10 + (uint64_t)(*c - '0');
    }
    if (magnitude > (uint64_t)INT64_MAX)
        return -EBADMSG;
    int64_t value = negative ? -(int64_t)magnitude : (int64_t)magnitude;
    if (value < minimum || value > maximum)
        return -EBADMSG;
    *ret = value;
    return 0;
}
