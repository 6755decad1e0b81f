/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* chaos.h - the hammer's chaos mode (chaos.c). */
#ifndef RB_TEST_CHAOS_H
#define RB_TEST_CHAOS_H

/* hammer --chaos [options]: argv[1] is "--chaos". */
int chaos_main(int argc, char **argv);
/* hammer --chaos-reader NAME FD: a reader process of the chaos mode. */
int chaos_reader_main(int argc, char **argv);

#endif
