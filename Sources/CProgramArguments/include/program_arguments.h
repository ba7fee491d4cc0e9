/* SPDX-License-Identifier: Apache-2.0 */
// The command line a program was started with, as execve(2) gave it.
//
// Swift's runtime finds the command line on Linux through /proc (/proc/self/maps, to find the stack argv lies on):
// where /proc is not the caller's (a tmpfs over it, a chroot or build hook without it, `nsenter -m` into a
// container) it finds none, or another process's, and a program that parses it runs with arguments it was never
// given. glibc passes argc and argv to every ELF constructor; arguments.c keeps them for the program to read
// instead, and hands them to Swift's CommandLine too (see there).
#ifndef PROGRAM_ARGUMENTS_H
#define PROGRAM_ARGUMENTS_H

// The number of arguments, the program's name included; 0 if none were passed (execve with an empty argv) or the
// C library did not pass them to constructors.
int program_argument_count(void);

// Argument `index` (0 is the program's name), NUL-terminated; NULL past the last.
const char *program_argument(int index);

#endif
