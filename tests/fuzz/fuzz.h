/* Fuzz harnesses: one LLVMFuzzerTestOneInput per parser, linked either with
 * libFuzzer (clang -fsanitize=fuzzer, `make fuzz`) or with replay.c's main,
 * which feeds it files (gcc, the corpora's regression test in `make check`). */
#ifndef TESTS_FUZZ_H
#define TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The parsers take paths: writes data to a file of this process's own
 * (created on the first call, rewritten on each) and returns its path
 * (borrowed). slot tells apart the files one input is split into. Aborts
 * if the file cannot be written: the harness would test nothing. */
const char *fuzz_write_file(int slot, const void *data, size_t size);

/* Ends the process with a message on stderr: an oracle saw the parser
 * accept what it must refuse. libFuzzer saves the input as a crash. */
void fuzz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)))
__attribute__((noreturn));

#endif
