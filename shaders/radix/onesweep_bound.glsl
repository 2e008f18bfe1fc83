// SPDX-License-Identifier: MIT
// The single pass's keys and values through storage-buffer bindings (BOUND_BUFFERS, set by the build)
// instead of device addresses: binding 0 holds the keys, binding 1 the values, each an array of two,
// element 0 the caller's buffer (OnesweepPush::keys, ::values) and element 1 the scratch copy
// (::alt_keys, ::alt_values); without values, binding 1 repeats the keys. The runtime pushes them
// (RadixOnesweep::record) where the device takes push descriptors and the ranges fit a binding.
//   Why: CPU drivers (Mesa 22's gallivm) access a buffer device address lane by lane and component by
// component, reloading each lane's 64-bit address from a spill, but a binding's elements in one loop
// over the lanes with 32-bit offsets: on lavapipe the columns pass took 29 ms instead of 63 (2^20 u32
// keys). GPUs keep the addresses by default; the ballot ranking's bound kernels are an experiment for
// them (VKSORT_BOUND_BUFFERS=1): a binding's base lives in its descriptor, not in two registers per
// buffer, and its offsets are 32-bit, where the pass kernel's registers decide how many workgroups an
// SM holds (docs/algorithms.md).
// Each binding aliases as pairs of words (whole runs loaded 8 bytes at a time) and as keys or words.
#ifndef ONESWEEP_BOUND_GLSL
#define ONESWEEP_BOUND_GLSL
#ifndef BOUND_BUFFERS
#define BOUND_BUFFERS 0
#endif
#if BOUND_BUFFERS
layout(set = 0, binding = 0, std430) buffer BoundKeyPairs { uvec2 p[]; } b_key_pairs[2];
layout(set = 0, binding = 0, std430) buffer BoundKeys { Key k[]; } b_keys[2];
layout(set = 0, binding = 1, std430) buffer BoundValuePairs { uvec2 p[]; } b_value_pairs[2];
layout(set = 0, binding = 1, std430) buffer BoundValues { uint w[]; } b_values[2];
#endif
// Which element holds the caller's buffer and which the scratch copy.
const uint BOUND_CALLER = 0u, BOUND_SCRATCH = 1u;
#endif  // ONESWEEP_BOUND_GLSL
