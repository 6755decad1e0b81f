// SPDX-License-Identifier: LGPL-2.1-or-later
/* A plug-in that defines an event: its name lives in this object, which
 * dlclose() unmaps (test_unload). */
#define CREATE_TRACE_POINTS
#include "unload_plugin.h"

void unload_plugin_fire(int v);
void unload_plugin_fire(int v)
{
	trace_plugin_event_with_a_name_in_the_plugin(v);
}
