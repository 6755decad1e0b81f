/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* attach.h - the hammer's attach mode (attach.c). */
#ifndef RB_TEST_ATTACH_H
#define RB_TEST_ATTACH_H

/* hammer --attach [options]: argv[1] is "--attach". */
int attach_main(int argc, char **argv);

#endif
