/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hostile.h - what a hostile writer does to the buffer file it shares
 * with its readers (hostile.c): the tests' own misbehaving writer, for
 * the library's readers (test_hostile.c) and the hostile traced program
 * of the tool's tests (tests/security/hostile.c), so each attack is
 * written once.
 */
#ifndef RB_TEST_HOSTILE_H
#define RB_TEST_HOSTILE_H

/*
 * hostile_apply - damage the buffer file at @path as @mode says:
 *   metaoff      cpu_meta_off (checked at attach) set far outside the
 *                file, then layout_gen bumped
 *   geom         cpu 0's page count made absurd, then layout_gen bumped
 *   randomhdr    random bytes (from @seed) over the header, the cpu
 *                states and the locks, then layout_gen bumped
 *   trunc4096    the file cut to 4096 bytes
 *   trunc0       the file cut to 0 bytes
 *   truncloop    for @ms milliseconds: cut to 4096 bytes and grown back,
 *                every millisecond
 *   lockhold     every cpu buffer's reader lock taken by this process,
 *                for as long as it lives
 *   lockgarbage  every reader lock's bytes overwritten with 0xa5
 * Returns 0, or -1 with a message on stderr (unknown mode, file errors).
 */
int hostile_apply(const char *path, const char *mode, unsigned int ms,
		  unsigned int seed);

#endif
