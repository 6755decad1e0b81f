// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mc_args_main.c - the program fnargs_tool.sh records: mc_args.c's fa_
 * functions (-pg -mfentry -mrecord-mcount, with debug information),
 * not linked with libringtrace (ringtrace record preloads it)
 */
#include "mc_args.h"

int main(void)
{
	struct mca_pair pair = { 1, 2 };

	if (fa_outer(4) != 10 || fa_fail() != -22 ||
	    fa_seven(1, 2, 3, 4, 5, 6, 7) != 28 || fa_pair(pair, -1) != 2)
		return 1;
	return 0;
}
