/* SPDX-License-Identifier: Apache-2.0 */
#include "program_arguments.h"

#include <stddef.h>

static int saved_count;
static char **saved_vector;

// glibc calls each function of .init_array with (argc, argv, envp) before main (a documented extension of the ELF
// ABI that musl does not make: there the count stays 0 and the caller refuses to guess).
__attribute__((constructor)) static void program_arguments_save(int count, char **vector, char **environment) {
    (void)environment;
    if (count > 0 && vector != NULL) {
        saved_count = count;
        saved_vector = vector;
    }
}

int program_argument_count(void) { return saved_count; }

const char *program_argument(int index) {
    if (index < 0 || index >= saved_count) return NULL;
    return saved_vector[index];
}
