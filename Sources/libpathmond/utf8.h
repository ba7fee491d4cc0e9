/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* UTF-8 as RFC 3629 defines it, for the JSON reader (what pathmond sends) and writer (what the caller gives). */
#ifndef PATHMOND_UTF8_H
#define PATHMOND_UTF8_H

#include <stddef.h>

/* The length of the valid UTF-8 sequence at `s` (no overlong forms, no surrogates, at most U+10FFFF) within `left`
 * bytes, or 0 when there is none. */
size_t utf8_sequence_length(const unsigned char *s, size_t left);

#endif
