/* SPDX-License-Identifier: Apache-2.0 */
// glibc's getopt_long, which pathmond parses its command line with: <getopt.h> is outside Swift's Glibc module.
// getopt_long keeps its state in globals, which Swift 6 refuses to touch as shared mutable state; these accessors
// read and reset them for the one caller, which holds a lock around the whole parse.
#ifndef C_GETOPT_SHIM_H
#define C_GETOPT_SHIM_H

#include <getopt.h>

// optind 0 makes glibc start over, its permutation state included; opterr 0: the caller words the errors.
static inline void cgetopt_restart(void) {
    optind = 0;
    opterr = 0;
}
// The index of the next argument; after the last option, the first operand (operands are permuted to the end).
static inline int cgetopt_index(void) { return optind; }
// The value of the option just returned, if it takes one.
static inline const char *cgetopt_value(void) { return optarg; }
// The option a '?' or ':' was about: 0 for an unknown long name, else its character or long option's code.
static inline int cgetopt_problem(void) { return optopt; }

#endif
