/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "utf8.h"

#include <stdint.h>

size_t utf8_sequence_length(const unsigned char *s, size_t left) {
    if (left == 0)
        return 0;
    unsigned char c = s[0];
    if (c < 0x80)
        return 1;
    size_t length;
    uint32_t minimum, value;
    if ((c & 0xE0) == 0xC0)
        length = 2, minimum = 0x80, value = c & 0x1F;
    else if ((c & 0xF0) == 0xE0)
        length = 3, minimum = 0x800, value = c & 0x0F;
    else if ((c & 0xF8) == 0xF0)
        length = 4, minimum = 0x10000, value = c & 0x07;
    else
        return 0;
    if (left < length)
        return 0;
    for (size_t i = 1; i < length; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        value = (value << 6) | (s[i] & 0x3F);
    }
    if (value < minimum || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF))
        return 0;
    return length;
}
