/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * golden.h - compare tracer output with the files in tests/tracer/golden
 *
 * Output is normalised first: thread ids, time stamps, durations,
 * symbol offsets and machine facts (#P, the kernel release) become fixed
 * placeholders of the same width, so that everything else is compared
 * byte for byte. RT_GOLDEN_UPDATE=1 rewrites the files instead.
 */
#ifndef RT_TEST_GOLDEN_H
#define RT_TEST_GOLDEN_H

#include <stdio.h>

/* One thread, one cpu buffer, one name: pin the caller to CPU 0 and
 * call it "rt-test", so that the golden outputs stay put. */
void golden_setup_thread(void);
/* Run fn(out, arg) on a memory stream and return what it wrote. */
char *golden_capture(int (*fn)(FILE *out, void *arg), void *arg);
/* Normalise @text (malloc()ed; it is freed) into a new string. */
char *golden_normalise(char *text);
/* Only the time stamps: "%5lu.%06lu" becomes SSSSS.UUUUUU where its
 * padding keeps the kernel's width rule, BADWIDTH marks it where not. */
char *golden_normalise_stamps(char *text);
/* Assert that normalised @text equals golden/@name. */
void golden_check(const char *name, const char *text);
/* The same without the normalisation: @text as it is. */
void golden_check_raw(const char *name, const char *text);

#endif /* RT_TEST_GOLDEN_H */
