// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mc_exc.cc - a C++ exception thrown through traced frames (built -pg
 * -mfentry -mrecord-mcount): the unwinder must find the real return
 * addresses, the catcher must go on with its own frame traced, and a
 * destructor that runs during the unwinding calls a traced function.
 */
#include <stdexcept>

extern "C" int mc_leaf(int x);
extern "C" int mc_cxx_catch(int depth);

namespace {

struct guard {
	~guard() { mc_leaf(7); }
};

__attribute__((noinline)) int thrower(int depth)
{
	guard g;

	if (!depth)
		throw std::runtime_error("deep");
	return thrower(depth - 1) + 1;
}

} // namespace

extern "C" __attribute__((noinline)) int mc_cxx_catch(int depth)
{
	int after = 0;

	try {
		thrower(depth);
	} catch (const std::exception &) {
		after += mc_leaf(1) > 0;
	}
	try {
		try {
			thrower(depth);
		} catch (...) {
			throw; // rethrow through the frames above
		}
	} catch (const std::runtime_error &) {
		after += mc_leaf(2) > 0;
	}
	return after;
}
