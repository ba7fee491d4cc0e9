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

// The Swift runtime's own way to the command line on Linux (its CommandLine.cpp) is a constructor in every program
// that reads /proc/self/maps through stdio, an sscanf per line, to find the stack and walk back from `environ` to
// argv: 100,000 instructions and six system calls before main in `pathctl check` (issue 41), and no arguments at
// all where /proc is not the caller's. That object file defines just these two functions: defined here, in an object
// linked before the static runtime is searched, they keep it out of the link, its constructor with it, and
// CommandLine.arguments reads argv as glibc gave it to the constructor above. Same names, same convention (Swift's)
// and the same answers as the runtime's; with a shared runtime they stay unused (it binds its own), and a runtime
// that stops calling them links its own object again, as before (ReleaseLinkTests checks a release pathctl opens no
// /proc/self/maps, and that a program's CommandLine.arguments are its argv).
static char **override_vector;
static int override_count;

__attribute__((swiftcall, visibility("hidden"))) void _swift_stdlib_overrideUnsafeArgvArgc(char **vector, int count);
__attribute__((swiftcall, visibility("hidden"))) char **_swift_stdlib_getUnsafeArgvArgc(int *count);

__attribute__((swiftcall, visibility("hidden"))) void _swift_stdlib_overrideUnsafeArgvArgc(char **vector, int count) {
    override_vector = vector;
    override_count = count;
}

__attribute__((swiftcall, visibility("hidden"))) char **_swift_stdlib_getUnsafeArgvArgc(int *count) {
    static char *no_arguments[] = {NULL};
    if (override_vector != NULL) {
        *count = override_count;
        return override_vector;
    }
    if (saved_vector != NULL) {
        *count = saved_count;
        return saved_vector;
    }
    *count = 0;
    return no_arguments;
}
