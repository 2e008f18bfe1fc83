// SPDX-License-Identifier: MIT
// Phase clocks of the single-pass radix sort's passes: where a pass's time goes on a real GPU, where
// timestamps only see whole dispatches. Built with PHASE_CLOCKS=1 (the runtime's `_clk` kernels, used
// when DeviceOptions::phase_clocks is set), a workgroup reads the shader clock (VK_KHR_shader_clock,
// subgroup scope: the multiprocessor's cycle counter on GPUs) at the end of each phase of its tile and
// adds the ticks of each phase to the tile's slot of the ONESWEEP_CONTROL_CLOCKS words (interface.h);
// the runtime sums the slots into facts (`clock_share_<phase>`). Otherwise every call is empty.
//
// The marks sit after workgroup barriers where a phase ends in one, so invocation 0's clock stands for
// the workgroup's; the instrumented kernels add a barrier where a phase ends without one (ranking,
// writing), so they are a little slower than the plain ones and only their shares are meant to be read.
// Ticks are differences of the clock's low word: a phase of a tile lasts far less than 2^32 ticks.
//
// The upfront histogram (onesweep_histogram.comp) is instrumented the same way, per block, into a
// region of its own with its phases (ONESWEEP_HISTOGRAM_CLOCK_*).
//
// Include after interface.h and radix_digits.glsl (Words).
#ifndef VKSORT_ONESWEEP_CLOCKS_GLSL
#define VKSORT_ONESWEEP_CLOCKS_GLSL

#ifndef PHASE_CLOCKS
#define PHASE_CLOCKS 0
#endif

#if PHASE_CLOCKS
#extension GL_ARB_shader_clock : require

uint g_clock_last;
uint g_clock_ticks[ONESWEEP_CLOCK_ENTRIES];

void clock_start() {
  [[unroll]] for (uint e = 0u; e < ONESWEEP_CLOCK_ENTRIES; ++e) g_clock_ticks[e] = 0u;
  g_clock_last = clock2x32ARB().x;
}

// Ends `phase` (an ONESWEEP_CLOCK_* constant): the ticks since the previous mark are its.
void clock_mark(uint phase) {
  const uint now = clock2x32ARB().x;
  g_clock_ticks[phase] += now - g_clock_last;
  g_clock_last = now;
}

// A barrier that only the instrumented kernels have: it ends a phase that has no barrier of its own.
void clock_barrier() { barrier(); }

// Adds a 32-bit amount to the 64-bit sum in words lo, lo + 1: the high word takes the carry.
void clock_add(Words control, uint lo, uint amount) {
  if (amount == 0u) return;
  const uint before = atomicAdd(control.w[lo], amount);
  if (before + amount < before) atomicAdd(control.w[lo + 1u], 1u);
}

// Adds this workgroup's ticks per phase (and 1 to the count of what it measured, a tile or a block)
// to item's slot in the clock region at `region` (ONESWEEP_CONTROL_CLOCKS for the passes,
// ONESWEEP_CONTROL_HISTOGRAM_CLOCKS for the histogram). Call once per item, after the last mark.
void clock_publish(Words control, uint region, uint item) {
  if (gl_LocalInvocationIndex != 0u) return;
  g_clock_ticks[ONESWEEP_CLOCK_TILES] = 1u;
  const uint slot = region + (item % ONESWEEP_CLOCK_SLOTS) * ONESWEEP_CLOCK_ENTRIES * 2u;
  [[unroll]] for (uint e = 0u; e < ONESWEEP_CLOCK_ENTRIES; ++e) clock_add(control, slot + 2u * e, g_clock_ticks[e]);
}
#else
void clock_start() {}
void clock_mark(uint phase) {}
void clock_barrier() {}
void clock_publish(Words control, uint region, uint item) {}
#endif

#endif
